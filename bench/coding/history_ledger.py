"""History A (development): seven weeks of Claude Code sessions on "ledgerly", a FastAPI billing service.

Values change along the way (the API port, the refresh-token lifetime, the job queue, the staging URL), decisions
are agreed in conversation, a command fails and is fixed, and the last session leaves open work. QUESTIONS ask
about it in other words than the sessions used; BRIEF says what the next session's start must hold.
"""
from harness.transcripts import Assistant, Bash, Edit, Read, Todo, User, Write

PROJECT = "ledgerly"

SESSIONS = [
    ("s1-setup", 49, [
        User("Let's start the billing service. FastAPI with SQLAlchemy 2 and Postgres 16. The staging database "
             "listens on port 5433, not the default 5432."),
        Assistant("I'll scaffold the app with FastAPI, SQLAlchemy 2 and Alembic for schema migrations.",
                  [Bash("mkdir -p app tests && python -m venv .venv && .venv/bin/pip install fastapi uvicorn "
                        "sqlalchemy alembic psycopg[binary]", "Successfully installed fastapi-0.115.0 ..."),
                   Write("app/main.py", "from fastapi import FastAPI\napp = FastAPI()\n"),
                   Write("app/db.py", "DATABASE_URL = 'postgresql+psycopg://ledger@localhost:5433/ledger'\n"),
                   Bash("alembic init migrations", "Creating directory migrations ...  done")]),
        User("Run the dev server on port 8087, 8000 is taken by another project on my machine."),
        Assistant("The dev server now starts with `uvicorn app.main:app --reload --port 8087`.",
                  [Edit("Makefile", "", "run:\n\tuvicorn app.main:app --reload --port 8087\n"),
                   Bash("make run & sleep 2 && curl -s localhost:8087/docs | head -c 40", "<!DOCTYPE html>")]),
        User("How do we apply schema changes to the database?"),
        Assistant("Generate a revision with `alembic revision --autogenerate -m \"...\"` and apply it with "
                  "`alembic upgrade head`; roll back one step with `alembic downgrade -1`.",
                  [Bash("alembic revision --autogenerate -m 'create invoices' && alembic upgrade head",
                        "INFO  [alembic.runtime.migration] Running upgrade  -> 3f2a, create invoices")]),
        User("I prefer ruff for linting and formatting, not black. Set that up."),
        Assistant("Added ruff with the formatter enabled and removed black from the dev dependencies.",
                  [Edit("pyproject.toml", "black", "[tool.ruff]\nline-length = 100\n"),
                   Bash("ruff check . && ruff format --check .", "All checks passed!")]),
        Assistant("", [Todo([("Scaffold FastAPI app", "completed"), ("Set up Alembic", "completed"),
                             ("Add a health check endpoint", "pending")])]),
    ]),
    ("s2-webhooks", 41, [
        User("Next: Stripe webhooks. Put the endpoint at /webhooks/stripe."),
        Assistant("I'll add the endpoint and verify signatures with the webhook secret from settings.py.",
                  [Write("app/webhooks.py", "@router.post('/webhooks/stripe')\n"),
                   Edit("app/settings.py", "", "STRIPE_WEBHOOK_SECRET = 'whsec_test'\n")]),
        User("No, the webhook secret must not live in settings.py. Read it from the STRIPE_WEBHOOK_SECRET "
             "environment variable."),
        Assistant("Moved it: the app reads STRIPE_WEBHOOK_SECRET from the environment and fails at start-up when "
                  "it is missing.",
                  [Edit("app/settings.py", "STRIPE_WEBHOOK_SECRET = 'whsec_test'",
                        "STRIPE_WEBHOOK_SECRET = os.environ['STRIPE_WEBHOOK_SECRET']"),
                   Bash("pytest -q tests/test_webhooks.py", "4 passed in 0.61s")]),
        User("Background work like sending receipts should not block requests. What do you suggest?"),
        Assistant("A task queue: Celery with Redis as the broker is the usual choice and works well with FastAPI."),
        User("OK, let's go with Celery and Redis for background jobs."),
        Assistant("Set up a Celery app with a Redis broker on redis://localhost:6379/0 and moved receipt e-mails "
                  "into a task.",
                  [Write("app/worker.py", "celery = Celery('ledgerly', broker='redis://localhost:6379/0')\n"),
                   Bash("celery -A app.worker worker --loglevel=info & sleep 3; echo started", "started")]),
        User("Also add the health check we noted."),
        Assistant("Added GET /healthz, which returns {\"status\": \"ok\"} and checks the database connection.",
                  [Edit("app/main.py", "", "@app.get('/healthz')\ndef healthz(): ...\n"),
                   Bash("curl -s localhost:8087/healthz", "{\"status\":\"ok\"}")]),
        Assistant("", [Todo([("Stripe webhook endpoint", "completed"), ("Add a health check endpoint",
                                                                            "completed")])]),
    ]),
    ("s3-auth", 34, [
        User("Time for auth. JWT access tokens valid for 15 minutes, refresh tokens valid for 14 days."),
        Assistant("Implemented /auth/token and /auth/refresh with python-jose; access tokens expire after 15 "
                  "minutes and refresh tokens after 14 days.",
                  [Write("app/auth.py", "ACCESS_TTL = timedelta(minutes=15)\nREFRESH_TTL = timedelta(days=14)\n"),
                   Bash("pytest -q -k auth", "9 passed in 1.02s")]),
        User("Fourteen days feels long for a billing app. Make it 7 days."),
        Assistant("Done: refresh tokens now expire after 7 days.",
                  [Edit("app/auth.py", "REFRESH_TTL = timedelta(days=14)", "REFRESH_TTL = timedelta(days=7)"),
                   Bash("pytest -q -k auth", "9 passed in 0.98s")]),
        User("Add a users table and a migration for it."),
        Assistant("Creating the model and an autogenerated revision.",
                  [Write("app/models/user.py", "class User(Base): ...\n"),
                   Bash("alembic revision --autogenerate -m 'users'",
                        "FAILED: Target database is not up to date.", ok=False)]),
        Assistant("Autogenerate refuses to run while the database is behind the latest revision, so I applied the "
                  "pending revisions first with `alembic upgrade head` and then generated the new one.",
                  [Bash("alembic upgrade head && alembic revision --autogenerate -m 'users'",
                        "Generating migrations/versions/9c1d_users.py ...  done")]),
        User("How do I run only the auth tests again?"),
        Assistant("`pytest -q -k auth` runs just the auth tests."),
    ]),
    ("s4-deploy", 27, [
        User("Let's deploy to staging with Docker Compose. The staging URL is https://staging.ledgerly.dev."),
        Assistant("Added a Dockerfile and docker-compose.yml with api, worker, postgres and redis services.",
                  [Write("Dockerfile", "FROM python:3.12-slim\n"), Write("docker-compose.yml", "services: ...\n"),
                   Bash("docker compose build", "Successfully built 8c3e1a2b")]),
        User("Actually the staging URL is https://staging-api.ledgerly.dev, not staging.ledgerly.dev."),
        Assistant("Fixed the URL in the deploy config and the README.",
                  [Edit("deploy/staging.env", "https://staging.ledgerly.dev", "https://staging-api.ledgerly.dev")]),
        User("Move the API to port 8090, the load balancer expects that."),
        Assistant("The API now listens on port 8090 in the Makefile, the Dockerfile and docker-compose.yml.",
                  [Edit("Makefile", "--port 8087", "--port 8090"), Edit("docker-compose.yml", "8087", "8090"),
                   Bash("docker compose up -d && curl -s localhost:8090/healthz", "{\"status\":\"ok\"}")]),
        User("Set up CI too: run ruff and pytest on every pull request."),
        Assistant("Added a GitHub Actions workflow that runs `ruff check`, `ruff format --check` and `pytest -q` "
                  "on pull requests.",
                  [Write(".github/workflows/ci.yml", "on: pull_request\n"),
                   Bash("git add -A && git commit -m 'Deploy to staging with Docker Compose; CI'",
                        "[main 4be21c7] Deploy to staging with Docker Compose; CI")]),
    ]),
    ("s5-jobs", 16, [
        User("The Celery worker keeps leaking memory and restarting on staging. Is there something lighter that "
             "fits an async FastAPI app?"),
        Assistant("arq is a small asyncio job queue on Redis; it runs coroutines directly and needs no separate "
                  "broker configuration beyond the Redis you already have."),
        User("Sounds good, let's switch."),
        Assistant("Agreed. Decision: replace Celery with arq for background jobs, keeping Redis. I'll port the "
                  "receipt task and remove Celery.",
                  [Write("app/worker.py", "class WorkerSettings: functions = [send_receipt]\n"),
                   Bash("pip uninstall -y celery && pip install arq", "Successfully installed arq-0.26.1"),
                   Bash("pytest -q", "41 passed in 3.80s")]),
        User("Invoices also need PDFs."),
        Assistant("I'll render invoices to PDF with WeasyPrint from a Jinja2 template.",
                  [Write("app/invoices/pdf.py", "from weasyprint import HTML\n"),
                   Bash("pytest -q tests/test_invoice_pdf.py", "3 passed in 2.10s")]),
        User("Limit the public API to 100 requests per minute per API key."),
        Assistant("Added a Redis-backed rate limiter: 100 requests per minute per API key, answering 429 beyond.",
                  [Edit("app/ratelimit.py", "", "LIMIT = 100  # per minute per API key\n")]),
    ]),
    ("s6-observability", 2, [
        User("We need proper logs. Use structlog with JSON output."),
        Assistant("Configured structlog to emit JSON lines with the request id bound to every log entry.",
                  [Write("app/logging.py", "structlog.configure(processors=[...JSONRenderer()])\n")]),
        User("And Sentry for errors. The DSN comes from the SENTRY_DSN environment variable."),
        Assistant("Sentry is initialised at start-up from SENTRY_DSN and skipped when it is unset.",
                  [Edit("app/main.py", "", "sentry_sdk.init(dsn=os.environ.get('SENTRY_DSN'))\n"),
                   Bash("pytest -q", "44 passed in 4.02s")]),
        User("From now on, never run migrations against staging on Fridays."),
        Assistant("Noted: no staging migrations on Fridays."),
        User("Let's stop here for today."),
        Assistant("Next steps: add idempotency keys to the refund endpoint, and move PDF generation into an arq "
                  "job so requests do not wait for it.",
                  [Todo([("Structured JSON logs", "completed"), ("Sentry from SENTRY_DSN", "completed"),
                         ("Add idempotency keys to the refund endpoint", "pending"),
                         ("Move PDF generation into an arq job", "pending")])]),
    ]),
]

# (question, answers (any one found counts), stale values that must never be shown as current)
QUESTIONS = [
    ("Which port does the staging database use?", ["5433"], []),
    ("Which port does the billing database listen on?", ["5433"], []),
    ("What port is the API served on?", ["8090"], ["8087"]),
    ("Which port should I curl to reach the service locally?", ["8090"], ["8087"]),
    ("How do I apply database migrations?", ["alembic upgrade head"], []),
    ("How do I roll back the last schema change?", ["alembic downgrade -1"], []),
    ("What is the health check endpoint path?", ["/healthz"], []),
    ("How long do refresh tokens last?", ["7 days"], ["14 days"]),
    ("When do access tokens expire?", ["15 minutes"], []),
    ("What do we use for background jobs?", ["arq"], ["Celery"]),
    ("Which task queue runs the receipt e-mails?", ["arq"], ["Celery"]),
    ("Why did we drop Celery?", ["leaking memory", "leaks memory"], []),
    ("What's the staging URL?", ["staging-api.ledgerly.dev"], ["https://staging.ledgerly.dev"]),
    ("Where is staging hosted?", ["staging-api.ledgerly.dev"], ["https://staging.ledgerly.dev"]),
    ("Which linter and formatter does the user like?", ["ruff"], []),
    ("Should I format the code with black?", ["ruff"], []),
    ("Where does the Stripe webhook secret come from?", ["STRIPE_WEBHOOK_SECRET"], []),
    ("Where is the Stripe webhook handler mounted?", ["/webhooks/stripe"], []),
    ("Which Postgres version do we run?", ["Postgres 16"], []),
    ("How do I run only the authentication tests?", ["pytest -q -k auth"], []),
    ("What went wrong when generating the users migration, and how was it fixed?",
     ["Target database is not up to date"], []),
    ("How many requests per minute can one API key make?", ["100 requests per minute"], []),
    ("How are invoice PDFs rendered?", ["WeasyPrint"], []),
    ("Which logging library did we pick?", ["structlog"], []),
    ("Where does the Sentry DSN come from?", ["SENTRY_DSN"], []),
    ("Which CI system checks pull requests?", ["GitHub Actions"], []),
    ("What still needs doing on refunds?", ["idempotency keys"], []),
    ("Is it OK to migrate staging on a Friday?", ["never run migrations against staging on Fridays",
                                                   "no staging migrations on Fridays"], []),
    ("How do I start the dev server?", ["uvicorn app.main:app"], []),
    ("Which message broker do the background jobs use?", ["Redis"], []),
    ("What's the Redis address for the workers?", ["redis://localhost:6379/0"], []),
    ("Which library signs the JWTs?", ["python-jose"], []),
    ("What does the health endpoint return?", ["{\"status\": \"ok\"}", "{\"status\":\"ok\"}"], []),
    ("Which services does docker compose start?", ["api, worker, postgres and redis"], []),
    ("How do I build the containers?", ["docker compose build"], []),
    ("What did the PDF generation plan look like for later?", ["Move PDF generation into an arq job",
                                                                "move PDF generation into an arq"], []),
    ("Which ORM are we using?", ["SQLAlchemy 2"], []),
    ("What does the rate limiter answer when the limit is exceeded?", ["429"], []),
    ("How many tests passed after the switch to arq?", ["41 passed"], []),
    ("Why is the dev server not on port 8000?", ["taken by another project"], []),
    ("How long is the refresh token lifetime now, after the change?", ["7 days"], ["14 days"]),
    ("What job queue did we replace, and with what?", ["arq"], []),
]

# What the next session's start must hold: the latest decisions and the open TODOs; and values it must not present
# as current (a line holding one is fine only when it says the memory was replaced).
BRIEF = {
    "holds": ["arq", "8090", "7 days", "idempotency keys", "PDF generation"],
    "stale": ["Celery + Redis", "Celery and Redis", "port 8087", "14 days"],
}
