"""Words that mean the same thing in software work, for recall by meaning rather than by the memory's own words.

"How do I apply database migrations?" should find `alembic upgrade head`; "which port does the billing database
listen on?" should find "Postgres 16 on port 5433". Each group below holds terms a person may use for one idea
(a tool and what it is for, a word and its jargon). A prompt word in a group also looks for the group's other
terms, at a lower weight than its own. The groups name tools and concepts of software work in general, not of any
one project; words too common to tell topics apart (run, file, add) are left out on purpose.
Stdlib only, and a plain table: the prompt hook reads it on every prompt.
"""
_GROUPS = """
database databases db dbs postgres postgresql psql mysql mariadb sqlite sql mongodb mongo rds dynamodb cockroachdb
migration migrations migrate migrated alembic flyway liquibase knex schema
port ports listen listens listening bind
endpoint endpoints route routes handler handlers mounted url
health healthz healthcheck liveness readiness
lint linter linters linting ruff flake8 pylint eslint
format formatter formatting formatted black ruff prettier isort gofmt rustfmt
test tests testing pytest unittest jest vitest mocha spec specs runner
ci pipeline pipelines workflow workflows actions jenkins circleci gitlab
deploy deploys deploying deployment deployments deployed release releases rollout staging production prod
container containers docker dockerfile compose podman image images kubernetes k8s helm
queue queues job jobs task tasks worker workers background celery rq arq sidekiq bullmq dramatiq
drop dropped remove removed replace replaced switch switched uninstall
cache caches caching cached redis memcached
broker brokers rabbitmq kafka amqp sqs pubsub nats
auth authentication authenticate login logins signin session sessions oauth sso magic
token tokens jwt jwts bearer
expire expires expiry expiration ttl lifetime lifetimes
log logs logging logger structlog loguru winston pino
error errors exception exceptions sentry crash crashes traceback stacktrace
monitoring metrics observability datadog prometheus grafana tracing alerting
secret secrets credential credentials env dotenv
config configuration configured settings
url urls domain domains hostname host hosted hosting
frontend ui react vue svelte nextjs next component components
css tailwind styles stylesheet
package packages dependency dependencies npm pnpm yarn pip poetry uv
version versions upgrade upgraded bump bumped pinned
node nodejs
python cpython
commit commits committed
branch branches merge rebase
slow slowness latency performance faster speed
leak leaks leaking oom restarts
rate ratelimit limiter throttle throttling quota
pdf pdfs weasyprint reportlab wkhtmltopdf
email emails mail smtp postmark sendgrid mailgun ses
payment payments charge charges stripe
invoice invoices billing
refund refunds refunded
subscription subscriptions plan plans
webhook webhooks callback callbacks
orm sqlalchemy prisma typeorm sequelize activerecord
framework fastapi flask django express
server uvicorn gunicorn nginx
build builds bundle bundler webpack vite esbuild dist
cron scheduled schedule scheduler nightly
offline indexeddb localstorage
typing mypy pyright typescript hints
docs documentation docstring docstrings readme
hash hashing bcrypt argon2 encrypt encryption
rollback revert downgrade undo
sign signs signing signature signatures jose pyjwt jsonwebtoken
linting precommit pre-commit
shorter shorten shortened cut reduce reduced lower lowered decrease decreased
longer lengthen extend extended raise raised increase increased
retry retries retried retrying attempt attempts backoff
cleanup sweep sweeps sweeper gc prune pruned pruning purge purged vacuum
compiler compilers rustc gcc clang javac tsc toolchain toolchains
limit limits max maximum cap capped ceiling biggest largest
replica replicas copies instances pods autoscale autoscaling autoscaler hpa desired_count
"""

# Words that frame a question rather than name its topic ("which library did we pick?", "what still needs
# doing?"): recall looks for the rest of the prompt, so a memory need not hold these to answer it.
FRAMING = frozenset("""still need needs needed doing pick picked choose chose chosen library libraries tool tools
crate crates use used using decide decided current currently supposed happen happened going left remaining unfinished
outstanding open todo todos count number invocation invocations many""".split())

# Words that ask about what was done and said before ("why did we ...?", "what was ...", "our staging host"), which
# general questions ("how do I reverse a string?") rarely use: such a prompt asks memory, so it is given the full
# budget even when its best memory holds little of its wording.
HISTORY_WORDS = frozenset("we our ours did was were had current currently still anymore again earlier previously ago "
                          "yesterday".split())  # not "us": us-east-1

# A prompt asks (rather than gives work) when it has a question mark, or it or one of its clauses opens with one of
# these ("which port ...", "the deploy failed once, what was the fix").
QUESTION_OPENERS = frozenset("what whats which why how when where who whose whom is are was were do does did can "
                             "could should would will shall may might has have had am any anything".split())
# Words before a clause's first word that say nothing of its form ("please fix ...", "ok so why ...").
CLAUSE_LEADS = frozenset("please pls ok okay so now hey hi and then alright also but".split())
# A prompt asking memory in so many words, whatever its form ("remind me the staging host").
RECALLING = frozenset("remind remember recall".split())

# Verbs that open work without saying what it is about ("Fix the failing test", "Add type hints to load_config"):
# in a prompt giving work they are no topic; "fix" alone finds every error memory's "fixed by". A verb naming the
# work itself (deploy, commit, migrate, release) stays a topic.
WORK_VERBS = frozenset("""fix add make write update change create remove delete rename convert explain implement
refactor improve clean check look try help show give tell describe suggest recommend summarise summarize translate
use put set get do let go continue start finish keep run bump edit modify rewrite replace review test debug find
generate draft list print format sort split merge move extend reduce increase lower raise open read""".split())

# Two-word verbs a person types for one idea ("log in", "set up"): read as the one word the lexicon knows.
PHRASES = {("log", "in"): "login", ("logged", "in"): "login", ("logging", "in"): "login", ("sign", "in"): "signin",
           ("signed", "in"): "signin", ("signing", "in"): "signin", ("sign", "up"): "signup", ("set", "up"): "setup",
           ("roll", "back"): "rollback", ("rolled", "back"): "rollback", ("spin", "up"): "start"}

# Questions that ask for a kind of value ("how long ...?" wants a duration): a memory stating a value of that
# kind (search.db value_kinds, brain/util/values.py) ranks higher, and the asking words are not topic words.
QUESTION_VALUES = {("left", "to"): "todo", ("next", "steps"): "todo", ("still", "to"): "todo",
                   ("pick", "up"): "todo", ("left", "off"): "todo", ("on", "next"): "todo", ("do", "next"): "todo",
                   ("left", "unfinished"): "todo", ("still", "open"): "todo", ("open", "todos"): "todo",
                   ("open", "tasks"): "todo", ("remaining", "work"): "todo", ("outstanding", "work"): "todo",
                   ("waiting", "on"): "todo", ("waiting", "for"): "todo", ("blocked", "on"): "todo",
                   ("blocked", "by"): "todo",
                   ("how", "long"): "duration", ("how", "often"): "time", ("come", "from"): "url"}
# "which/what ... <noun>": the noun naming the value asked for, the last of the nouns right after the question word
# ("which port", "what is the url", "which Postgres version", "which host port": a port).
VALUE_NOUNS = {"port": "port", "ports": "port", "version": "version", "versions": "version", "url": "url",
               "urls": "url", "address": "url", "host": "url", "time": "time"}
_ASKING = ("which", "what")
_ASKING_REACH = 3  # words after "which"/"what" in which the noun may stand


def asked_values(runs) -> tuple:
    """(kinds of value the prompt's words ask for, the words that ask: framing, not topic)."""
    kinds, asking = set(), set()
    for pair in zip(runs, runs[1:]):
        if pair in QUESTION_VALUES:
            kinds.add(QUESTION_VALUES[pair])
            asking.add(pair[1])
    for i, word in enumerate(runs):
        if word not in _ASKING:
            continue
        noun = None
        for later in runs[i + 1:i + 1 + _ASKING_REACH]:
            if later in VALUE_NOUNS:
                noun = later
            elif noun:
                break  # the noun phrase ended: "which port do ...", "which host port is ..."
        if noun:
            kinds.add(VALUE_NOUNS[noun])
            asking.add(noun)
    return kinds, asking


def _index() -> tuple:
    """(the groups as tuples of terms, term -> indexes of the groups holding it). Only the prompt's own words are
    looked up, so each word's related terms are put together when asked for, not for all ~400 terms on every
    prompt (1 ms of the prompt hook)."""
    groups, where = [], {}
    for line in _GROUPS.strip().splitlines():
        terms = tuple(dict.fromkeys(line.split()))
        for term in terms:
            where.setdefault(term, []).append(len(groups))
        groups.append(terms)
    return groups, where


_GROUP_TERMS, _GROUPS_OF = _index()


def _related_terms(term: str):
    indexes = _GROUPS_OF.get(term)
    if indexes is None:
        return None
    return tuple(sorted({other for i in indexes for other in _GROUP_TERMS[i] if other != term}))


def _idea_of(term: str):
    indexes = _GROUPS_OF.get(term)
    return _GROUP_TERMS[indexes[0]][0] if indexes else None


def idea(word: str) -> str:
    """One name for the idea a word stands for: its group's first term, or the word itself."""
    return _idea_of(word) or (_idea_of(word[:-1]) or word if word.endswith("s") else word)


def related(word: str) -> tuple:
    """Terms the lexicon holds for the same idea as `word` (lower case; a plural finds its singular), or ()."""
    return _related_terms(word) or (_related_terms(word[:-1]) or () if word.endswith("s") else ())
