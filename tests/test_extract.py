"""Memory extraction: each auto-persist trigger with positive and negative examples, and the session record."""
from pathlib import Path

import pytest
from conftest import SHARED_TRANSCRIPTS

from brain.capture.extract import Candidate, extract_memories
from brain.capture.rules.tool_events import commits
from brain.capture.session_record import session_record
from brain.capture.tool_calls import Todo, ToolUse
from brain.capture.transcript import Turn, parse_transcript

SHARED = SHARED_TRANSCRIPTS
CODING = Path(__file__).resolve().parent / "fixtures" / "transcripts" / "coding_session.jsonl"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="shared transcripts not available")

KINDS = {"request", "correction", "decision", "preference", "milestone", "learning"}
CHUNK_TYPES = {"fact", "preference", "pattern", "note", "decision"}


def said(text, role="user", n=0, **flags):
    return Turn(uuid=f"{role}-{n}", offset=n, role=role, text=text, timestamp=f"2026-01-05T10:00:{n:02d}Z",
                session_id="s1", **flags)


def called(*uses, n=0, text=""):
    return Turn(uuid=f"tools-{n}", offset=n, role="assistant", text=text, timestamp=f"2026-01-05T10:01:{n:02d}Z",
                session_id="s1", tool_uses=tuple(uses))


def bash(command, ok=True, result=""):
    return ToolUse(id=None, name="Bash", summary=f"Bash: {command}", command=command, ok=ok, output=result)


def kinds_of(text, role="user", before=None):
    turns = ([said(before, "assistant", 0)] if before else []) + [said(text, role, 1)]
    return [c.kind for c in extract_memories(turns)]


def only(text, kind, before=None):
    found = [c for c in extract_memories(([said(before, "assistant", 0)] if before else []) + [said(text, n=1)])
             if c.kind == kind]
    assert len(found) == 1, found
    return found[0]


# --- explicit requests -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, must_contain", [
    ("Remember that the staging database listens on port 5433.", "staging database listens on port 5433"),
    ("remember: deploys happen on Tuesdays only", "Deploys happen on Tuesdays only"),
    ("Please remember this: the API key lives in the vault", "API key lives in the vault"),
    ("Oh, and remember that Dana owns the billing service.", "Dana owns the billing service"),
    ("Can you remember that our CI runs on self-hosted runners?", "CI runs on self-hosted runners"),
    ("I want you to remember that the docs site is built with mkdocs.", "docs site is built with mkdocs"),
    ("Note that the cache is flushed every night at 2am.", "cache is flushed every night"),
    ("Keep in mind that the legacy endpoint still serves mobile clients.", "legacy endpoint still serves mobile"),
    ("From now on, run the linter before every commit.", "run the linter before every commit"),
    ("Always use absolute imports in this repo.", "Always use absolute imports"),
    ("Never push directly to main.", "Never push directly to main"),
    ("Save this to memory: the release branch is cut on Fridays.", "release branch is cut on Fridays"),
    ("The release manager is Priya. Please save this to memory.", "The release manager is Priya"),
])
def test_requests_are_found(text, must_contain):
    candidate = only(text, "request")
    assert must_contain in candidate.content
    assert candidate.confidence == 0.95 and candidate.category == "present"
    assert candidate.source_uuid == "user-1" and candidate.timestamp == "2026-01-05T10:00:01Z"


def test_request_strips_trigger_phrase():
    assert only("remember that the staging database listens on port 5433", "request").content == \
        "The staging database listens on port 5433"


def test_instruction_requests_are_preferences():
    candidate = only("From now on use pnpm instead of npm.", "request")
    assert candidate.chunk_type == "preference" and "instruction" in candidate.tags


def test_save_this_without_content_keeps_the_assistant_answer():
    candidate = only("Save this to memory.", "request", before="The flaky test was caused by a shared temp dir.")
    assert "shared temp dir" in candidate.content


@pytest.mark.parametrize("text", [
    "Can you remember how we configured the proxy?",
    "Do you remember what port we used?",
    "I remember when this used to be fast.",
    "Remember to run the migrations.",
    "Never mind, it works now.",
    "Always good to hear!",
    "It never worked on Windows anyway.",
    "We store the session tokens in memory for speed.",
    "Should I save this to memory?",
    "What should we do from now on?",
])
def test_ordinary_sentences_are_not_requests(text):
    assert "request" not in kinds_of(text)


def test_assistant_turns_are_not_mined_for_requests():
    assert kinds_of("Remember that the port is 5433.", role="assistant") == []


# --- corrections -------------------------------------------------------------------------------------------------

STAGING = "The staging database listens on port 5432 in eu-central."


@pytest.mark.parametrize("text, before", [
    ("Actually it's port 5433, not 5432.", STAGING),
    ("No, it's the eu-west bucket.", "I uploaded the build to the eu-central bucket."),
    ("That's wrong, the timeout is 30 seconds.", "The request timeout is 10 seconds."),
    ("The queue is not Redis but RabbitMQ.", "The worker reads jobs from the Redis queue."),
    ("I meant the billing service, not the auth service.", "I restarted the auth service."),
    ("Correction: the meeting moved to Thursday.", "The release meeting is on Wednesday."),
    ("You're wrong about the default branch, it is trunk.", "The default branch is main."),
])
def test_corrections_are_found(text, before):
    candidate = only(text, "correction", before=before)
    assert candidate.confidence == 0.95 and "correction" in candidate.tags
    assert candidate.content.startswith("Correction: ")
    assert f'(correcting: "{before}"' in candidate.content
    assert len(candidate.content) <= 600


@pytest.mark.parametrize("text, before, kept", [
    # it stands alone and says what it corrects: kept, without quoting a statement it does not answer
    ("The queue is not Redis but RabbitMQ.", STAGING, "Correction: The queue is not Redis but RabbitMQ."),
    ("No, the webhook secret must not live in settings.py.", "Added a Dockerfile.",
     "Correction: No, the webhook secret must not live in settings.py."),
    # "it's ..." with nothing it answers, and "not now, but ...": nothing a later session could read
    ("No, it's the eu-west bucket.", STAGING, None),
    ("Not this week, but it's next on the list.", "Should I start on the exporter?", None),
])
def test_a_correction_is_kept_only_when_it_stands_alone(text, before, kept):
    found = [c.content for c in extract_memories([said(before, "assistant", 0), said(text, n=1)])
             if c.kind == "correction"]
    assert found == ([kept] if kept else []), found


def test_correction_quotes_the_sentence_it_corrects():
    before = "I added the retry loop. The bucket is media-staging. Tests pass."
    candidate = only("No, the bucket is media-staging-eu.", "correction", before=before)
    assert 'correcting: "The bucket is media-staging."' in candidate.content


def test_short_correction_takes_the_next_sentence_for_context():
    candidate = only("Actually it's 5433. The 5432 one is production.", "correction",
                     before="I pointed the staging app at port 5432.")
    assert "The 5432 one is production." in candidate.content


@pytest.mark.parametrize("text, before", [
    ("No, thanks.", "Shall I also add logging?"),
    ("No, I haven't tried it yet.", "Have you tried the new build?"),
    ("Actually, can you also add a test?", "Done."),
    ("That's great, thanks!", "All tests pass now."),
    ("It's not only faster but also smaller.", "Here is the new build."),
    ("I'm not sure but it might be the cache.", "What do you think?"),
    ("No, it's fine as it is.", "Should I rename it?"),
    ("You're right, let's keep it.", "Maybe keep the old name."),
])
def test_non_corrections(text, before):
    assert "correction" not in kinds_of(text, before=before)


# --- decisions and preferences -----------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Let's go with SQLite for the first version.",
    "We decided to drop Python 3.8 support.",
    "We'll use GitHub Actions for the release pipeline.",
    "Decision: the CLI stays in click.",
    "I chose the MIT license for this project.",
])
def test_user_decisions(text):
    candidate = only(text, "decision")
    assert candidate.chunk_type == "decision" and candidate.content.startswith("Decision: ")


def test_assistant_decisions_only_when_agreed():
    assert kinds_of("As we agreed, the importer will skip files over 10 MB.", role="assistant") == ["decision"]
    assert kinds_of("I'll use a dictionary here for faster lookups.", role="assistant") == []
    agreed = extract_memories([said("As agreed, we keep the v1 API.", "assistant")])[0]
    assert agreed.content.startswith("Decision (agreed): ") and agreed.confidence < 0.85


def edited(path, old, new, ok=True):
    return ToolUse(id=None, name="Edit", summary=f"Edit: {path}", file_path=path, ok=ok, edit=(old, new))


@pytest.mark.parametrize("person, reply, uses, decided", [
    # the person named the value the edit replaced; the build after the edit failed for another reason
    ("Also the API can't sit on 3000 on that box, the storefront is already on it.",
     "I moved the API to port 4100: the default in src/config.ts is now 4100.",
     [edited("src/config.ts", "PORT ?? 3000", "PORT ?? 4100"), bash("docker build -t api .", ok=False)],
     "Moved the API to port 4100."),
    # the person named a time of day, the edit set a schedule running then
    ("Maria wants the digest when she starts work, not at 2am. Weekdays 6:30, Berlin time.",
     "Changed the digest scheduler to pattern '30 6 * * 1-5' with tz 'Europe/Berlin'.",
     [edited("src/schedules.ts", "pattern: '0 2 * * *'", "pattern: '30 6 * * 1-5'")],
     "Changed the digest scheduler to pattern '30 6 * * 1-5' with tz 'Europe/Berlin'."),
    # one turn, two changes: one decision naming both
    ("Hostname's wrong: it's api.staging.example.com. Also the API can't sit on 3000 on that box.",
     "Fixed the site address to api.staging.example.com. And I moved the API to port 4100.",
     [edited("Caddyfile", "staging.api.example.com {\n  reverse_proxy api:3000", "api.staging.example.com {\n"
             "  reverse_proxy api:4100")],
     "Fixed the site address to api.staging.example.com; moved the API to port 4100."),
    # the person named the number a setting was set to, the reply names the setting; said once for two changes
    ("Workers of 6 per node then. And the replica count goes to 4, nights are too slow on three.",
     "worker-threads is now 6 and the service's replicas is 4. Both are in the working tree.",
     [edited("config/app.yml", "  worker-threads: 16\n", "  worker-threads: 6\n"),
      edited("deploy/values.yaml", "replicas: 3\n", "replicas: 4\n")],
     "Worker-threads is now 6 and the service's replicas is 4."),
])
def test_a_change_carried_out_on_what_the_person_said_is_a_decision(person, reply, uses, decided):
    found = [c.content for c in extract_memories([said(person, n=0), called(*uses, n=1, text=reply)])
             if c.kind == "decision"]
    assert found == [f"Decision: {decided}"], found


def test_a_vague_request_to_drop_a_value_is_recorded_in_the_words_of_the_reply():
    uses = [edited("config/sidekiq.yml", "concurrency: 12", "concurrency: 10")]
    found = [c.content for c in extract_memories([
        said("Drop it to 10 and add jemalloc.", n=0),
        called(*uses, n=1, text="Sidekiq concurrency is now 10 (config/sidekiq.yml has concurrency: 10).")])
        if c.kind == "decision"]
    assert found == ["Decision: Sidekiq concurrency is now 10 (config/sidekiq.yml has concurrency: 10)."], found


@pytest.mark.parametrize("person, reply, uses, decided", [
    # no value in the request: the reply's sentence that gives it
    ("Bump the version for the resubmission.", "The version is now 2.4.1 in app.json; build number 57.",
     [edited("app.json", '"version": "2.4.0"', '"version": "2.4.1"')],
     "Decision: The version is now 2.4.1 in app.json; build number 57."),
    # nothing in the reply gives it: the value the edit set, beside the request
    ("Bump the version for the resubmission.", "Done.", [edited("app.json", "version: 2.4.0", "version: 2.4.1")],
     "Decision: Bump the version for the resubmission: version = 2.4.1 (was 2.4.0)."),
    # the request names its subject and value: kept as said
    ("Move the API to port 8090, the load balancer expects that.", "Moved.",
     [edited("config.py", "PORT = 8087", "PORT = 8090")],
     "Decision: Move the API to port 8090, the load balancer expects that."),
])
def test_a_decision_states_its_subject_and_value(person, reply, uses, decided):
    found = [c.content for c in extract_memories([said(person, n=0), called(*uses, n=1, text=reply)])
             if c.kind == "decision"]
    assert found == [decided], found


def test_a_change_request_whose_value_is_said_nowhere_is_no_decision():
    """"Make the local stack live somewhere else" carried out by an edit that changed no value, and a reply that
    names none: a later session could not tell what was decided."""
    uses = [edited("docker-compose.yml", "services:\n  db:\n", "services:\n  db:\n    profiles: [local]\n")]
    found = extract_memories([said("Make the local stack live somewhere else.", n=0),
                              called(*uses, n=1, text="Done, it lives elsewhere now.")])
    assert [c for c in found if c.kind == "decision"] == []


def test_a_decision_from_a_piece_of_a_sentence_takes_the_whole_sentence():
    """The reply's clause naming the value can be a piece ("8." after "retry:"): the decision is then the whole
    sentence, which says what was set."""
    uses = [edited("app/jobs/stripe_event_job.rb", "sidekiq_options retry: 3", "sidekiq_options retry: 8")]
    found = extract_memories([said("Retries of 8 then.", n=0),
                              called(*uses, n=1, text="StripeEventJob now has sidekiq_options retry: 8.")])
    assert [c.content for c in found if c.kind == "decision"] == [
        "Decision: StripeEventJob now has sidekiq_options retry: 8."]


def test_a_change_whose_edit_failed_is_no_decision():
    uses = [edited("src/config.ts", "PORT ?? 3000", "PORT ?? 4100", ok=False)]
    found = extract_memories([said("The API can't sit on 3000 on that box.", n=0),
                              called(*uses, n=1, text="I moved the API to port 4100.")])
    assert [c for c in found if c.kind == "decision"] == []


@pytest.mark.parametrize("text", ["Should we go with Postgres?", "Let's go.", "We decided?"])
def test_non_decisions(text):
    assert "decision" not in kinds_of(text)


@pytest.mark.parametrize("text, content", [
    ("I prefer tabs over spaces in Makefiles.", "User prefers tabs over spaces in Makefiles."),
    ("I don't like long functions.", "User doesn't like long functions."),
    ("I'd rather have small commits than one big one.", "User would rather have small commits than one big one."),
    ("Please don't add emojis to commit messages.", "Please don't add emojis to commit messages."),
    ("Honestly I prefer pytest to unittest for everything.", "Honestly I prefer pytest to unittest for everything."),
    ("I like to keep my tests next to the code.", "User: I like to keep my tests next to the code."),
])
def test_preferences(text, content):
    candidate = only(text, "preference")
    assert candidate.content == content and candidate.chunk_type == "preference"


@pytest.mark.parametrize("text", ["I like it.", "I prefer that.", "I love that you fixed it so fast.",
                                  "Do you prefer tabs?", "I'd like you to fix the login bug."])
def test_non_preferences(text):
    assert "preference" not in kinds_of(text)


def test_speaker_labels_are_kept_for_benchmark_style_turns():
    found = extract_memories([said("Ana: I prefer trains over planes for short trips.")])
    assert [c.content for c in found] == ["Ana prefers trains over planes for short trips."]


def test_sidechain_and_compact_summaries_are_not_mined_for_words():
    turns = [said("Remember that the port is 5433.", is_sidechain=True),
             said("Summary: the user said remember that the port is 5433. We decided on SQLite.", n=1,
                  is_compact_summary=True),
             said("Actually it's 5434.", n=2, is_sidechain=True)]
    assert extract_memories(turns) == []


def test_quoted_and_code_lines_are_not_mined():
    text = "Look at this:\n> remember that quoted text is not mine\n```\n# always use eval here\n```\nThoughts?"
    assert extract_memories([said(text)]) == []


# --- milestones --------------------------------------------------------------------------------------------------

@needs_shared
def test_todowrite_examples_give_no_memory_and_the_session_record_lists_what_was_done():
    """A todo done naming no code is no memory of its own (judged noise): the session record lists it."""
    turns = parse_transcript(SHARED / "todowrite_examples.jsonl").turns
    assert extract_memories(turns) == []
    assert "Done: Design the feature architecture; Implement core functionality." in session_record(turns).to_text()


@pytest.mark.parametrize("command, subject", [
    ('git commit -m "Fix the login redirect"', "Fix the login redirect"),
    ("git commit -m 'Add retries'", "Add retries"),
    ('git add -A && git commit -am "Bump version"', "Bump version"),
    ('git -C repo commit --message="Tidy imports"', "Tidy imports"),
    ("git commit -m \"$(cat <<'EOF'\nAdd the exporter\n\nCo-Authored-By: Someone\nEOF\n)\"", "Add the exporter"),
    ('git commit -m "Say \\"hi\\" politely"', 'Say "hi" politely'),
    ("git status", None), ("git log --grep commit", None), ("git commit", None), ("echo commit -m x", None),
])
def test_commit_message(command, subject):
    assert [message for message, _ in commits(command)][:1] == ([subject] if subject else [])


def test_commit_milestone_needs_a_successful_commit():
    ok = extract_memories([called(bash('git commit -m "Ship it"', result="[main abc123] Ship it"))])
    assert [(c.kind, c.content, c.confidence) for c in ok] == [("milestone", "Committed: Ship it", 0.9)]
    assert extract_memories([called(bash('git commit -m "Ship it"', ok=False, result="hook failed"))]) == []
    assert extract_memories([called(bash('git commit -m "Ship it"', result="nothing to commit"))]) == []
    unseen = extract_memories([called(bash('git commit -m "Ship it"', ok=None))])
    assert unseen[0].confidence < 0.9


def test_test_runs_are_the_session_records_not_typed_memories():
    """A test run says how the session went, not something a later session needs as a memory of its own (issue
    34): each test command's last passing run is in the session record."""
    turns = [said("Make the tests pass.", n=0),
             called(bash("pytest -q", result="3 failed, 9 passed in 1.2s"), n=1),
             called(bash("pytest -q", result="12 passed in 1.1s"), n=2),
             called(bash("pytest -q", result="12 passed in 1.0s"), n=3),
             called(bash("npm test", result="Tests:       4 passed, 4 total"), n=4),
             called(bash("go test ./...", result="ok  \texample.com/pkg\t0.01s"), n=5),
             called(bash("cargo test", result="test result: ok. 3 passed"), n=6),
             called(bash("cargo test", ok=False, result="1 failed"), n=7),
             called(bash("ls", result="10 passed"), n=8)]
    assert [c for c in extract_memories(turns) if c.kind == "milestone"] == []
    record = session_record(turns)
    assert record.tests_passed == ("`pytest -q` (12 passed)", "`npm test` (4 passed)", "`go test ./...`")
    assert "Tests passed: `pytest -q` (12 passed); `npm test` (4 passed); `go test ./...`." in record.to_text()


def test_failing_test_runs_are_not_milestones():
    turns = [called(bash("pytest", result="1 failed, 3 passed"), n=0),
             called(bash("pytest", ok=False, result="5 passed, 1 error"), n=1)]
    assert [c for c in extract_memories(turns) if c.kind == "milestone"] == []


# --- learnings ---------------------------------------------------------------------------------------------------

def test_error_then_explanation_then_success_is_a_learning():
    turns = [called(bash("npm run build", ok=False, result="Exit code 1\nnpm ERR! missing script: build"), n=0),
             said("The error is because package.json has no build script; I'll add one.", "assistant", 1),
             called(bash("npm run build", result="built in 2s"), n=2)]
    found = [c for c in extract_memories(turns) if c.kind == "learning"]
    assert len(found) == 1
    assert found[0].content == ("Error: npm ERR! missing script: build — fixed by: The error is because package.json "
                                "has no build script; I'll add one.")
    assert found[0].chunk_type == "pattern" and len(found[0].content) <= 500


def test_error_fixed_by_edits_without_explanation():
    """The edit is the fix when its lines are known (the call's summary names them); an edit of a file whose lines
    are not known says where, not what changed."""
    edit = ToolUse(id=None, name="Edit", summary="Edit: setup.cfg → config = prod.ini", file_path="setup.cfg", ok=True)
    turns = [called(bash("cd app && make", ok=False, result="fatal: config missing"), n=0),
             called(edit, n=1),
             called(bash("cd app && make", result="done"), n=2)]
    found = [c.content for c in extract_memories(turns) if c.kind == "learning"]
    assert found == ["Error: fatal: config missing — fixed by: editing setup.cfg → config = prod.ini"]
    unknown = ToolUse(id=None, name="Edit", summary="Edit: setup.cfg", file_path="setup.cfg", ok=True)
    assert [c for c in extract_memories([turns[0], called(unknown, n=1), turns[2]]) if c.kind == "learning"] == []


def test_explained_error_without_a_rerun_is_a_learning_when_cause_and_fix_are_said():
    failed = called(bash("docker compose up", ok=False, result="Error: port 5432 already allocated"), n=0)
    fixed = said("The problem was a local Postgres already using port 5432. I moved the compose database to 5434.",
                 "assistant", 1)
    assert [c.content for c in extract_memories([failed, fixed])] == [
        "Error: Error: port 5432 already allocated — The problem was a local Postgres already using port 5432. — "
        "fixed by: I moved the compose database to 5434."]
    why_only = said("The problem was a local Postgres already using port 5432.", "assistant", 1)
    assert extract_memories([failed, why_only]) == []  # the cause without the change that fixed it


@pytest.mark.parametrize("result, reply", [
    # a status line, and a fix that is a re-run: no cause, no change
    ("17 checks passed. 1 checks failed", "Re-running it."),
    # the explanation is about something else
    ("Error: BullMQ: Your redis options maxRetriesPerRequest must be null.",
     "I created a queue called notifications with three attempts."),
])
def test_an_error_without_its_cause_or_its_fix_is_no_learning(result, reply):
    turns = [called(bash("npm run check", ok=False, result=result), n=0), said(reply, "assistant", 1),
             called(bash("npm run check", result="ok"), n=2)]
    assert [c for c in extract_memories(turns) if c.kind == "learning"] == []


def test_routine_or_unrelated_errors_are_not_learnings():
    edit_fail = ToolUse(id=None, name="Edit", summary="Edit: a.py", file_path="a.py", ok=False,
                        output="String to replace not found in file.")
    turns = [called(edit_fail, n=0),
             called(bash("pytest", ok=False, result="The user doesn't want to proceed with this tool use."), n=1),
             called(bash("pytest", result="ok"), n=2),
             called(bash("make lint", ok=False, result="E501 line too long"), n=3),
             called(bash("ls -la", result="total 0"), n=4)]
    assert [c for c in extract_memories(turns) if c.kind == "learning"] == []


# --- the fixture, end to end -------------------------------------------------------------------------------------

def test_fixture_candidates():
    found = extract_memories(parse_transcript(CODING).turns)
    by_kind = {}
    for c in found:
        by_kind.setdefault(c.kind, []).append(c.content)
        assert isinstance(c, Candidate) and c.kind in KINDS and c.chunk_type in CHUNK_TYPES
        assert c.category in {"past", "present", "future"} and 0 < c.confidence <= 1 and len(c.content) <= 600
        for secret in ("hunter2", "fenced fact", "injected fact", "summary fact", "subagents see"):
            assert secret not in c.content
    assert by_kind["request"] == ["The staging bucket is called media-staging-eu."]
    assert by_kind["correction"][0].startswith("Correction: No, it's media-staging-eu, not media-staging.")
    assert "I prefer keyword" not in by_kind["correction"][0]
    assert by_kind["preference"] == ["User prefers keyword arguments over positional ones in public functions."]
    assert by_kind["decision"] == ["Decision: Let's go with exponential backoff capped at 30 seconds."]
    assert by_kind["milestone"] == ["Committed: Add a retry limit to the uploader"]
    assert len(by_kind["learning"]) == 1 and "No module named 'responses'" in by_kind["learning"][0]
    assert "responses package was missing" in by_kind["learning"][0]


@pytest.mark.parametrize("todo, kept", [("Upgrade to axum 0.8", True), ("Reminder scan as a BackgroundService", True),
                                        ("Replace logrus with log/slog", True), ("Check customer_email nulls", True),
                                        ("initial commit", False), ("update test mocks + run tests", False),
                                        ("Mailgun config for prod", False)])
def test_a_completed_todo_is_a_memory_when_it_names_code(todo, kept):
    use = ToolUse(id="t1", name="TodoWrite", summary="TodoWrite", todos=(Todo(content=todo, status="completed"),))
    turn = Turn(uuid="a1", offset=0, role="assistant", text="", timestamp=None, session_id="s", tool_uses=(use,))
    assert bool(extract_memories([turn])) is kept


def test_candidates_come_in_transcript_order_without_duplicates():
    turns = [said("Remember that the port is 5433.", n=0), said("Remember that the port is 5433.", n=1),
             called(bash('git commit -m "Ship it"', result="[main abc123] Ship it"), n=2),
             said("I prefer short names for loop variables.", n=3)]
    found = extract_memories(turns)
    assert [c.kind for c in found] == ["request", "milestone", "preference"]


def test_long_content_is_clipped():
    found = extract_memories([said("Remember that " + "the service is slow " * 25 + "today.")])
    assert len(found) == 1 and len(found[0].content) <= 600


# --- session record ----------------------------------------------------------------------------------------------

def test_session_record_of_fixture():
    record = session_record(parse_transcript(CODING).turns)
    assert record.session_id == "fixture-session-1"
    assert record.intent.startswith("Please add a retry limit to the upload client")
    assert record.files_edited == ("src/uploader.py",) and record.files_read == ()
    assert record.commands[:2] == ("pytest -q tests/test_uploader.py", "pip install responses")
    assert any(c.startswith("git add -A && git commit") for c in record.commands)
    assert record.outcome == ("Committed the retry limit on feature/retry. Next step: document the retry settings "
                              "in the README.")
    assert record.follow_ups[0] == "Document the retry settings"
    assert record.started == "2026-03-02T09:01:00.250Z" and record.ended > record.started
    assert record.tool_errors == 1
    text = record.to_text()
    for part in ("Intent: Please add a retry limit", "Files changed: src/uploader.py", "`pip install responses`",
                 "Outcome: Committed the retry limit", "Follow-ups: Document the retry settings", "UTC"):
        assert part in text
    assert "hunter2" not in text and "subagents" not in text


@needs_shared
def test_session_record_follow_ups_from_last_todowrite():
    record = session_record(parse_transcript(SHARED / "todowrite_examples.jsonl").turns)
    assert record.follow_ups == ("Add comprehensive tests", "Write user documentation", "Perform code review",
                                 "Conduct security review and penetration testing")
    assert record.intent == "Can you help me implement a new feature with proper task management?"


def test_session_record_limits():
    uses = [bash(f"echo step {i} " + "x" * 200) for i in range(30)]
    uses.append(ToolUse(id=None, name="Read", summary="Read: a.py", file_path="a.py"))
    uses.append(ToolUse(id=None, name="Write", summary="Write: a.py", file_path="a.py"))
    uses.append(ToolUse(id=None, name="Read", summary="Read: b.py", file_path="b.py"))
    todo = ToolUse(id=None, name="TodoWrite", summary="TodoWrite: 2 todos",
                   todos=(Todo("done thing", "completed"), Todo("open thing", "in_progress")))
    turns = [said("Please " + "refactor the module " * 30), called(*uses, todo, n=1),
             said("All done. The remaining work is updating the changelog.", "assistant", 2)]
    record = session_record(turns)
    assert len(record.intent) <= 200 and len(record.commands) == 20
    assert all(len(c) <= 120 for c in record.commands)
    assert record.files_edited == ("a.py",) and record.files_read == ("b.py",)
    assert record.follow_ups == ("open thing", "The remaining work is updating the changelog.")
    assert len(record.outcome) <= 300


def test_session_record_none_when_nothing_happened():
    assert session_record([]) is None
    assert session_record([said("hello", "assistant")]) is None
    assert session_record([said("sidechain only", is_sidechain=True)]) is None


def test_session_record_follow_ups_from_a_todo_files_open_items(tmp_path):
    """A TODO.md read and edited in the session: its items still unchecked when the session ends are open work,
    whatever words they use; checked ones are done, and a Markdown file that is no list (a README) adds none."""
    from datetime import datetime, timezone

    from harness.transcripts import Assistant, Edit, Read, User, Write, write_session

    todo = "# before launch\n- [ ] orphaned R2 objects after a delete\n- [ ] upload rate limit, ~40 photos/hour\n" \
           "- [x] sideways thumbnails\n"
    path = write_session(tmp_path / "s.jsonl", "s", tmp_path, datetime(2026, 3, 2, tzinfo=timezone.utc), [
        User("where are we"),
        Assistant("Two left.", [Read("TODO.md", todo), Write("README.md", "- [ ] not a list of work\n"),
                                Edit("TODO.md", "- [ ] upload rate limit, ~40 photos/hour\n",
                                     "- [x] upload rate limit, ~40 photos/hour\n- [ ] coarsen lat/lng for guests\n")]),
    ])
    record = session_record(parse_transcript(path).turns)
    assert record.follow_ups[:2] == ("orphaned R2 objects after a delete", "coarsen lat/lng for guests")
    assert not any("README" in f or "not a list" in f or "sideways" in f for f in record.follow_ups)
