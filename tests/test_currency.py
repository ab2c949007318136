"""What is current (issue 12): the value changes a session makes, in the words and code people write them."""
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brain.capture.alternatives import job_of, same_job
from brain.capture.tool_calls import ToolUse
from brain.capture.transcript import Turn
from brain.capture.currency import (
    Change,
    _asked_values,
    left_to_tools,
    session_changes,
    _stated_changes,
)
from brain.capture.tools.latest import SettingChange
from brain.capture.tools.commands import command_changes
from brain.capture.tools.edits import edit_changes, edited_number as _edited_number
from brain.capture.tools.options import argument_changes, config_changes, flag_changes
from brain.capture.tools.packages import manifest_changes
from brain.util.text import holds_value
from brain.util import values as values_mod
from brain.util.values import coarse_kinds, value_kinds


@pytest.mark.parametrize("old, new, pair", [
    ("PORT = 8087", "PORT = 8090", ("8087", "8090")),
    ("REFRESH_TTL = timedelta(days=14)", "REFRESH_TTL = timedelta(days=7)", ("14 days", "7 days")),
    ("const HoldTTL = 15 * time.Minute", "const HoldTTL = 10 * time.Minute", ("15 minutes", "10 minutes")),
    ("t := time.NewTicker(time.Minute)", "t := time.NewTicker(30 * time.Second)", ("1 minute", "30 seconds")),
    ("Duration::from_secs(30)", "Duration::from_secs(120)", ("30 seconds", "2 minutes")),
    ("interval(Duration::from_secs(3600))", 'Job::new_async("0 15 3 * * *", sweep)', ("1 hour", "0 15 3 * * *")),
    (".max_connections(10)", ".max_connections(20)", ("max_connections = 10", "max_connections = 20")),
    ('channel = "1.79"', 'channel = "1.82"', ("1.79", "1.82")),
    ("curl https://app-stg.example.io/health", "curl https://staging.example.dev/health",
     ("app-stg.example.io", "staging.example.dev")),
    ('c.AddFunc("30 2 * * *", s.Run)', 'c.AddFunc("0 */6 * * *", s.Run)', ("30 2 * * *", "0 */6 * * *")),
    ("?sslmode=disable&pool_max_conns=10", "?sslmode=disable&pool_max_conns=25",
     ("pool_max_conns = 10", "pool_max_conns = 25")),
    ("limit = 256 MB", "limit = 1 GB", ("256 MB", "1 GB")),
    ("FROM node:18-alpine", "FROM node:20-alpine", ("Node 18", "Node 20")),
    # the variant changes where the version does not: an image is a value of its own
    ("FROM node:20-alpine AS build", "FROM node:20-bookworm-slim AS build",
     ("node:20-alpine", "node:20-bookworm-slim")),
    ("FROM gcr.io/distroless/static-debian12", "FROM gcr.io/distroless/cc-debian12",
     ("gcr.io/distroless/static-debian12", "gcr.io/distroless/cc-debian12")),
    ("config.x.skip_cutoff = 72.hours", "config.x.skip_cutoff = 48.hours", ("72 hours", "48 hours")),  # Ruby
    ('  cron: "0 18 * * 4 Europe/Berlin"', '  cron: "0 22 * * 3 Europe/Berlin"', ("0 18 * * 4", "0 22 * * 3")),
])
def test_an_edit_replacing_a_value_is_a_change(old, new, pair):
    assert pair in edit_changes(old, new)


@pytest.mark.parametrize("old, new", [
    ("def handler(event):\n    return 1\n", "def handler(event, context):\n    return 1\n"),  # no value changed
    ("timeout = 30 * time.Second\nretries = 3", "timeout = 30 * time.Second\nretries = 3\n# done"),
    ("a = 1 * time.Minute\nb = 2 * time.Minute", "a = 3 * time.Minute\nb = 4 * time.Minute"),  # which went where?
])
def test_an_edit_that_changes_no_single_value_is_none(old, new):
    assert edit_changes(old, new) == []


@pytest.mark.parametrize("command, pairs", [
    ("ssh deploy@vps \"cd /srv/app && sed -i 's/connection_limit=5/connection_limit=15/' .env\"",
     [("connection_limit = 5", "connection_limit = 15")]),
    ("sed -i 's|FROM node:20-alpine|FROM node:20-bookworm-slim|' Dockerfile",
     [("node:20-alpine", "node:20-bookworm-slim")]),
    ("pip uninstall -y celery && pip install arq", [("celery", "arq")]),
    ("pnpm remove zod fastify-type-provider-zod && pnpm add @sinclair/typebox @fastify/type-provider-typebox",
     [("zod", "@sinclair/typebox"), ("fastify-type-provider-zod", "@fastify/type-provider-typebox")]),
    ("cargo remove rusoto_s3 && cargo add aws-sdk-s3@1.5", [("rusoto_s3", "aws-sdk-s3")]),
    ("pnpm add fastify@5.1.0 @fastify/rate-limit@10", []),  # added, nothing removed
    ("npm uninstall left-pad && npm install", []),  # a reinstall adds nothing new
    ("pip uninstall -y requests && pip install requests==2.32.3", []),  # the same package again
    ("sed -n '1,20p' app.py", []),  # prints, changes nothing
])
def test_a_command_replacing_a_value_or_a_package_is_a_change(command, pairs):
    assert command_changes(command) == pairs


@pytest.mark.parametrize("path, old, new, pairs", [
    ("Gemfile", 'gem "wicked_pdf"\ngem "wkhtmltopdf-binary"\n', 'gem "prawn", "~> 2.5"\ngem "prawn-table"\n',
     [("wicked_pdf", "prawn"), ("wkhtmltopdf-binary", "prawn-table")]),
    ("web/package.json", '  "version": "1.0.0",\n    "zod": "^3.23.8",\n', '  "version": "1.1.0",\n'
     '    "@sinclair/typebox": "^0.33.7",\n', [("zod", "@sinclair/typebox")]),
    ("requirements.txt", "celery==5.3.6\nredis>=5\n", "arq==0.26\nredis>=5\n", [("celery", "arq")]),
    ("pyproject.toml", '  "celery>=5",\n  "httpx",\n', '  "arq>=0.26",\n  "httpx",\n', [("celery", "arq")]),
    ("Cargo.toml", 'rusoto_s3 = "0.48"\ntokio = { version = "1" }\n', 'aws-sdk-s3 = "1.5"\ntokio = { version = "1" }\n',
     [("rusoto_s3", "aws-sdk-s3")]),
    ("Gemfile", 'gem "rails", "~> 7.1"', 'gem "rails", "~> 7.2"', []),  # upgraded in place
    ("Gemfile", 'gem "rails"', 'gem "rails"\ngem "pundit"', []),  # added, nothing gone
    ("app/models/order.rb", 'gem "a"', 'gem "b"', []),  # not a manifest
])
def test_an_edit_of_a_manifest_swapping_dependencies_is_a_change(path, old, new, pairs):
    assert manifest_changes(path, old, new) == pairs


@pytest.mark.parametrize("path, old, new, pairs", [
    ("src/main/resources/application-prod.yml", "    waitlist-enabled: false\n", "    waitlist-enabled: true\n",
     [("waitlist-enabled = false", "waitlist-enabled = true")]),  # a switch: only with its name
    ("application.yml", "  topic: appointment-reminders\n  group: reminder-sender\n",
     "  topic: pinecone.reminders.v1\n  group: pinecone.reminder-sender\n",
     [("topic = appointment-reminders", "topic = pinecone.reminders.v1"),
      ("appointment-reminders", "pinecone.reminders.v1"),
      ("group = reminder-sender", "group = pinecone.reminder-sender"),
      ("reminder-sender", "pinecone.reminder-sender")]),  # renamed names: with their setting and alone
    (".env", "HOST=staging.saltbox.io\n", "HOST=staging.saltboxmeals.com\n",
     [("HOST = staging.saltbox.io", "HOST = staging.saltboxmeals.com"),
      ("staging.saltbox.io", "staging.saltboxmeals.com")]),
    ("deploy.yml", "https://a.example.dev\n", "https://b.example.dev\n", []),  # a URL alone is no setting
    ("config.yml", "level: info\n", "level: debug\n", []),  # too plain to be looked for again
    ("values.yaml", "replicas: 4\n", "replicas: 8\n", []),  # numbers: edit_changes reads them
    ("app/settings.py", "DEBUG = False\n", "DEBUG = True\n", []),  # code, not a configuration file
    ("config.yml", "sentry:\n  enabled: true\n", "sentry:\n  enabled: false\n", []),  # a switch with a plain name
    ("application-prod.yml", "  waitlist-enabled: false\r\n", "  waitlist-enabled: true\r\n",
     [("waitlist-enabled = false", "waitlist-enabled = true")]),  # Windows line ends
    (".env.production", "HOST=a.example.io\n", "HOST=b.example.io\n",
     [("HOST = a.example.io", "HOST = b.example.io"), ("a.example.io", "b.example.io")]),
])
def test_an_edit_of_a_configuration_file_changing_a_switch_or_a_name_is_a_change(path, old, new, pairs):
    assert config_changes(path, old, new) == pairs


@pytest.mark.parametrize("old, new, pairs", [
    ("#SBATCH --partition=a100\n#SBATCH --nodes=2\n", "#SBATCH --partition=h100\n#SBATCH --nodes=1\n",
     [("--partition=a100", "--partition=h100")]),  # the number is edit_changes'
    ("node --max-old-space-size=2048 app.js", "node --max-old-space-size=4096 app.js", []),
    ("--log-level=info --log-level=debug", "--log-level=warn", []),  # two values before: which one changed?
    ("docker run --env=DATABASE_URL=postgres://db/app api", "docker run --env=REDIS_URL=redis://cache api", []),
    ("COPY --from=builder /app/dist ./dist", "COPY --from=deps /app/node_modules ./node_modules", []),  # another line
    ("kubectl logs deploy/api --namespace=prod", "kubectl rollout restart deploy/worker --namespace=staging", []),
])
def test_an_edit_giving_a_command_line_option_another_word_is_a_change(old, new, pairs):
    assert flag_changes(old, new) == pairs


def test_a_number_in_scientific_notation_is_a_setting_value():
    """ML configurations write learning rates so: `lr: 3e-4` into `lr: 1e-4` is a change, told or edited."""
    assert edit_changes("lr: 3e-4\nweight_decay: 0.01\n", "lr: 1e-4\nweight_decay: 0.01\n") == [
        ("lr = 3e-4", "lr = 1e-4")]
    text = "drop the learning rate from 3e-4 to 1e-4 and clip gradients at 1.0, then resubmit"
    assert ("3e-4", "1e-4") in _stated_changes(text, "", text)
    # "drop" lowers a value only when someone does it to an object, from one number to another
    for measured in ("macro-F1 dropped from 0.81 to 0.21 after the tokenizer change",
                     "Accuracy dropped sharply from 0.91 to 0.84 after the tokenizer change.",
                     "The new index dropped the p99 from 900ms to 120ms.",
                     "Let's drop the unique index from users to speed up the import."):
        assert _stated_changes(measured, "", measured) == [], measured
    assert ("Size 32", "Size 16") in _stated_changes("I dropped the batch size from 32 to 16.", "", "")


def test_a_setting_followed_by_another_line_of_the_edit_is_read():
    """The unit a number may have is on its line: `port: 8080` then `host: x` is a port, not 8080 hosts."""
    assert ("port = 8080", "port = 9090") in edit_changes("port: 8080\nhost: x\n", "port: 9090\nhost: x\n")


@pytest.mark.parametrize("old, new, pairs", [
    ("{{ config(materialized='view') }}\n", "{{ config(materialized='table', cluster_by=['stage_id']) }}\n",
     [("materialized = view", "materialized = table")]),
    ("status = models.CharField(default=\"draft\")", "status = models.CharField(default=\"published\")",
     [("default = draft", "default = published")]),
    ("f(color='red'); g(color='blue')", "f(color='green')", []),  # which of the two changed: it does not say
    ("x = 'a'", "x = 'b'", []),  # a name too short to be looked for
    ("timeout='30'", "timeout='45'", []),  # numbers: edit_changes reads them
    ("log(level='info')", "log(level='info', fmt='json')", []),  # nothing given another value
    ("where status = 'active'", "where status = 'trialing'", []),  # a SQL predicate is no argument
    ('<Button variant="primary" aria-hidden="true">', '<Button variant="secondary" aria-hidden="false">', []),
    ("{{ config(materialized='view') }}\n", "{{ config(\n    materialized='incremental',\n    unique_key='id'\n",
     [("materialized = view", "materialized = incremental")]),  # one argument a line
])
def test_an_edit_giving_a_keyword_argument_another_quoted_word_is_a_change(old, new, pairs):
    assert argument_changes(old, new) == pairs


def test_a_change_planned_as_open_work_is_no_change():
    """"Still open: ... upgrade Cloud SQL from Postgres 15 to Postgres 16" says what is left to do; the brief had
    listed it among the latest changes, replacing Postgres 15. A change the same line makes is still one."""
    reply = Turn(uuid="a1", offset=1, role="assistant", timestamp="2026-01-05T10:00:20Z", session_id="s1",
                 text="I moved the report from 02:00 to 04:30. Still open: evaluate PgBouncer; upgrade Cloud SQL "
                      "from Postgres 15 to Postgres 16.", tool_uses=())
    pairs = {(c.old, c.new) for c in session_changes([reply])}
    assert ("02:00", "04:30") in pairs and not any("Postgres" in new for _, new in pairs), pairs



def test_a_switch_from_one_tool_to_another_is_read_one_way():
    """"Switched the worker from Celery to arq" had also been read as arq replaced by Celery (the switch pattern
    took the first tool after "switched" as the new one), which would mark memories about arq as replaced."""
    text = "Switched the worker from Celery to arq so pending jobs drain first."
    assert _stated_changes(text, "", text) == [("Celery", "arq")]


@pytest.mark.parametrize("text, pair", [
    ("Replaced Celery with arq for the follow-up emails.", ("Celery", "arq")),  # the label is not at the start
    ("Switched from Postgres 15 to Postgres 16; next steps: the read replica.", ("Postgres 15", "Postgres 16")),
    ("Replaced Celery with arq so pending jobs drain first.", ("Celery", "arq")),
])
def test_a_change_made_beside_words_about_open_work_is_still_one(text, pair):
    reply = Turn(uuid="a1", offset=1, role="assistant", timestamp="2026-01-05T10:00:20Z", session_id="s1", text=text,
                 tool_uses=())
    assert pair in {(c.old, c.new) for c in session_changes([reply])}


def test_a_setting_an_edit_changed_is_also_the_old_number_in_the_words_the_reply_says_it_with():
    """`limit: 5` edited into `limit: 10` while the reply says "10 login attempts per minute": older turns say "5
    login attempts per minute" and "5 attempts per minute", which `limit = 5` alone would not find."""
    edit = ToolUse(id=None, name="Edit", summary="Edit: rack_attack.rb", file_path="config/rack_attack.rb", ok=True,
                   edit=('throttle("logins/ip", limit: 5, period: 1.minute)',
                         'throttle("logins/ip", limit: 10, period: 1.minute)'))
    reply = Turn(uuid="a1", offset=1, role="assistant", timestamp="2026-01-05T10:00:20Z", session_id="s1",
                 text="The login throttle is now limit: 10 per 1.minute, so 10 login attempts per minute per IP.",
                 tool_uses=(edit,))
    pairs = {(c.old, c.new) for c in session_changes([reply])}
    assert {("limit = 5", "limit = 10"), ("5 login attempts", "10 login attempts"), ("5 attempts", "10 attempts")} \
        <= pairs, pairs
    assert not any(old.startswith("5 per") for old, _ in pairs)  # "10 per 1.minute": no words to go by


@pytest.mark.parametrize("line, old, new, pair", [
    ("They need old builds for hotfixes. Make it 45 days.", "from_secs(14 * 24 * 3600)", "from_secs(45 * 24 * 3600)",
     ("14 days", "45 days")),
    ("Make it 90 minutes", "CACHE_TTL = 20 * 60", "CACHE_TTL = 90 * 60", ("20 minutes", "90 minutes")),
    ("Make it 2 hours", "TIMEOUT = 30 * 60", "TIMEOUT = 2 * 60 * 60", None),  # a unit changed too: not one number
    ("Make it 2 hours", "a = 30\nb = 40", "a = 2\nb = 50", None),  # which went where?
    ("Make it 45 days", "retries = 3", "retries = 5", None),  # not the asked number
    ("Please make sure the tests pass", "x = 1", "x = 2", None),  # asks for no value
])
def test_an_edit_carrying_out_an_asked_value_says_the_old_one(line, old, new, pair):
    assert _edited_number(old, new, _asked_values(line)) == ([pair] if pair else [])


@pytest.mark.parametrize("message, pair", [
    ("Replace Celery with arq.", ("Celery", "arq")),
    ("Use vitest instead of jest.", ("jest", "vitest")),
    ("Changed the tide schedule from `30 2 * * *` to `0 */6 * * *`.", ("30 2 * * *", "0 */6 * * *")),
    ("golang-migrate left the database dirty again. I'm done with it. Let's switch to goose.",
     ("golang-migrate", "goose")),
    ("One more: let's drop zap. log/slog is in the standard library.", ("zap", "log/slog")),
    ("We keep hitting limits with the old worker; move the queue over to dramatiq. Celery is too heavy.",
     ("celery", "dramatiq")),
    ("15 minutes is too long on busy weekends. Cut the hold to 10 minutes.", ("15 minutes", "10 minutes")),
    ("Raised the upload limit from 256 MB to 1 GB.", ("256 MB", "1 GB")),
    ("S3 calls now get up to 5 attempts instead of 3.", ("3 attempts", "5 attempts")),
    ("The pool is now max_connections = 20, up from 10.", ("max_connections = 10", "max_connections = 20")),
    ("Reset links should be valid 15 minutes, not an hour.", ("1 hour", "15 minutes")),
    ("Keep the logs 30 days, not 7 days.", ("7 days", "30 days")),
    ("Upgraded to fastify 5.1.0 together with the plugins.", (None, "Fastify 5.1.0")),
    # a bare old number: specific enough on its own, or given the new one's unit, or the word naming what changed
    ("Moved the API from 8087 to 8090.", ("8087", "8090")),
    ("Changed the refresh token lifetime from 14 to 7 days.", ("14 days", "7 days")),
    ("Upgraded Node from 18 to 20 on the runners.", ("Node 18", "Node 20")),
    ("Switched the worker from 2 to 4 processes.", ("2 processes", "4 processes")),
    ("Changed the delay from 1 to 2 seconds.", ("1 second", "2 seconds")),
    ("Can you move the API from 8087 to 8090?", ("8087", "8090")),  # a request, carried out
])
def test_a_sentence_stating_a_change_is_a_change(message, pair):
    line = message.splitlines()[0]
    assert pair in _stated_changes(line, "", message)


@pytest.mark.parametrize("message", [
    "Let's go with Celery and Redis for background jobs.",  # a first choice replaces nothing
    "Either Postmark or SES would do; what do you think?",
    "I got the echo server to render the requests page.",  # common words, not tools
    "Set up the billing service on port 5433.",
    "The team went from 10 to 20 engineers this year.",  # numbers naming nothing an older memory states
    "Moved it from 3 to 4.",
    "Bumped them from 3 to 4.",
    "I moved the code around from 1200 to 1350.",
    # a measure or a range, not a setting changed
    "Tests went from 1500 to 1620 passing.",
    "The ports go from 8000 to 8100.",
    "If we go from 3 to 5 workers, memory doubles.",
    # asked about or ruled out, not done
    "Should we switch from Celery to arq?",
    "I'd rather not bump the limit from 1000 to 5000 yet.",
    "Don't change the timeout from 30 to 60 seconds.",
    # four words before "from" only for a number ("the refresh token lifetime from 14 to 7 days")
    "We changed a lot of things from staging to prod.",
])
def test_a_sentence_choosing_for_the_first_time_changes_nothing(message):
    assert [p for p in _stated_changes(message, "", message) if p[0] is not None] == []


def test_a_subject_given_a_new_value_without_the_old_one_is_resolved_later():
    (change,) = _stated_changes("Cut the hold to 10 minutes.", "", "Cut the hold to 10 minutes.")
    assert change == (None, "10 minutes", "hold")


def test_alternatives_know_a_tools_job_and_two_names_of_one_tool():
    assert job_of("goose") == job_of("golang-migrate") == "migrations"
    assert job_of("requests") is None and job_of("echo") is None
    assert same_job("postgresql", "we ran postgres before") == []  # one tool, two names
    assert same_job("arq", "celery's workers leak; rq is simpler") == ["celery", "rq"]
    # S3 clients do one job: "boto is ancient ... switch to aioboto3" replaces boto
    assert _stated_changes("Switch us to aioboto3.", "", "boto is ancient. Switch us to aioboto3.") == [
        ("boto", "aioboto3")]


def test_code_durations_cron_specs_and_open_work_are_values():
    assert value_kinds("HoldTTL = 10 * time.Minute") == [("unit:minute", "10 minutes")]
    assert ("cron", "0 */6 * * *") in value_kinds("the spec is `0 */6 * * *` now")
    assert "time" in coarse_kinds('c.AddFunc("30 2 * * *", s.Run)').split()
    assert "todo" in coarse_kinds("Stopping here. Next time: wire the Postmark sender.").split()


@pytest.mark.parametrize("text, value, held", [
    ("the reaper deletes expired holds every minute", "1 minute", True),
    ("it polls once a minute", "1 minute", True),
    ("it took a minute to build", "1 minute", False),
    ("holds last 15 minutes", "15 minutes", True),
    ("holds last 115 minutes", "15 minutes", False),
    ("an upload is retried up to 3 times", "3 attempts", True),
    ("with pool_max_conns=10 in the DSN", "pool_max_conns = 10", True),
    ("PgPoolOptions::new().max_connections(10)", "max_connections = 10", True),
    ("max_connections = 100", "max_connections = 10", False),
    ("I'll port the rusoto_s3 client over", "rusoto", True),  # a tool's name before _ or - names its part
    ("celery-beat schedules it", "celery", True),
    ("the api-staging.x.dev host", "staging.x.dev", False),  # glued before: another host
    ("port 8087_b", "8087", False),  # a number glued to more is another value
    ("config.x.skip_cutoff = 72.hours", "72 hours", True),  # Ruby writes a duration so
    ("expires_in: 1.hour", "1 hour", True),
    ("retry after 172.hours", "72 hours", False),
    ("  maxAge: 72h", "72 hours", True),  # Go, Kubernetes and Prometheus write a duration so
    ("a 172h window", "72 hours", False),
    ("scrape every 15s", "15 seconds", True),
    ("holdTTL = 30 * time.Minute", "30 minutes", True),  # as Go and Python write it
    ("holdTTL = 130 * time.Minute", "30 minutes", False),
    ("timedelta(minutes=15)", "15 minutes", True),
    ("    ttl: PT30M", "30 minutes", True),  # ISO 8601, as Java's Duration and Spring write it
    ("    ttl: PT300M", "30 minutes", False),
    ("cached for half an hour", "30 minutes", True),
    ("az containerapp update -n api --max-replicas 10", "10 replicas", True),  # a count as a command's option
    ("--workers=4", "4 workers", True),
    ("--max-replicas 100", "10 replicas", False),
    ("kubectl autoscale deploy api --min-replicas 10 --max-replicas 40", "10 replicas", False),  # a floor
    ("python train.py --warmup-epochs 10 --max-epochs 50", "10 epochs", False),  # another count of epochs
    # a setting told in prose: near its name, in its sentence, no other number between them
    ("The pool is now 20 (spring.datasource.hikari.maximum-pool-size). Same run", "maximum-pool-size = 20", True),
    ("maximum-pool-size is now 20, fine", "maximum-pool-size = 20", True),
    ("maximum-pool-size is now 12 and 20 tasks run", "maximum-pool-size = 20", False),
    ("The pool is now 20. Later we set maximum-pool-size by hand", "maximum-pool-size = 20", False),
    ("maximum-pool-size is 200", "maximum-pool-size = 20", False),
    ("Raise maxReplicas from 8 to 12", "maxReplicas = 8", False),  # moved away from, not stated
    ("Raise maxReplicas from 8 to 12", "maxReplicas = 12", False),  # another number in the sentence: not sure
    ("switched waitlist-enabled from false to true", "waitlist-enabled = false", False),
])
def test_a_value_is_found_as_people_write_it(text, value, held):
    assert holds_value(text, value) is held


VALUE_PIECES = ["port 8090", "https://api.example.com/v1", "api.Example.IO", "deploy.sh", "10 * time.Minute",
                "time.Second", "Duration::from_secs(3600)", "timedelta(minutes=15)", "04:30 UTC", "'0 */6 * * *'",
                "Node 18", "v2.1", "12345", "TODO", "next steps", "Follow-up", "still to do", "PENDING", "wait 3 days",
                "٣ days", "pendıng", "PENDİNG", "the", ".", " ", "\n", "=", "K"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(VALUE_PIECES) | st.text(max_size=12), max_size=14).map(" ".join))
def test_the_quick_tests_before_each_pattern_never_change_what_is_found(text):
    """value_kinds and coarse_kinds skip a pattern when a literal scan shows it cannot match (reindex runs them on
    every memory); with those tests made to always pass they find exactly the same."""
    found = value_kinds(text), coarse_kinds(text)
    with pytest.MonkeyPatch.context() as patched:
        always = re.compile("")
        patched.setattr(values_mod, "_HOST_HINT", always)
        patched.setattr(values_mod, "_DIGIT", always)
        patched.setattr(values_mod, "_TODO_HINTS", ("",))
        assert (value_kinds(text), coarse_kinds(text)) == found


def test_an_edit_changing_a_short_duration_a_version_or_one_quoted_name_is_a_change():
    assert edit_changes("  maxAge: 72h\n", "  maxAge: 168h\n") == [("72 hours", "168 hours")]
    assert edit_changes("version: 0.3.0\n", "version: 0.3.1\n") == [("version = 0.3.0", "version = 0.3.1")]
    assert edit_changes('js.Publish(ctx, "billing.invoice.paid", data)',
                        'js.Publish(ctx, "ledger.v2.invoice.paid", data)') == [("billing.invoice.paid",
                                                                                 "ledger.v2.invoice.paid")]
    assert edit_changes('bucket = "acme-raw-landing"', 'bucket = "acme-prod-landing"') == [
        ("acme-raw-landing", "acme-prod-landing")]
    # not names to follow: words, short ids, or an edit that changed more than the name
    assert edit_changes('level = "info"', 'level = "debug"') == []
    assert edit_changes('get("user_1")', 'get("user_2")') == []
    assert ("a.b", "a.c") not in edit_changes('x = "a.b"; retries = 1', 'x = "a.c"; retries = 2')
    assert value_kinds("5m users")[0][0] == "unit:minute" and value_kinds("v1.2h and 3.5h") == []
    # Spring's ISO durations and kebab-case settings; a rate is not a duration
    assert edit_changes("    ttl: PT30M\n", "    ttl: PT5M\n") == [("30 minutes", "5 minutes")]
    assert edit_changes("  baseline-version: 1\n", "  baseline-version: 4\n") == [("baseline-version = 1",
                                                                                   "baseline-version = 4")]
    assert edit_changes("  requests-per-minute: 100\n", "  requests-per-minute: 20\n") == [
        ("requests-per-minute = 100", "requests-per-minute = 20")]


def test_the_old_value_of_a_subject_is_the_one_beside_it():
    """"upgrade airflow to 2.9": an older memory's "Airflow 2.8.1 with dbt 1.7.4" gives 2.8.1, not dbt's version
    (which had superseded true dbt memories)."""
    from brain.capture.currency import _values_beside

    text = "Local Airflow 2.8.1 with dbt 1.7.4 and the postgres provider 5.10.0."
    assert _values_beside(text, "airflow", "2.9") == ["2.8.1"]
    assert _values_beside("We run Airflow 2.8.1. Later: airflow 2.8.3 in staging.", "airflow", "2.9") == \
        ["2.8.1", "2.8.3"]


@pytest.mark.parametrize("guessed, known, kept", [
    ("5 replicas", "4", False),  # another key's value (the api's), not the workers'
    ("4 replicas", "4", True),
    ("Go 1.22", "1.22.1", True),  # the same value, said less precisely
    ("Node 18", "18.19.0", True),
])
def test_an_old_value_guessed_for_words_gives_way_to_the_one_an_edit_of_the_exchange_knows(guessed, known, kept):
    asked = Turn("u1", 0, "user", "bump prod workers to 6 replicas", "2026-11-01T10:00:00Z", "s")
    edited = Turn("a1", 1, "assistant", "Done.", "2026-11-01T10:00:05Z", "s")
    said = [Change(None, "6 replicas", asked.timestamp, asked)]
    resolved = [Change(guessed, "6 replicas", asked.timestamp, asked)]
    setting = [SettingChange(edited, "values.yaml", "worker.replicaCount", known, "6", None, None)]
    assert left_to_tools(resolved, said, setting, [asked, edited]) == (resolved if kept else [])
    explicit = [Change(guessed, "6 replicas", asked.timestamp, asked)]  # said with its old value: kept
    assert left_to_tools(explicit, explicit, setting, [asked, edited]) == explicit
