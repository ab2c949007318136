"""Issue 15 through the real hooks: memory filed where it was said (scopes), a session filed under its own
project, capture of only what rlm-mem saw start, capture that keeps only what is new, a rewound conversation."""
import json
import os
import subprocess
import time

import pytest
from harness.claude_code import BUNDLE_ROOT, fire

from brain.hud.textwidth import display_width
from brain.scripts import ChunkStore

RLM = str(BUNDLE_ROOT / ".venv" / "bin" / "rlm-mem")


def rlm(*args, cwd=None):
    p = subprocess.run([RLM, *args], capture_output=True, text=True, env=os.environ.copy(), cwd=cwd, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


class Transcript:
    """A transcript in Claude Code's format, written record by record: each record hangs under `parent` (the last
    record by default), so a rewind is a record hung under an earlier one."""

    def __init__(self, path, sid, cwd):
        self.path, self.sid, self.cwd, self.last, self.n = path, sid, str(cwd), None, 0
        path.write_text("")

    def _add(self, kind, message, parent="last", cwd=None, **extra):
        self.n += 1
        uid = f"{self.sid}-{self.n:03d}"
        record = {"type": kind, "uuid": uid, "parentUuid": self.last if parent == "last" else parent,
                  "sessionId": self.sid, "timestamp": f"2026-11-20T10:{self.n:02d}:00Z", "cwd": cwd or self.cwd,
                  "isSidechain": False, **extra}
        if message is not None:
            record["message"] = message
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
        self.last = uid
        return uid

    def user(self, text, **kw):
        return self._add("user", {"role": "user", "content": text}, **kw)

    def assistant(self, text, tools=(), **kw):
        """`tools`: (name, input, output, failed) each; their results follow in a user record."""
        blocks = [{"type": "text", "text": text}] + [
            {"type": "tool_use", "id": f"{self.sid}-t{self.n}-{i}", "name": name, "input": inp}
            for i, (name, inp, _, _) in enumerate(tools)]
        uid = self._add("assistant", {"role": "assistant", "content": blocks}, **kw)
        if tools:
            n = self.n - 1
            self._add("user", {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"{self.sid}-t{n}-{i}", "content": out, "is_error": failed}
                for i, (_, _, out, failed) in enumerate(tools)]}, cwd=kw.get("cwd"))
        return uid

    def hook_context(self, text):
        """What Claude Code records of a hook's additionalContext (rlm-mem's recalled memory)."""
        return self._add("attachment", None, attachment={"type": "hook_additional_context", "content": [text]})

    @property
    def base(self):
        return {"session_id": self.sid, "transcript_path": str(self.path), "cwd": self.cwd}


def run_session(t, *, env=None, start=True, end=True):
    if start:
        assert fire("SessionStart", dict(t.base, source="startup"), env=env)[0].returncode == 0
    if end:
        assert fire("SessionEnd", dict(t.base, reason="prompt_input_exit"), env=env)[0].returncode == 0
    rlm("ingest")


def start_context(t, env=None):
    run = fire("SessionStart", dict(t.base, source="startup"), env=env)[0]
    assert run.returncode == 0
    return run.context


def prompt_context(t, prompt, env=None):
    run = fire("UserPromptSubmit", dict(t.base, prompt=prompt), env=env)[0]
    assert run.returncode == 0
    return run.context


def typed(root, **where):
    """Active typed memories (not turns, not session records), with the metadata given in `where`."""
    out = []
    for c in ChunkStore(root).layout.iter_chunks():
        md = c["metadata"]
        if md.get("kind") in ("turn", "session") or md.get("status", "active") != "active":
            continue
        if all(md.get(k) == v for k, v in where.items()):
            out.append(c)
    return out


@pytest.fixture(autouse=True)
def quiet(monkeypatch):
    monkeypatch.setenv("RLM_MEM_BACKGROUND", "0")  # `rlm-mem ingest` runs the capture in the test's own time


@pytest.fixture
def projects(tmp_path):
    out = {}
    for name in ("alpha", "beta"):
        (tmp_path / name).mkdir()
        out[name] = tmp_path / name
    return out


# ---------------------------------------------------------------- 1. scopes
def test_what_a_person_says_about_themselves_follows_them_into_every_project(tmp_path, projects, isolated_memory):
    t = Transcript(tmp_path / "a1.jsonl", "a1", projects["alpha"])
    t.user("From now on, always answer me in British English, and I prefer pytest over unittest in every project.")
    t.assistant("Understood: British English from here on, and pytest for tests.")
    t.user("The staging database listens on port 5433.")
    t.assistant("Noted.")
    run_session(t)
    personal = typed(isolated_memory, scope="user")
    assert len(personal) == 1 and "British English" in personal[0]["content"], personal

    b = Transcript(tmp_path / "b1.jsonl", "b1", projects["beta"])
    brief = start_context(b)
    assert "British English" in brief and "none yet" not in brief
    assert "pytest" in prompt_context(b, "Which test framework should I use here?")
    # the project's own facts stay in alpha unless every project is asked for
    assert "5433" not in prompt_context(b, "Which port does the staging database listen on?")
    assert "5433" in rlm("recall", "--all-projects", "which port does the staging database listen on?",
                         cwd=projects["beta"])
    assert "5433" in prompt_context(Transcript(tmp_path / "a2.jsonl", "a2", projects["alpha"]),
                                    "Which port does the staging database listen on?")

    # changeable later: back to the project it was said in, and it no longer follows the person
    rlm("scope", personal[0]["id"], "project", cwd=projects["alpha"])
    assert "pytest" not in prompt_context(b, "Which test framework should I use here?")


def worker_done(root, seconds=60):
    """Wait until no capture worker runs and nothing is queued (the test's folder is removed after it)."""
    from brain.capture.queue import pending_count, worker_running

    deadline = time.monotonic() + seconds
    while (worker_running(root) or pending_count(root)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not (worker_running(root) or pending_count(root))


def test_a_new_projects_first_session_starts_with_what_the_person_just_said_elsewhere(tmp_path, projects,
                                                                                        isolated_memory, monkeypatch):
    """Issue 38, item 5: alpha's session ends and the detached worker SessionEnd starts captures it; beta's very
    first session starts right after. Its start waits for that capture, so the person's preference is in its brief
    (it said "Memory for project beta: none yet" while the next session showed it). A preference remembered by
    hand with --scope user is there too."""
    monkeypatch.setenv("RLM_MEM_BACKGROUND", "1")  # the worker really starts, as for a person
    try:
        t = Transcript(tmp_path / "a1.jsonl", "a1", projects["alpha"])
        assert fire("SessionStart", dict(t.base, source="startup"))[0].returncode == 0
        t.user("The staging database listens on port 5433.")
        t.assistant("Noted.")
        assert fire("Stop", dict(t.base, stop_hook_active=False))[0].returncode == 0
        assert worker_done(isolated_memory)  # alpha has memory: beta's brief says "none yet" when it sees none
        t.user("From now on, always answer me in British English.")
        t.assistant("Understood: British English from here on.")
        assert fire("SessionEnd", dict(t.base, reason="prompt_input_exit"))[0].returncode == 0
        brief = start_context(Transcript(tmp_path / "b1.jsonl", "b1", projects["beta"]))
        assert "British English" in brief and "none yet" not in brief and "5433" not in brief

        rlm("remember", "Keep my commit messages under 72 characters", "--scope", "user", cwd=projects["alpha"])
        (tmp_path / "gamma").mkdir()
        first = start_context(Transcript(tmp_path / "g1.jsonl", "g1", tmp_path / "gamma"))
        assert "British English" in first and "72 characters" in first and "5433" not in first
    finally:
        assert worker_done(isolated_memory)


def test_a_session_start_waits_only_for_other_projects_queued_sessions(tmp_path, projects, isolated_memory):
    """Only another project's session can hold what this project's brief lacks (the person's own memories):
    a start in the same project never waits for its own project's queued capture."""
    from brain.capture.queue import pending_count, seen_session
    from brain.session.background import wait_for_capture

    t = Transcript(tmp_path / "a1.jsonl", "a1", projects["alpha"])
    assert fire("SessionStart", dict(t.base, source="startup"))[0].returncode == 0
    t.user("From now on, always answer me in British English.")
    assert fire("Stop", dict(t.base, stop_hook_active=False))[0].returncode == 0  # queued: no worker in this test
    alpha = seen_session(isolated_memory, "a1")["project"][0]
    assert pending_count(isolated_memory) == 1 and pending_count(isolated_memory, elsewhere_than="beta-1") == 1
    assert pending_count(isolated_memory, elsewhere_than=alpha) == 0
    assert wait_for_capture(isolated_memory, alpha) is True  # nothing of another project: no wait
    assert wait_for_capture(isolated_memory, "beta-1") is False  # queued, but no worker may run (RLM_MEM_BACKGROUND=0)


def test_remember_chooses_the_scope_from_the_words_and_scope_overrides(projects, isolated_memory):
    mine = rlm("remember", "Always reply to me in short answers without emojis", cwd=projects["alpha"]).split()[0]
    theirs = rlm("remember", "Use ruff for linting", "--scope", "global", cwd=projects["alpha"]).split()[0]
    here = rlm("remember", "The billing service listens on port 8087", cwd=projects["alpha"]).split()[0]
    scopes = {c["id"]: c["metadata"].get("scope") for c in ChunkStore(isolated_memory).layout.iter_chunks()}
    assert scopes == {mine: "user", theirs: "global", here: None}


# ---------------------------------------------------------------- 2. a session belongs to its project
def test_a_session_is_filed_under_its_project_whatever_folder_claude_worked_in(tmp_path, projects, isolated_memory):
    root, sub = projects["alpha"], projects["alpha"] / "services" / "billing"
    sub.mkdir(parents=True)
    worktree = tmp_path / "alpha-feature-worktree"
    worktree.mkdir()
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(root))  # Claude Code keeps it at the session's root
    t = Transcript(tmp_path / "s.jsonl", "s", root)
    t.user("Let's fix the invoice rounding bug.")
    t.assistant("Working in the billing service.", cwd=str(sub))
    t.user("We decided to round invoice totals half-even, in the billing service.", cwd=str(sub))
    t.assistant("Done in the feature worktree.", tools=[("Bash", {"command": "pytest -q"}, "3 passed", False)],
                cwd=str(worktree))
    for event, extra in (("SessionStart", {"source": "startup"}), ("Stop", {}), ("SessionEnd", {"reason": "other"})):
        payload = dict(t.base, cwd=str(worktree) if event != "SessionStart" else str(root), **extra)
        assert fire(event, payload, env=env)[0].returncode == 0  # `cwd` follows Claude; the project does not
    rlm("ingest")
    projects_used = {c["metadata"].get("project") for c in ChunkStore(isolated_memory).layout.iter_chunks()}
    assert len(projects_used) == 1 and next(iter(projects_used)).startswith("alpha-"), projects_used
    later = Transcript(tmp_path / "s2.jsonl", "s2", root)
    assert "half-even" in prompt_context(later, "How do we round invoice totals?")


# ---------------------------------------------------------------- 3. only sessions rlm-mem saw start
def test_backfill_takes_older_transcripts_only_when_asked_and_since_a_date(tmp_path, projects, isolated_memory):
    folder = tmp_path / "transcripts"
    folder.mkdir()
    old = Transcript(folder / "old.jsonl", "old", projects["alpha"])
    old.user("We decided to deploy billing on Tuesdays only.")
    recent = Transcript(folder / "recent.jsonl", "recent", projects["alpha"])
    recent.user("We decided to keep invoices for ten years.")
    os.utime(old.path, (1_700_000_000, 1_700_000_000))  # 2023-11-14
    t = Transcript(tmp_path / "now.jsonl", "now", projects["alpha"])
    run_session(t)
    assert not {"old", "recent"} & {c["metadata"].get("conversation_id")
                                    for c in ChunkStore(isolated_memory).layout.iter_chunks()}
    rlm("ingest", "--backfill", "--since", "2024-01-01", str(folder))
    convs = {c["metadata"].get("conversation_id") for c in ChunkStore(isolated_memory).layout.iter_chunks()}
    assert "recent" in convs and "old" not in convs


# ---------------------------------------------------------------- 4. capture keeps what is new
def test_a_statement_with_another_small_number_is_new(tmp_path, projects, isolated_memory):
    """Short numbers are values too: "41 passed" does not restate "9 passed" (two digits were once not words)."""
    for name, output in (("n1", "9 passed in 1.02s"), ("n2", "41 passed in 3.80s")):
        t = Transcript(tmp_path / f"{name}.jsonl", name, projects["alpha"])
        t.user("Run the tests.")
        t.assistant("Running them.", tools=[("Bash", {"command": "pytest -q"}, output, False)])
        run_session(t)
    contents = " | ".join(c["content"] for c in typed(isolated_memory))
    assert "(9 passed)" in contents and "(41 passed)" in contents, contents


def test_capture_keeps_only_what_is_new(tmp_path, projects, isolated_memory):
    first = Transcript(tmp_path / "c1.jsonl", "c1", projects["alpha"])
    first.user("Remember that the billing database listens on port 6432.")
    first.assistant("Noted, port 6432.")
    first.user("We decided to use Stripe webhooks instead of polling for payment status.")
    first.assistant("Agreed, webhooks it is.")
    run_session(first)
    assert len([c for c in typed(isolated_memory) if "6432" in c["content"]]) == 1
    assert len([c for c in typed(isolated_memory) if "webhooks" in c["content"].lower()]) == 1  # one statement

    second = Transcript(tmp_path / "c2.jsonl", "c2", projects["alpha"])
    assert fire("SessionStart", dict(second.base, source="startup"))[0].returncode == 0
    question = "Which port does the billing database listen on?"
    recalled = prompt_context(second, question)
    assert "6432" in recalled
    second.user(question)
    second.hook_context(recalled)  # Claude Code records the hook's context in the transcript
    second.assistant("The billing database listens on port 6432.")
    second.user("Deploy the staging build.")
    second.assistant("Deploying.", tools=[("Bash", {"command": "make deploy-staging"}, "make: *** Error 2", True)])
    second.assistant("The staging host is staging.example.dev. The deploy needs a retry.")
    second.user("No, it's staging-eu.example.dev, not staging.example.dev.")
    second.assistant("Right, staging-eu.example.dev.")
    assert fire("SessionEnd", dict(second.base, reason="other"))[0].returncode == 0
    rlm("ingest")

    facts_6432 = [c for c in typed(isolated_memory) if "6432" in c["content"]]
    assert len(facts_6432) == 1, [c["content"] for c in facts_6432]  # the echoed answer is no new memory
    questions = [c for c in ChunkStore(isolated_memory).layout.iter_chunks() if c["content"].startswith(question)]
    assert questions and all(c["type"] != "fact" for c in questions)  # a question is not a fact
    brief = start_context(Transcript(tmp_path / "c3.jsonl", "c3", projects["alpha"]))
    assert f"fact] {question}" not in brief and f"fact · {question}" not in brief  # nor listed as one at start
    correction, = [c for c in typed(isolated_memory, kind="correction")]
    assert 'correcting: "The staging host is staging.example.dev."' in correction["content"]
    record, = [c for c in ChunkStore(isolated_memory).layout.iter_chunks()
               if c["metadata"].get("kind") == "session" and c["metadata"].get("conversation_id") == "c2"]
    assert "`make deploy-staging` (failed)" in record["content"]


# ---------------------------------------------------------------- 4. a rewound conversation
def test_only_the_active_branch_of_a_rewound_conversation_counts(tmp_path, projects, isolated_memory):
    t = Transcript(tmp_path / "r.jsonl", "r", projects["alpha"])
    t.user("Set up the job queue for the mailer.")
    fork = t.assistant("Which broker should it use?")
    t.user("We decided to use RabbitMQ as the message broker.")
    t.assistant("Agreed, RabbitMQ.")
    assert fire("SessionStart", dict(t.base, source="startup"))[0].returncode == 0
    assert fire("Stop", t.base)[0].returncode == 0
    rlm("ingest")  # captured while the RabbitMQ branch was current
    assert any("RabbitMQ" in c["content"] for c in typed(isolated_memory))
    t.user("We decided to use Redis streams as the message broker.", parent=fork)  # the person rewound
    t.assistant("Agreed, Redis streams.")
    assert fire("SessionEnd", dict(t.base, reason="other"))[0].returncode == 0
    rlm("ingest")
    current = " ".join(c["content"] for c in typed(isolated_memory))
    assert "Redis streams" in current and "RabbitMQ" not in current
    kept = [c for c in ChunkStore(isolated_memory).layout.iter_chunks() if "RabbitMQ" in c["content"]]
    assert kept and all(c["metadata"].get("status") == "retracted" for c in kept)  # kept for the record only
    answer = prompt_context(Transcript(tmp_path / "r2.jsonl", "r2", projects["alpha"]),
                            "Which message broker does the mailer use?")
    assert "Redis streams" in answer and "RabbitMQ" not in answer


# ---------------------------------------------------------------- 5. the LiveHud tells the truth
def hud_of(context: str) -> list:
    lines = context.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("╔"))
    bottom = next(i for i, line in enumerate(lines) if line.startswith("╚"))
    box = lines[top:bottom + 1]
    assert all(display_width(line) == 80 for line in box) and "\ufe0f" not in "".join(box)  # equal widths
    return box


def gauge(box, name: str) -> str:
    line = next(line for line in box if f" {name}:" in line)
    value = line.split(f" {name}:", 1)[1]
    return (value if name == "Memory" else value.split("│")[0]).strip(" ║")


def test_the_livehud_follows_the_session(tmp_path, projects, isolated_memory):
    t = Transcript(tmp_path / "h.jsonl", "h", projects["alpha"])
    box = hud_of(start_context(t))
    assert gauge(box, "Present") == "Awaiting the first task" and gauge(box, "Tools") == "Standby"
    assert "Session: New" in box[2]
    t.user("Fix the flaky login test")
    t.assistant("Running it.", tools=[("Bash", {"command": "ls tests"}, "test_login.py", False)])
    t.assistant("Now the test itself.")
    t._add("assistant", {"role": "assistant", "content": [
        {"type": "tool_use", "id": "run-1", "name": "Bash", "input": {"command": "pytest tests/test_login.py"}}]})
    box = hud_of(prompt_context(t, "Set Humor to 70%"))  # a slider command redraws the HUD mid-session
    assert gauge(box, "Present") == "Fix the flaky login test" and gauge(box, "Tools") == "Verifying"
    t._add("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "run-1",
                                                 "content": "1 failed", "is_error": True}]})
    box = hud_of(fire("SessionStart", dict(t.base, source="resume"))[0].context)
    assert gauge(box, "Present") == "Fix the flaky login test" and gauge(box, "Tools") == "Blocked"
    assert "Session: Active" in box[2]
    t.user("Now update the changelog")
    box = hud_of(fire("SessionStart", dict(t.base, source="compact"))[0].context)
    assert gauge(box, "Present") == "Now update the changelog" and gauge(box, "Tools") == "Standby"


def test_the_livehud_counts_only_real_pending_capture(tmp_path, projects, isolated_memory):
    for n in range(4):  # transcripts from before rlm-mem: nothing of them is pending
        Transcript(tmp_path / f"old{n}.jsonl", f"old{n}", projects["alpha"]).user("Let's tidy the imports.")
    t = Transcript(tmp_path / "p.jsonl", "p", projects["alpha"])
    assert gauge(hud_of(start_context(t)), "Memory").endswith("0 pending write")
    t.user("We decided to keep invoices for ten years.")
    assert fire("Stop", t.base)[0].returncode == 0  # queued; no worker (RLM_MEM_BACKGROUND=0)
    later = Transcript(tmp_path / "q.jsonl", "q", projects["alpha"])
    assert gauge(hud_of(start_context(later)), "Memory").endswith("1 pending write")
    rlm("ingest")
    assert gauge(hud_of(start_context(later)), "Memory").endswith("0 pending write")


def test_the_livehud_says_when_memory_cannot_be_written(tmp_path, projects, monkeypatch):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the memory folder's parent should be")
    monkeypatch.setenv("RLM_MEM_DIR", str(blocker / "memory"))  # cannot be created, even by root
    t = Transcript(tmp_path / "u.jsonl", "u", projects["alpha"])
    box = hud_of(start_context(t))
    assert gauge(box, "Past") == "No memory access" and gauge(box, "Memory") == "Inaccessible"
    assert "Inaccessible" in rlm("hud", cwd=projects["alpha"])


def test_rlm_mem_hud_in_a_shell_and_in_a_session(tmp_path, projects, isolated_memory, monkeypatch):
    outside = rlm("hud", cwd=projects["alpha"])
    assert "Session: None" in outside and "No session under way" in outside
    env_file = tmp_path / "claude-env"
    env_file.write_text("")
    t = Transcript(tmp_path / "in.jsonl", "in", projects["alpha"])
    t.user("Add a dark theme to the settings page")
    run = fire("SessionStart", dict(t.base, source="startup"), env=dict(os.environ, CLAUDE_ENV_FILE=str(env_file)))
    assert run[0].returncode == 0
    exported = dict(line[len("export "):].split("=", 1) for line in env_file.read_text().splitlines())
    monkeypatch.setenv("RLM_MEM_TRANSCRIPT", exported["RLM_MEM_TRANSCRIPT"].strip("'"))
    monkeypatch.setenv("CLAUDECODE", "1")  # what Claude Code's Bash tool runs with
    inside = rlm("hud", cwd=projects["alpha"])
    assert "Session: Active" in inside and "Add a dark theme to the settings page" in inside


@pytest.mark.parametrize("args, says", [
    (["ingest", "--since", "2026-01-01"], "--since goes with --backfill"),
    (["ingest", "--backfill", "--since", "last tuesday", "."], "not an ISO date"),
    (["ingest", "--backfill", "no/such/folder"], "no transcript or folder at"),
    (["scope", "chunk-2026-01-01-00000000", "team"], "Invalid value"),
])
def test_bad_backfill_and_scope_arguments_say_what_is_wrong(args, says, projects, isolated_memory):
    p = subprocess.run([RLM, *args], capture_output=True, text=True, env=os.environ.copy(), cwd=projects["alpha"],
                       timeout=60)
    assert p.returncode != 0 and says in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_a_session_whose_end_never_came_is_ended_after_an_hour_of_quiet(tmp_path, projects, isolated_memory):
    from brain.capture.queue import SESSION_IDLE, seen_session, unfinished_sessions

    t = Transcript(tmp_path / "quiet.jsonl", "quiet", projects["alpha"])
    t.user("We decided to keep invoices for ten years.")
    assert fire("SessionStart", dict(t.base, source="startup"))[0].returncode == 0
    changed = os.stat(t.path).st_mtime
    assert unfinished_sessions(isolated_memory, "other", now=changed + 60) == [("quiet", str(t.path), False)]
    assert unfinished_sessions(isolated_memory, "other", now=changed + SESSION_IDLE) == [("quiet", str(t.path), True)]
    os.utime(t.path, (changed - SESSION_IDLE, changed - SESSION_IDLE))
    later = Transcript(tmp_path / "later.jsonl", "later", projects["alpha"])
    run_session(later)  # its start queues the quiet session as ended: captured with its session record
    assert any(c["metadata"].get("kind") == "session" and c["metadata"].get("conversation_id") == "quiet"
               for c in ChunkStore(isolated_memory).layout.iter_chunks())
    assert seen_session(isolated_memory, "quiet") == {}  # captured to its end: no sweep looks at it again
    gone = Transcript(tmp_path / "gone.jsonl", "gone", projects["alpha"])
    assert fire("SessionStart", dict(gone.base, source="startup"))[0].returncode == 0
    os.unlink(gone.path)
    assert unfinished_sessions(isolated_memory, "other") == [] and seen_session(isolated_memory, "gone") == {}
