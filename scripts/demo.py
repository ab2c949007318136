#!/usr/bin/env python3
"""A simulated Claude Code session, end to end, through the bundle's real hooks (hooks/hooks.json).

Session 1 (a sample transcript written here) is captured: SessionStart, UserPromptSubmit, Stop, SessionEnd, then
`rlm-mem ingest` finishes the queued work. Session 2 starts: you see what Claude would see — the LiveHud with what
was learned, and the recalled context for a prompt. Everything happens in a temporary folder.

Usage: .venv/bin/python scripts/demo.py [--keep]
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

BUNDLE = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(BUNDLE), str(BUNDLE / "tests")]

from harness.claude_code import fire  # noqa: E402

SESSION_1 = [
    ("user", "Let's get the payments service running locally. Remember that the staging database listens on "
             "port 5433, not 5432."),
    ("assistant", "Noted. I'll point the local config at staging on port 5433 and run the tests.",
     [("Bash", {"command": "pytest -q tests/payments"}, "12 passed in 0.84s")]),
    ("user", "We decided to use Stripe webhooks instead of polling for payment status."),
    ("assistant", "Good call: webhooks give us the status change immediately. I'll add the endpoint in "
                  "payments/webhooks.py.",
     [("Edit", {"file_path": "payments/webhooks.py", "old_string": "", "new_string": "..."}, "ok")]),
    ("user", "Actually, the webhook secret lives in the STRIPE_WEBHOOK_SECRET variable, not in settings.py. "
             "From now on, never commit secrets to the repo."),
    ("assistant", "Understood. I moved it to the environment variable and committed the endpoint.",
     [("Bash", {"command": "git commit -am \"Add Stripe webhook endpoint\""}, "[main 1a2b3c4] Add Stripe webhook"),
      ("TodoWrite", {"todos": [{"content": "Add webhook endpoint", "status": "completed"},
                               {"content": "Add retry handling for failed webhooks", "status": "pending"}]}, "ok")]),
]


def write_transcript(path: Path, session_id: str, cwd: Path, turns) -> None:
    lines, parent, n = [], None, 0
    for turn in turns:
        role, text = turn[0], turn[1]
        tools = turn[2] if len(turn) > 2 else []
        n += 1
        uid = f"{session_id}-{n:03d}"
        ts = f"2026-11-20T10:{n:02d}:00Z"
        if role == "user":
            message = {"role": "user", "content": text}
        else:
            blocks = [{"type": "text", "text": text}]
            blocks += [{"type": "tool_use", "id": f"tool-{n}-{i}", "name": name, "input": inp}
                       for i, (name, inp, _) in enumerate(tools)]
            message = {"role": "assistant", "content": blocks}
        lines.append({"type": role, "uuid": uid, "parentUuid": parent, "sessionId": session_id, "timestamp": ts,
                      "cwd": str(cwd), "isSidechain": False, "message": message})
        parent = uid
        if tools:
            n += 1
            rid = f"{session_id}-{n:03d}"
            results = [{"type": "tool_result", "tool_use_id": f"tool-{n - 1}-{i}", "content": out}
                       for i, (_, _, out) in enumerate(tools)]
            lines.append({"type": "user", "uuid": rid, "parentUuid": parent, "sessionId": session_id,
                          "timestamp": f"2026-11-20T10:{n:02d}:00Z", "cwd": str(cwd), "isSidechain": False,
                          "message": {"role": "user", "content": results}})
            parent = rid
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def banner(text: str) -> None:
    print(f"\n{'─' * 80}\n{text}\n{'─' * 80}")


def main(argv) -> int:
    keep = "--keep" in argv
    tmp = Path(tempfile.mkdtemp(prefix="rlm-mem-demo-"))
    memory, project, transcripts = tmp / "memory", tmp / "payments-app", tmp / "transcripts"
    for folder in (project, transcripts):
        folder.mkdir(parents=True)
    env = dict(os.environ, RLM_MEM_DIR=str(memory), CLAUDE_PROJECT_DIR=str(project))
    env.pop("CLAUDE_PLUGIN_DATA", None)

    banner("Session 1: a conversation is captured through the hooks")
    first = transcripts / "session-one.jsonl"
    write_transcript(first, "session-one", project, SESSION_1)
    base = {"session_id": "session-one", "transcript_path": str(first), "cwd": str(project)}
    codes = []
    for event, extra in (("SessionStart", {"source": "startup"}), ("UserPromptSubmit", {"prompt": SESSION_1[0][1]}),
                         ("Stop", {"stop_hook_active": False}), ("SessionEnd", {"reason": "prompt_input_exit"})):
        runs = fire(event, dict(base, **extra), env=env)
        codes += [r.returncode for r in runs]
        print(f"  {event:<17} exit {', '.join(str(r.returncode) for r in runs)}  "
              f"{', '.join(f'{1000 * r.seconds:.0f} ms' for r in runs)}")
    ingest = subprocess.run([str(BUNDLE / ".venv" / "bin" / "rlm-mem"), "ingest"], env=env, capture_output=True,
                            text=True)
    print("  rlm-mem ingest:  ", ingest.stdout.strip() or ingest.stderr.strip())

    banner("Session 2 starts: the context Claude receives (LiveHud + recalled memory)")
    second = transcripts / "session-two.jsonl"
    second.write_text("")
    base = {"session_id": "session-two", "transcript_path": str(second), "cwd": str(project)}
    start = fire("SessionStart", dict(base, source="startup"), env=env)
    print(start[0].context if start else "(no SessionStart hook)")

    prompt = "Which port does the staging database use, and where does the webhook secret live?"
    banner(f"Session 2, prompt: {prompt!r}\nThe context rlm-mem adds to it:")
    runs = fire("UserPromptSubmit", dict(base, prompt=prompt), env=env)
    print(runs[0].context or "(nothing recalled)")
    codes += [r.returncode for r in start + runs] + [ingest.returncode]
    if keep:
        print(f"\nThe demo's files are in {tmp}")
    else:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    ok = all(code == 0 for code in codes)
    print("\ndemo finished: every hook exited 0" if ok else f"\ndemo finished with non-zero exits: {codes}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
