"""Recall by meaning and by what is current (issue 12), through the real hooks from hooks/hooks.json: the
person's words are not the memory's, values change, and decisions are agreed in conversation."""
import os
import subprocess
from datetime import datetime, timedelta, timezone

import pytest
from harness.claude_code import BUNDLE_ROOT, fire
from harness.transcripts import Assistant, Bash, Edit, Todo, User, Write, write_session

from brain.recall.lexicon import asked_values
from brain.recall.recall import recall
from brain.scripts import ChunkStore
from brain.util.text import words as word_runs

RLM = str(BUNDLE_ROOT / ".venv" / "bin" / "rlm-mem")
UNRELATED = ("Convert this loop into a list comprehension", "What's a good name for a cat?",
             "Explain the difference between TCP and UDP")


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def rlm(project, *args):
    run = subprocess.run([RLM, *args], capture_output=True, text=True, cwd=project, env=os.environ.copy(),
                         timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def prompt(project, text, sid="later"):
    (run,) = fire("UserPromptSubmit", {"session_id": sid, "transcript_path": str(project / f"{sid}.jsonl"),
                                       "cwd": str(project), "prompt": text})
    assert run.returncode == 0, run.stderr
    return run.context


def start(project, sid="later"):
    (run,) = fire("SessionStart", {"session_id": sid, "transcript_path": str(project / f"{sid}.jsonl"),
                                   "cwd": str(project), "source": "startup"})
    assert run.returncode == 0, run.stderr
    return run.context


def captured(tmp_path, project, sessions):
    """Each (session id, days ago, turns) written as a real transcript and ended through the real hooks, then the
    queued capture finished as the next session start would."""
    now = datetime.now(timezone.utc).replace(microsecond=0)
    for sid, days_ago, turns in sessions:
        path = write_session(tmp_path / f"{sid}.jsonl", sid, project, now - timedelta(days=days_ago), turns)
        base = {"session_id": sid, "transcript_path": str(path), "cwd": str(project)}
        (end,) = fire("SessionEnd", dict(base, reason="prompt_input_exit"))
        assert end.returncode == 0, end.stderr
    rlm(project, "ingest")


def lines_with(context, value):
    return [line for line in context.splitlines() if value in line]


def marked_or_beside(line, current):
    """A line showing an old value tells that it was replaced, or states the current value in its own text
    ("replace Celery with arq"), not only in the mark."""
    return "replaced" in line or current in line.split("] ", 1)[-1]


def test_the_readmes_example_is_recalled_in_other_words(project):
    rlm(project, "remember", "The staging database listens on port 5433", "--tags", "db,staging")
    assert "5433" in rlm(project, "recall", "which port does staging use?")
    assert "5433" in prompt(project, "which port does staging use?")
    for text in UNRELATED:  # a word the store never saw does not veto recall, and still nothing unrelated is given
        assert "5433" not in prompt(project, text)


def test_the_billing_database_port_comes_back_in_the_next_session(tmp_path, project):
    captured(tmp_path, project, [("s1", 2, [
        User("Set up the billing service: it uses Postgres 16 on port 5433."),
        Assistant("Done: the billing service connects to Postgres 16 on localhost:5433.",
                  [Edit("app/db.py", "", "DATABASE_URL = 'postgresql://billing@localhost:5433/billing'\n")]),
        User("Lint with ruff and keep the line length at 100."),
        Assistant("Added ruff with line-length = 100.", [Edit("pyproject.toml", "", "[tool.ruff]\nline-length = 100\n")]),
    ])])
    assert "5433" in prompt(project, "Which port does the billing database listen on?")
    assert "ruff" in prompt(project, "Which formatter enforces our line length?")
    for text in UNRELATED:
        assert prompt(project, text) == ""


def test_a_named_files_extension_is_no_topic_word(tmp_path, project):
    """A prompt naming a file the store has never heard of, about a topic it never saw, gets nothing, even though
    memories name other .py files and say "see": "py" was a known word and let four unrelated turns through."""
    captured(tmp_path, project, [("s1", 3, [
        User("Let's see how the markdown renders in the preview."),
        Assistant("You can see the headers and the code blocks render.", [Edit("docs/render.py", "", "RENDER = 1\n")]),
        User("Can you add a timing decorator in timing.py?"),
        Assistant("Added `timed` in utils/timing.py; see the example at the bottom.",
                  [Edit("utils/timing.py", "", "def timed(f):\n    return f\n")]),
    ])])
    assert prompt(project, "which port does staging use? see comments/models.py") == ""
    assert "timed" in prompt(project, "what's in timing.py again?")  # the file still finds its memories


def test_a_value_an_edit_wrote_is_recalled_when_the_conversation_never_said_it(tmp_path, project):
    """"Raise the ceiling to 8" names neither the setting nor the file; the edit does. An edit adding a few short
    lines names them in its tool summary (maxReplicas: 8); a block of code is named by its file only."""
    captured(tmp_path, project, [("s1", 3, [
        User("The HPA sat at its max all morning. Raise the ceiling to 8."),
        Assistant("Done in values.yaml, the minimum stays at 2.",
                  [Edit("deploy/helm/api/values.yaml", "  maxReplicas: 4\n", "  maxReplicas: 8\n")]),
        User("Add a retry helper for the webhooks."),
        Assistant("Added retry() in app/retry.py.",
                  [Edit("app/retry.py", "", "def retry(send):\n    for attempt in range(3):\n        try:\n"
                                            "            return send()\n        except OSError:\n            pass\n")]),
    ])])
    assert "maxReplicas: 8" in prompt(project, "How many replicas can the API autoscale to?")
    webhooks = prompt(project, "how do the webhooks retry?")
    assert "retry.py" in webhooks and "for attempt in range(3)" not in webhooks


def test_a_keyword_argument_given_another_word_marks_the_old_one_replaced(tmp_path, project):
    """A dbt model written as a view, later made a table: the written line says materialized='view', the edit
    gives the argument another word. The old line is marked replaced; the new one is given as it is."""
    captured(tmp_path, project, [("s1", 9, [
        User("Add the fct_deals mart."),
        Assistant("Added fct_deals on top of stg_deals.",
                  [Write("dbt/models/marts/fct_deals.sql",
                         "{{ config(materialized='view') }}\n\nselect * from {{ ref('stg_deals') }}\n")]),
    ]), ("s2", 2, [
        User("fct_deals is slow to query. Make it a table clustered by stage."),
        Assistant("Done: fct_deals is a table clustered by stage_id now.",
                  [Edit("dbt/models/marts/fct_deals.sql", "{{ config(materialized='view') }}\n",
                        "{{ config(materialized='table', cluster_by=['stage_id']) }}\n")]),
    ])])
    context = prompt(project, "How is fct_deals materialized?")
    assert "materialized='table'" in context
    assert all("replaced" in line for line in lines_with(context, "materialized='view'")), context


PORT_AND_QUEUE = [
    ("s1", 20, [
        User("Run the dev server on port 8087, 8000 is taken on my machine."),
        Assistant("The dev server now starts with `uvicorn app.main:app --port 8087`.",
                  [Edit("Makefile", "", "run:\n\tuvicorn app.main:app --reload --port 8087\n")]),
        User("Refresh tokens should last 14 days."),
        Assistant("Set REFRESH_TOKEN_TTL to 14 days.", [Edit("app/auth.py", "", "REFRESH_TOKEN_TTL = timedelta(days=14)\n")]),
        User("Let's go with Celery and Redis for background jobs."),
        Assistant("Set up a Celery app with a Redis broker and moved receipt e-mails into a task.",
                  [Edit("app/worker.py", "", "celery = Celery('app', broker='redis://localhost:6379/0')\n")]),
    ]),
    ("s2", 6, [
        User("Move the API to port 8090, another service needs 8087."),
        Assistant("Moved it: the API now listens on 8090.",
                  [Edit("Makefile", "--port 8087", "--port 8090"),
                   Bash("make run & sleep 2 && curl -s localhost:8090/healthz", '{"status":"ok"}')]),
        User("14 days is too long for refresh tokens. Make it 7 days."),
        Assistant("Refresh tokens now expire after 7 days.",
                  [Edit("app/auth.py", "timedelta(days=14)", "timedelta(days=7)")]),
        User("Celery keeps leaking memory in the worker. What would be lighter?"),
        Assistant("arq is an asyncio job queue on Redis, much lighter than Celery and it fits FastAPI."),
        User("Agreed. Decision: replace Celery with arq."),
        Assistant("Replaced Celery with arq; receipts are an arq job now.",
                  [Edit("app/worker.py", "celery = Celery('app', broker='redis://localhost:6379/0')",
                        "class WorkerSettings: functions = [send_receipt]")]),
        Assistant("", [Todo([("Move the API port", "completed"), ("Add idempotency keys to webhooks", "pending")])]),
    ]),
]


def test_a_changed_value_is_given_as_current_and_the_old_one_marked_replaced(tmp_path, project):
    captured(tmp_path, project, PORT_AND_QUEUE)
    for question, current, old in (("What port is the API served on?", "8090", "8087"),
                                   ("How long do refresh tokens last?", "7 days", "14 days"),
                                   ("What do we use for background jobs?", "arq", "Celery")):
        context = prompt(project, question)
        assert current in context, (question, context)
        for line in lines_with(context, old):  # the old value is history: dated and marked, or beside the new one
            assert marked_or_beside(line, current), (question, line)


def test_a_change_told_in_words_with_bare_numbers_marks_the_old_value_replaced(tmp_path, project):
    """No edit shows it: the person only says what was changed ("from 8087 to 8090", "from 14 to 7 days"). The old
    statements are marked replaced when recalled."""
    captured(tmp_path, project, [("s1", 20, [
        User("Note for later: the API listens on 8087 and refresh tokens last 14 days."),
        Assistant("Noted: API on 8087, refresh tokens valid for 14 days."),
    ]), ("s2", 4, [
        User("I moved the API from 8087 to 8090 on the server, and changed the refresh token lifetime from 14 to 7 "
             "days."),
        Assistant("Understood, I'll use 8090 and 7 days from now on."),
    ])])
    for question, current, old in (("Which port does the API listen on?", "8090", "8087"),
                                   ("How long are refresh tokens valid?", "7 days", "14 days")):
        context = prompt(project, question)
        assert current in context, (question, context)
        old_lines = [line for line in lines_with(context, old) if current not in line.split("] ", 1)[-1]]
        assert old_lines and all("replaced" in line for line in old_lines), (question, context)


def test_a_range_or_a_measure_told_with_from_and_to_replaces_nothing(tmp_path, project):
    """"The ephemeral ports go from 8000 to 8100", "the tests went from 1500 to 1620 passing": no value was
    changed, so the older statement of port 8000 is given unmarked."""
    captured(tmp_path, project, [("s1", 20, [
        User("The dev server listens on port 8000."),
        Assistant("Noted: the dev server is on port 8000."),
    ]), ("s2", 4, [
        User("The ephemeral ports go from 8000 to 8100 on that box, and the tests went from 1500 to 1620 passing."),
        Assistant("Good to know."),
    ])])
    context = prompt(project, "Which port does the dev server listen on?")
    assert "8000" in context and "replaced" not in context, context


def test_why_a_value_changed_is_answered_by_the_request_that_changed_it(tmp_path, project):
    """The reason for a change is in the request before it, which need not share a word with the question: a
    replaced value the prompt is about brings the change that replaced it and the turn asking for it."""
    captured(tmp_path, project, [
        ("a1", 30, [
            User("Serve the admin panel on port 5000 for now."),
            Assistant("The admin panel now listens on port 5000.",
                      [Edit("admin/run.sh", "", "exec gunicorn admin:app --bind 0.0.0.0:5000\n")]),
            User("Log every admin login to the audit table."),
            Assistant("Added an audit row per admin login.",
                      [Edit("admin/audit.py", "", "def log_login(user): ...\n")]),
        ]),
        ("a2", 9, [
            User("The designers get 'connection refused' when they open the panel on their Macs."),
            Assistant("macOS runs an AirPlay receiver that takes 5000 before gunicorn can bind it."),
            User("Use 5050 instead."),
            Assistant("Switched the bind to 0.0.0.0:5050.",
                      [Edit("admin/run.sh", "--bind 0.0.0.0:5000", "--bind 0.0.0.0:5050")]),
        ]),
    ])
    context = prompt(project, "Why did the admin panel's port change?")  # the reason two turns before the change
    assert "AirPlay" in context and "5050" in context, context
    context = prompt(project, "Which port does the admin panel listen on?")
    assert "5050" in context and all(marked_or_beside(line, "5050") for line in lines_with(context, "5000"))


def test_why_a_tool_was_dropped_is_answered_by_the_problem_raised_turns_before(tmp_path, project):
    """A "why" asks for what was said before the change: the problem a person raised, then the options, then the
    agreement. Those turns share one word with the question at most; the turns just before a hit weigh more
    for a "why" than for other questions. (Other work first: in a store of a dozen memories a word on half of
    them, "Celery", weighs nothing.)"""
    captured(tmp_path, project, [
        ("j0", 40, [
            User("Add a health check endpoint at /healthz that returns ok."),
            Assistant("Added GET /healthz returning {\"status\": \"ok\"}.", [Edit("app/main.py", "", "healthz\n")]),
            User("Format the code with black and sort imports with isort."),
            Assistant("Ran black and isort over the app package.", [Bash("black app && isort app")]),
            User("Pin the Python version to 3.12 in the Dockerfile."),
            Assistant("The Dockerfile now starts FROM python:3.12-slim.", [Edit("Dockerfile", "3.11", "3.12")]),
            User("Invoices need a PDF version. Which library renders HTML to PDF?"),
            Assistant("WeasyPrint renders HTML and CSS to PDF without a browser."),
        ]),
        ("j1", 30, [
            User("Receipt e-mails block the request. What should run them in the background?"),
            Assistant("A task queue: Celery with Redis as the broker is the usual choice and works with FastAPI."),
            User("OK, let's go with Celery and Redis for background jobs."),
            Assistant("Set up a Celery app with a Redis broker and moved receipt e-mails into a task.",
                      [Bash("celery -A app.worker worker --loglevel=info")]),
        ]),
        ("j2", 5, [
            User("The Celery worker keeps leaking memory and restarting on staging. Is there something lighter "
                 "that fits an async FastAPI app?"),
            Assistant("arq is a small asyncio job queue on Redis; it runs coroutines directly and needs no separate "
                      "broker configuration beyond the Redis you already have."),
            User("Sounds good, let's switch."),
            Assistant("Agreed. Decision: replace Celery with arq for background jobs, keeping Redis. I'll port the "
                      "receipt task and remove Celery.", [Bash("pip uninstall -y celery && pip install arq")]),
        ]),
    ])
    context = prompt(project, "Why did we drop Celery?")
    assert "leaking memory" in context, context


def test_a_value_asked_for_and_carried_out_by_an_edit_replaces_the_old_one(tmp_path, project):
    """No turn before the request states the old value's kind ("Make it 90 minutes" after talk of something else),
    and the edit says it in code (`from_secs(20 * 60)`): the one number the edit replaced is the old value. A value
    the person names without asking in so many words ("09:30 UTC works better"), which the reply's edit sets, is
    a decision the next session's brief holds."""
    captured(tmp_path, project, [
        ("w1", 25, [
            User("Reports should be cached for 20 minutes."),
            Assistant("The report cache now keeps entries for 20 minutes.",
                      [Edit("src/cache.rs", "", "const REPORT_TTL: Duration = Duration::from_secs(20 * 60);\n")]),
            User("Send the weekly digest at 07:00 UTC on Mondays."),
            Assistant("The digest job is scheduled with the cron expression 0 7 * * 1.",
                      [Edit("src/jobs.rs", "", "const DIGEST_CRON: &str = \"0 0 7 * * 1\";\n")]),
        ]),
        ("w2", 4, [
            User("Add a --dry-run flag to the export command."),
            Assistant("Added --dry-run: it prints what would be exported and writes nothing.",
                      [Edit("src/export.rs", "", "#[arg(long)] dry_run: bool,\n")]),
            User("The finance team complains the reports lag behind their spreadsheets. Make it 90 minutes."),
            Assistant("Done, cached reports are kept longer now.",
                      [Edit("src/cache.rs", "Duration::from_secs(20 * 60)", "Duration::from_secs(90 * 60)")]),
            User("Nobody reads the digest that early, it is buried by noon. 09:30 UTC works better."),
            Assistant("Moved the digest job: the digest now goes out at 09:30 UTC on Mondays (cron 0 30 9 * * 1).",
                      [Edit("src/jobs.rs", "\"0 0 7 * * 1\"", "\"0 30 9 * * 1\"")]),
        ]),
    ])
    context = prompt(project, "How long are reports cached?")
    assert "90 minutes" in context, context
    assert all(marked_or_beside(line, "90 minutes") for line in lines_with(context, "20 minutes")), context
    decisions = [c.content for c in ChunkStore(os.environ["RLM_MEM_DIR"]).list_chunks()
                 if c.metadata.get("kind") == "decision" and c.metadata.get("status", "active") == "active"]
    assert any("09:30 UTC" in d for d in decisions), decisions
    assert "09:30 UTC" in start(project)


def test_values_changed_by_a_command_or_an_image_tag_are_given_as_replaced(tmp_path, project):
    """Changes made without a sentence saying so: a package swapped for another in one command line, a setting
    changed by sed, an image tag whose variant changed in an edit, "15 minutes, not an hour". Older turns stating
    the old values show them marked as replaced."""
    captured(tmp_path, project, [
        ("v1", 30, [
            User("Scaffold the API and containerise it."),
            Assistant("Validation uses zod with fastify-type-provider-zod. The Dockerfile builds on node:20-alpine. "
                      "Password reset links expire after 1 hour. The pool URL ends in ?connection_limit=5.",
                      [Bash("pnpm add fastify zod fastify-type-provider-zod"),
                       Write("Dockerfile", "FROM node:20-alpine AS build\nWORKDIR /app\n")]),
        ]),
        ("v2", 9, [
            User("Prisma can't load libssl on alpine. Move off it, and use TypeBox for the schemas."),
            Assistant("Done.", [Edit("Dockerfile", "FROM node:20-alpine AS build",
                                     "FROM node:20-bookworm-slim AS build"),
                                Bash("pnpm remove zod fastify-type-provider-zod && pnpm add @sinclair/typebox "
                                     "@fastify/type-provider-typebox"),
                                Bash("sed -i 's/connection_limit=5/connection_limit=15/' .env")]),
            User("Security review: reset links should be valid 15 minutes, not an hour."),
            Assistant("Reset tokens now expire after 15 minutes.", [Edit("src/reset.ts", "RESET_TTL_MS = 3600000",
                                                                         "RESET_TTL_MS = 900000")]),
        ]),
    ])
    for question, old, current in (
            ("What base image do our Docker builds use?", "node:20-alpine", "node:20-bookworm-slim"),
            ("Which library does our validation use?", "zod", "typebox"),
            ("What connection limit does the pool URL set?", "connection_limit=5", "connection_limit=15"),
            ("How long is a password reset link good for?", "1 hour", "15 minutes")):
        context = prompt(project, question)
        assert lines_with(context, old) and all(marked_or_beside(line, current)
                                                for line in lines_with(context, old)), context
    # the old turn states four replaced values: its mark names the one the question is about
    context = prompt(project, "What base image do our Docker builds use?")
    assert "node:20-alpine replaced" in context, context


def test_where_something_comes_from_is_answered_by_its_source_address(project):
    """"Where does X come from?" asks for a source: of two memories the question's words find alike, the one
    naming an address comes first (without the rule the newer one would)."""
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    store.create_chunk("The marina forecast feed is pulled with our station key from "
                       "https://api.seawx.example/v2/stations/0014/forecast", created="2026-01-05T09:00:00Z")
    store.create_chunk("The marina forecast feed is on the dashboard", created="2026-01-06T09:00:00Z")
    first = rlm(project, "recall", "Where does the marina forecast feed come from?").split("\n- ", 1)[-1]
    assert "seawx" in first.split("\n", 1)[0], first


def test_decisions_agreed_in_conversation_are_decisions_and_the_brief_holds_the_latest(tmp_path, project):
    captured(tmp_path, project, PORT_AND_QUEUE)
    decisions = [c.content for c in ChunkStore(os.environ["RLM_MEM_DIR"]).list_chunks()
                 if c.metadata.get("kind") == "decision" and c.metadata.get("status", "active") == "active"]
    assert any("arq" in d for d in decisions), decisions  # "Agreed. Decision: replace Celery with arq"
    assert any("7 days" in d for d in decisions), decisions  # "Make it 7 days", carried out on request
    assert any("8090" in d for d in decisions), decisions  # "Move the API to port 8090", carried out
    brief = start(project)
    for held in ("arq", "8090", "7 days", "idempotency keys"):  # the latest decisions and the open TODO
        assert held in brief, (held, brief)
    for stale, current in (("port 8087", "8090"), ("14 days", "7 days"), ("Celery and Redis", "arq")):
        for line in lines_with(brief, stale):
            assert marked_or_beside(line, current), line


def test_a_question_about_open_work_gets_the_latest_open_work(tmp_path, project):
    captured(tmp_path, project, PORT_AND_QUEUE)
    for question in ("What's still left to do?", "What should I pick up next?", "Anything we left unfinished?"):
        assert "idempotency keys" in prompt(project, question), question



def test_the_lexicon_gives_each_word_the_other_terms_of_every_group_holding_it():
    """related() and idea() read the groups as written: a term in two groups relates to both groups' terms, a
    plural finds its singular, and a word in no group has none (checked against the table, line by line)."""
    from brain.recall import lexicon

    groups = [tuple(dict.fromkeys(line.split())) for line in lexicon._GROUPS.strip().splitlines()]
    for term in {t for group in groups for t in group}:
        holding = [group for group in groups if term in group]
        assert lexicon.related(term) == tuple(sorted({t for g in holding for t in g} - {term}))
        assert lexicon.idea(term) == holding[0][0]
    assert "postgres" in lexicon.related("databases") and lexicon.idea("linters") == "lint"
    assert lexicon.related("teapot") == () and lexicon.idea("teapot") == "teapot"


def test_the_word_naming_what_kind_of_answer_is_asked_for_does_not_veto_recall(project):
    """"Which crate ...?", "which ... invocation", "the worker count": the question names the kind of thing it
    wants, which the memory holding the thing rarely says. With such a word counted as a topic the store never saw,
    each of these prompts was turned away."""
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    store.create_chunk("Events are published to Kafka through rdkafka with acks=all.", created="2026-01-05T09:00:00Z")
    store.create_chunk("Pre-merge check: ruff check --select ALL src/", created="2026-01-06T09:00:00Z")
    store.create_chunk("Set the workers to 4 instead of 8: the box has 4 cores and 8 thrashed.",
                       created="2026-01-07T09:00:00Z")
    for question, answer in (("Which crate talks to Kafka?", "rdkafka"),
                             ("Which ruff invocation do we block on?", "--select ALL"),
                             ("Why did we lower the worker count?", "thrashed")):
        assert answer in prompt(project, question), question
    for text in UNRELATED:
        assert prompt(project, text) == "", text


def test_a_retry_is_an_attempt_and_a_sweep_a_cleanup(project):
    """Software words for one idea (the lexicon): a retry count is stated in attempts, a cleanup job is called a
    sweep, the compiler is pinned as a toolchain, the biggest allowed is a limit."""
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    store.create_chunk("The uploader makes 5 attempts with exponential backoff.", created="2026-01-05T09:00:00Z")
    store.create_chunk("The orphan sweep runs at 02:00 and logs what it deleted.", created="2026-01-06T09:00:00Z")
    store.create_chunk("rust-toolchain.toml pins 1.82 for CI and laptops alike.", created="2026-01-07T09:00:00Z")
    store.create_chunk("Attachments have a 25 MB limit (client_max_body_size).", created="2026-01-08T09:00:00Z")
    for question, answer in (("How often does the uploader retry?", "5 attempts"),
                             ("When does the cleanup happen?", "02:00"),
                             ("Which compiler do we use?", "1.82"),
                             ("What's the biggest attachment allowed?", "25 MB")):
        assert answer in prompt(project, question), question  # each one got nothing without its group


def test_a_question_for_a_value_is_answered_by_a_memory_stating_one_in_its_own_words(project):
    """"Which port does the collector sidecar on the lumen host forward datagrams to?" against "the sidecar on the
    lumen farm ships to 9125": the memory holds two of the prompt's ideas and states a number, the person's words
    (host, forward, datagrams) are not the memory's. Without the rule the gate turned it away: two words the store
    never saw, two it knows from elsewhere. A port question nothing answers still gets nothing."""
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    store.create_chunk("Heads up: the sidecar on the lumen farm ships to 9125, not 8125.",
                       created="2026-01-05T09:00:00Z")
    store.create_chunk("The collector keeps a queue of 500 points before it flushes.", created="2026-01-06T09:00:00Z")
    store.create_chunk("Grafana shows the collector's queue depth per host.", created="2026-01-07T09:00:00Z")
    assert "9125" in prompt(project, "Which port does the collector sidecar on the lumen host forward datagrams to?")
    for text in ("Which port does Redis use by default?", *UNRELATED):
        assert prompt(project, text) == "", text


def test_a_question_for_a_port_favours_a_memory_stating_a_bare_number():
    """"Which port is the API on now?" against "I moved the API from 5080 to 5090": a port is often
    written as a bare number, so the memory stating one is weighed as stating the value asked for (as the prompt
    gate already took it), above a memory as close to the question's words that states none."""
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    store.create_chunk("I moved the API from 5080 to 5090 today.", created="2026-01-05T09:00:00Z")
    store.create_chunk("I moved the API notes to the wiki today.", created="2026-01-06T09:00:00Z")  # newer
    for day, text in enumerate(("Appointments are stored in UTC.", "Reminders go out by SMS a day before.",
                                "The admin front end is React with Vite.", "Stock counts are taken every Monday.",
                                "Serilog writes JSON to App Insights.", "Migrations run in the pipeline only."), 7):
        store.create_chunk(text, created=f"2026-01-{day:02d}T09:00:00Z")
    items = recall(os.environ["RLM_MEM_DIR"], "Which port is the API on now?", track=False).items
    assert ["5090" in item.text for item in items][:2] == [True, False], [item.text for item in items]


def test_the_kind_of_value_a_question_asks_for_is_the_noun_after_which_or_what():
    """"Which Postgres version do we run?" asks for a version although "version" does not follow "which"; in
    "which host port" the port is asked for (the last noun), not a host; "on port 80" after "which service" is a
    topic, not what is asked. The noun asking is framing, not a topic word the memory must hold."""
    def asked(text):
        return asked_values(word_runs(text.lower()))

    assert asked("Which Postgres version do we run?") == ({"version"}, {"version"})
    assert asked("Which host port do I use to reach the local Postgres container?") == ({"port"}, {"port"})
    assert asked("What is the URL of the staging API?") == ({"url"}, {"url"})
    assert asked("what time does the nightly export start") == ({"time"}, {"time"})
    assert asked("How long do sessions last?")[0] == {"duration"}
    assert asked("How often does the CRM sync run now?") == ({"time"}, {"often"})  # a schedule
    assert asked("What are we waiting on before the production deploy?") == ({"todo"}, {"on"})  # open work
    assert asked("Which service runs on port 80?") == (set(), set())
    assert asked("What did the deploy time out on?") == (set(), set())


def _letters(n: int) -> str:
    return "".join(chr(97 + int(d)) for d in str(n))


def test_a_question_whose_words_are_all_common_gets_the_value_it_asks_for(project):
    """In an app whose memories mostly mention Kotlin, "Which Kotlin version are we on?" has no word that tells
    memories apart; it asks for a version, and the newest memories about Kotlin stating one answer it (before,
    the prompt got nothing). A prompt of common words asking for no value still gets nothing."""
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    for i in range(60):
        store.create_chunk(f"Kotlin flows on the {_letters(i)} screen are collected with stateIn",
                           created=f"2026-01-{1 + i % 28:02d}T09:00:00Z")
        store.create_chunk(f"The {_letters(i)} screen lists the orders of the week",
                           created=f"2026-01-{1 + i % 28:02d}T10:00:00Z")
    store.create_chunk("The app builds with Kotlin 2.0.21 since the compose compiler moved into it",
                       created="2026-02-01T09:00:00Z")
    context = prompt(project, "Which Kotlin version are we on?")
    assert "2.0.21" in context, context
    assert not prompt(project, "Kotlin?")


def test_the_best_memory_too_long_for_the_budget_is_shown_in_part(project):
    """A long session note that answers the question, and a short memory that does not: with a budget smaller
    than the note, the note's sentences around the question's words are shown (before, it was skipped for not
    fitting and the short one shown alone)."""
    store = ChunkStore(os.environ["RLM_MEM_DIR"])
    filler = " ".join(f"Step {_letters(i)} of the import touched the {_letters(i)} table and passed."
                      for i in range(12))
    store.create_chunk(f"Session notes on the warehouse import. {filler} The sensor archive now starts at "
                       f"1998-04-01, the first day the station logged. {filler}", created="2026-01-05T09:00:00Z")
    store.create_chunk("The warehouse import runs nightly", created="2026-01-06T09:00:00Z")
    shown = rlm(project, "recall", "Since when does the sensor archive go back?", "--budget", "200")
    assert "1998-04-01" in shown, shown


def test_a_question_before_a_pasted_megabyte_is_still_answered(project):
    """A question followed by 4 MB of pasted paths: the prompt hook read all of it (file names, dates, phrases),
    gave up at its time limit and recalled nothing; it now reads the prompt's start and end."""
    rlm(project, "remember", "The staging database listens on port 5433")
    context = prompt(project, "Which port does the staging database listen on? Here is the tree:\n"
                     + "src/a/b.py " * 400_000)
    assert "5433" in context, context


def test_the_brief_quotes_the_latest_value_changes_and_names_what_they_replaced(tmp_path, project):
    """A session starts knowing what holds now: the newest changes of values (the API port, how long refresh tokens
    last), each quoted from the memory that made it and marked with what it replaced. A value changed twice is
    given once, at its latest (8095, not the 8090 it replaced in turn)."""
    sessions = PORT_AND_QUEUE + [("s3", 2, [
        User("Port 8090 clashes with the metrics sidecar. Move the API to 8095."),
        Assistant("Moved it again: the API now listens on 8095.", [Edit("Makefile", "--port 8090", "--port 8095")]),
    ])]
    captured(tmp_path, project, sessions)
    brief = start(project)
    section = brief.split("Values changed lately", 1)[1].split("Index (", 1)[0]
    (port,) = [line for line in section.splitlines() if "8095" in line]
    assert "(replaced: " in port and "8090" in port.split("(replaced: ")[1], section
    (tokens,) = [line for line in section.splitlines() if "7 days" in line]
    assert "14 days" in tokens.split("(replaced: ")[1], section
    assert not [line for line in section.splitlines() if "now listens on 8090" in line], section
    for line in lines_with(brief, "8087"):  # the first port is history wherever the brief shows it
        assert marked_or_beside(line, "8095"), line
