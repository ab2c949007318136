"""rlm-mem inside the real Claude Code CLI, installed each of the three ways people install it (issue 14).

One scenario per route, run once, checked by the tests below (tests/harness/real_claude.py drives it; the model is
tests/harness/messages_api.py on 127.0.0.1):
1. session 1 states a decision and runs a Bash command that fails;
2. it is captured in the background (for the marketplace route, after rlm-mem's packages were installed by the
   first worker: the installed copy had no set-up step);
3. session 2 asks about it in other words, calls rlm-mem's MCP recall tool (issue 35: offered to the model by
   every route, the marketplace's with no set-up step), loads the rlm-mem skill, runs `where`, then `forget`,
   `restore` and `pin` with the short id the recalled context shows, with the command the skill's text gives and
   no approval beyond the skill's and the MCP server's;
4. `claude -p --continue` goes on from session 2 and adds a fact, which is captured too.
About a minute for the three routes, so not in the default run: `pytest -m claude_code` (.ci/run runs it).
Skipped, with one line, where Claude Code is missing (.ci/run installs it).
"""
import json
import re

import pytest
from harness.messages_api import Tool
from harness.real_claude import BUNDLE_ROOT, MCP_PREFIX, MCP_SERVER, ROUTES, Workspace, files_under, find_claude

from brain.mcp.catalog import TOOLS

CLAUDE, WHY_NOT = find_claude()
pytestmark = [pytest.mark.claude_code, pytest.mark.skipif(CLAUDE is None, reason=WHY_NOT or ""),
              pytest.mark.timeout(600)]  # a route's scenario runs in its first test's setup: a few Claude sessions

DECISION = "We decided the billing service uses Postgres 16 on port 5433, and deploys must always use --no-cache."
QUESTION = "Which port does the billing database listen on?"
LATER = "From now on the staging cache expires after 90 minutes; remember that."
FAILING = "ls no-such-file-rlm-mem-e2e.txt"
ID_COMMANDS = ("forget", "restore", "pin")  # each with the short id the session-start context shows
SKIP = {".git", ".venv", ".ci", "__pycache__"}  # git's, the set-up's, CI's own, and what pytest itself compiles


def _skill_command(messages) -> str:
    """What a model reads in the skill's text: its base directory, and the command line SKILL.md gives there."""
    text = json.dumps(messages)
    base = re.search(r"Base directory for this skill: ([^\\]+)\\n", text)
    command = re.search(r'`\\"([^`]+?/bin/rlm-mem)\\" COMMAND', text)
    assert base and command, "the skill's text was not in the conversation"
    assert command.group(1) == base.group(1) + "/bin/rlm-mem", "SKILL.md's command is not in the skill's folder"
    return f'"{command.group(1)}"'


def _short_id(messages) -> str:
    """The 8-hex id the session-start context shows for the decision."""
    line = next(line for line in json.dumps(messages).split("\\n") if "5433" in line and "decision" in line)
    return re.search(r"chunk-\d{4}-\d\d-\d\d-([0-9a-f]{8})", line).group(1)


def _decisions(ws) -> list:
    chunks = ws.memory_root / "chunks"
    return sorted(p.name for p in chunks.rglob("*.json") if '"decision"' in p.read_text() and "5433" in p.read_text())


@pytest.fixture(scope="module", params=ROUTES)
def run(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(request.param)
    ws = Workspace(CLAUDE, tmp, request.param)
    watched = ws.plugin_root or BUNDLE_ROOT  # where the hooks and the command line run from
    before = files_under(watched, skip=SKIP)
    try:
        ws.session(DECISION + " Please remember that.", Tool("Bash", {"command": FAILING, "description": "look"}),
                   reply="Noted: the billing service uses Postgres 16 on port 5433; deploys always use --no-cache.")
        ws.captured = ws.wait_for_capture("5433")
        ws.decisions = _decisions(ws)
        skill = "rlm-mem" if ws.route == "settings" else "rlm-mem:rlm-mem"
        mcp = MCP_PREFIX[ws.route]
        # the person's "yes" to the skill and to the MCP server's tools (`install` pre-approves both)
        approve = () if ws.route == "settings" else ("--allowedTools", f"Skill({skill})", f"{mcp.rstrip('_')}")
        ws.session(QUESTION,
                   Tool(mcp + "recall", {"query": "billing database port"}),
                   Tool("Skill", {"skill": skill}),
                   Tool("Bash", lambda m: {"command": _skill_command(m) + " where --json", "description": "where"}),
                   *[Tool("Bash", lambda m, verb=verb: {"command": f"{_skill_command(m)} {verb} {_short_id(m)}",
                                                        "description": verb}) for verb in ID_COMMANDS],
                   reply="The billing database listens on port 5433.", extra=approve)
        assert not ws.api.failures, ws.api.failures  # the "model" found the skill's command and the short id
        ws.session(LATER, reply="Noted: the staging cache expires after 90 minutes.", extra=("--continue",))
        ws.later = ws.wait_for_capture("90 minutes")
        ws.changed = sorted(k for k, v in files_under(watched, skip=SKIP).items() if before.get(k) != v)
        yield ws
    finally:
        ws.close()


def test_session_one_is_captured_after_a_failing_bash_call(run):
    first = run.sessions[0]
    assert first.tool_results() == [(first.tool_results()[0][0], True)]  # the command ran and failed
    assert "No such file" in first.tool_results()[0][0] or "cannot access" in first.tool_results()[0][0]
    assert run.captured, "session 1 was never captured"
    assert any("Postgres 16 on port 5433" in p.read_text() for p in run.captured)


def test_the_mcp_tools_are_offered_to_the_model_by_every_route(run):  # the marketplace's: no set-up step
    names, server = {MCP_PREFIX[run.route] + name for name in TOOLS}, MCP_SERVER[run.route]
    for session in run.sessions:
        assert not [line for line in session.mcp_connections(server) if "Connection failed" in line]
        # listed by name for ToolSearch, or (a server that connects after the first request in -p mode) named as
        # still connecting, which ToolSearch waits for; a one-reply session may end before it connects
        assert names <= session.offered_tools() or session.told_still_connecting(server.split(":")[-1]), \
            session.name
    connected = [s for s in run.sessions if any("Successfully connected" in line for line in s.mcp_connections(server))]
    assert run.sessions[1] in connected and names <= run.sessions[1].offered_tools()  # the model called recall
    if run.route == "marketplace":  # the first start answers at once while the packages install
        assert run.sessions[0] in connected and names <= run.sessions[0].offered_tools()


def test_the_mcp_recall_tool_returns_what_session_one_captured(run):
    text, is_error = run.sessions[1].tool_results()[0]
    assert not is_error, text
    # Claude Code hands the model the structured content when there is one: its `text` is the fenced recall
    shown = json.loads(text)["text"] if text.startswith("{") else text
    assert 'label="recall"' in shown and "Postgres 16 on port 5433" in shown, text


def test_session_two_starts_with_the_fact(run):
    assert any("5433" in fence for fence in run.sessions[1].fences("session-start"))


def test_session_two_prompt_recalls_the_fact_in_other_words(run):  # it shares only "billing" and "port" with it
    assert any("5433" in fence for fence in run.sessions[1].fences("recall"))


def test_the_skill_runs_the_command_line_it_gives_without_asking(run):
    where, *by_id = run.sessions[1].tool_results()[-1 - len(ID_COMMANDS):]
    assert not where[1] and not any(error for _, error in by_id), (where, by_id)
    info = json.loads(where[0])
    assert info["root"] == str(run.memory_root), info  # the hooks' folder: `where` tells the truth
    # the short id from the recalled context was taken by every command: archived, restored, pinned
    assert [text.split()[0] for text, _ in by_id] == ["archived", "restored", "pinned"], by_id
    chunk = json.loads(run.rlm_mem("get", by_id[-1][0].split()[1], "--json").stdout)
    assert chunk["metadata"]["pinned"] is True and "5433" in chunk["content"]


def test_continue_goes_on_with_memory_and_is_captured(run):
    resumed = run.sessions[2]
    assert any("5433" in fence for fence in resumed.fences("session-start"))
    assert run.later, "the continued session was never captured"
    assert _decisions(run) == run.decisions, "capturing the continued session stored session 1's decision again"


def test_an_answer_from_recalled_memory_and_a_failed_command_are_marked(run):  # issue 15
    chunks = [json.loads(p.read_text()) for p in (run.memory_root / "chunks").rglob("*.json")]
    answer = [c for c in chunks if c["content"].startswith("The billing database listens on port 5433.")]
    # Claude Code keeps the hook's context in the transcript: capture sees the answer repeat it, a note, no fact
    assert answer and all(c["type"] == "note" and "recalled" in c["tags"] for c in answer), answer
    records = [c for c in chunks if c["metadata"].get("kind") == "session" and FAILING in c["content"]]
    assert records and all(f"`{FAILING}` (failed)" in c["content"] for c in records), records


def test_hooks_ran_without_errors(run, capsys):
    runs = [r for s in run.sessions for r in s.hook_runs()]
    assert {event for event, _, _ in runs} >= {"SessionStart", "UserPromptSubmit", "Stop"}
    assert all(status == 0 for _, status, _ in runs), runs
    assert not [line for s in run.sessions for line in s.hook_trouble()]
    with capsys.disabled():
        times = {}
        for event, _, ms in runs:
            times.setdefault(event, []).append(ms)
        print(f"\n  hook times Claude Code logged ({run.route}): "
              + "; ".join(f"{e} {min(v)}-{max(v)} ms" for e, v in sorted(times.items())))


def test_nothing_is_written_inside_the_bundle_or_the_plugin_root(run):
    assert run.changed == [], run.changed
    assert not (BUNDLE_ROOT / "brain" / ".memory-location").exists()
