"""Tools that do the same job, so that "let's switch to goose" is known to replace golang-migrate, and "drop zap"
to be about the project's logger.

Each line is one job; its names are tools a project uses one of at a time (two task queues side by side are rare,
two migration tools rarer). Names are single lower-case words as they appear in text; names that are also common
English words (got, echo, render, requests) are left out, since a sentence naming them says nothing of the tool.
The table names tools of software work in general, not of any one project. Capture reads it (never the prompt
hook).
"""
_JOBS = """
migrations alembic flyway liquibase goose golang-migrate dbmate sqitch knex yoyo
queue celery rq arq dramatiq huey sidekiq resque bullmq oban faktory hangfire
logger zap zerolog logrus slog log/slog loguru structlog winston pino bunyan log4j logback serilog
tests jest vitest mocha ava jasmine pytest nose nose2 unittest rspec minitest
linter eslint biome oxlint tslint jshint pylint flake8 ruff golangci-lint rubocop standardrb
formatter prettier black yapf autopep8 gofumpt rustfmt
packages npm pnpm yarn bun pip poetry uv pipenv pdm conda
bundler webpack vite rollup esbuild parcel turbopack rspack
pyweb flask django fastapi starlette litestar sanic
goweb chi gin fiber gorilla/mux
nodeweb express fastify koa hapi nestjs hono
orm sqlalchemy peewee tortoise prisma typeorm sequelize drizzle mikro-orm gorm sqlc sqlx diesel
http httpx aiohttp urllib3 axios superagent
ci circleci travis jenkins buildkite woodpecker
hosting heroku fly.io vercel netlify railway
email postmark sendgrid mailgun ses mailchimp mandrill resend
containers docker podman
cache redis memcached valkey dragonfly keydb
search elasticsearch opensearch meilisearch typesense algolia solr
auth auth0 clerk cognito keycloak supabase firebase
errors sentry rollbar bugsnag honeybadger
metrics datadog prometheus newrelic
state redux zustand mobx recoil jotai pinia vuex
css tailwind bootstrap bulma
database postgres postgresql mysql mariadb sqlite mongodb dynamodb cockroachdb
scheduler apscheduler robfig/cron node-cron
s3client rusoto rusoto_s3 aws-sdk-s3 boto boto3 aioboto3 s3fs
"""


# Two names for one tool: neither replaces the other.
_SAME_TOOL = {"postgresql": "postgres", "log/slog": "slog", "fly.io": "fly"}


def _build() -> dict:
    jobs = {}
    for line in _JOBS.strip().splitlines():
        job, *names = line.split()
        for name in names:
            jobs[name] = job
    return jobs


JOB_OF = _build()


def job_of(name: str):
    """The job a tool does ("goose" -> "migrations"), or None for a name the table does not know."""
    return JOB_OF.get(name.lower().strip(".,;:()`'\""))


def same_job(name: str, text: str) -> list:
    """The other tools doing `name`'s job that `text` names, in order ("switch to goose" in a text naming
    golang-migrate -> ["golang-migrate"])."""
    job = job_of(name)
    if job is None:
        return []
    found = []
    for token in text.lower().replace("`", " ").split():
        token = token.strip(".,;:()'\"!?")
        token = token[:-2] if token.endswith("'s") else token
        if JOB_OF.get(token) == job and _one_name(token) != _one_name(name) and token not in found:
            found.append(token)
    return found


def _one_name(name: str) -> str:
    name = name.lower()
    return _SAME_TOOL.get(name, name)
