"""One record per session: what was asked, the files touched, the commands run, how it ended and what is left.

Stdlib only: capture hooks import this module.
"""
from __future__ import annotations

from dataclasses import dataclass

from brain.capture.learnings import command_key
from brain.capture.rules.sentences import prose_lines, split_sentences
from brain.capture.rules.tool_events import follow_up, runs_tests, tests_passed
from brain.capture.tool_calls import EDIT_TOOLS, READ_TOOLS
from brain.capture.tools.checklists import open_checklist_items
from brain.capture.transcript import Turn
from brain.util.text import clip, sentences

_MAX_COMMANDS = 20
_MAX_FOLLOW_UPS = 10
_MAX_DONE = 12


@dataclass(frozen=True)
class SessionRecord:
    session_id: str | None
    intent: str
    files_edited: tuple[str, ...]
    files_read: tuple[str, ...]
    commands: tuple[str, ...]
    outcome: str
    follow_ups: tuple[str, ...]
    started: str | None
    ended: str | None
    user_turns: int = 0
    assistant_turns: int = 0
    tool_errors: int = 0
    abandoned_turns: int = 0  # on branches the conversation was rewound past: left out of everything above
    failed_commands: tuple[str, ...] = ()  # commands whose last run failed (marked so in the text)
    tests_passed: tuple[str, ...] = ()  # "`pytest -q` (12 passed)": each test command whose last run passed
    done: tuple[str, ...] = ()  # the todo list's items completed in the session (what was done, not a memory each)

    def to_text(self) -> str:
        """A compact paragraph for storage: when, what was asked, what was done, how it ended, what is left."""
        when = _span(self.started, self.ended)
        parts = [f"Session{' ' + when if when else ''}{f' ({self.session_id})' if self.session_id else ''}."]
        if self.intent:
            parts.append(f"Intent: {self.intent}")
        if self.files_edited:
            parts.append(f"Files changed: {_list(self.files_edited, 12)}.")
        if self.files_read:
            parts.append(f"Files read: {_list(self.files_read, 8)}.")
        if self.commands:
            parts.append("Commands: " + "; ".join(f"`{c}`" + (" (failed)" if c in self.failed_commands else "")
                                                  for c in self.commands[:8])
                         + (f" (+{len(self.commands) - 8} more)" if len(self.commands) > 8 else "") + ".")
        if self.tests_passed:
            parts.append("Tests passed: " + "; ".join(self.tests_passed[:5]) + ".")
        if self.done:
            parts.append("Done: " + "; ".join(d.rstrip(" .;") for d in self.done[:_MAX_DONE]) + ".")
        if self.outcome:
            parts.append(f"Outcome: {self.outcome}")
        if self.follow_ups:
            parts.append("Follow-ups: " + "; ".join(f.rstrip(" .;") for f in self.follow_ups) + ".")
        if self.abandoned_turns:
            parts.append(f"Rewound: {self.abandoned_turns} turns of an abandoned branch left out.")
        return " ".join(_end_sentence(p) for p in parts)


def _end_sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _list(items, limit: int) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def _span(started: str | None, ended: str | None) -> str:
    if not started:
        return ""
    start = started[:16].replace("T", " ")
    if not ended or ended == started:
        return start + " UTC"
    end = ended[11:16] if ended[:10] == started[:10] else ended[:16].replace("T", " ")
    return f"{start}–{end} UTC"


def _first_sentences(text: str, limit: int) -> str:
    out = ""
    for line in prose_lines(text):
        for part in sentences(line):
            candidate = f"{out} {part}".strip()
            if len(candidate) > limit:
                return out or clip(part, limit)
            out = candidate
            if len(out) >= limit // 2:
                return out
    return out


def _unique(items) -> list:
    seen = set()
    return [x for x in items if not (x in seen or seen.add(x))]


def session_record(turns: list[Turn]) -> SessionRecord | None:
    """Intent, files touched, commands, tests passed, todos done, outcome and follow-ups of the main chain; None
    when nothing happened. A command whose last run failed is listed with "(failed)"; a test command whose last
    run passed, with how many tests passed."""
    abandoned = sum(1 for t in turns if t.abandoned and not t.is_sidechain)
    main = [t for t in turns if not t.is_sidechain and not t.abandoned]
    user_turns = [t for t in main if t.role == "user" and not t.is_compact_summary and t.text]
    assistant_turns = [t for t in main if t.role == "assistant"]
    if not user_turns and not any(t.tool_uses for t in assistant_turns):
        return None

    uses = [u for t in assistant_turns for u in t.tool_uses]
    edited = _unique(u.file_path for u in uses if u.name in EDIT_TOOLS and u.file_path)
    read = [p for p in _unique(u.file_path for u in uses if u.name in READ_TOOLS and u.file_path)
            if p not in edited]
    commands = _unique(clip(u.command, 120) for u in uses if u.command and u.command.strip())[:_MAX_COMMANDS]
    last_run = {clip(u.command, 120): u.ok for u in uses if u.command}  # the last run of each command decides

    intent = clip(user_turns[0].text, 200) if user_turns else ""
    texts = [t.text for t in assistant_turns if t.text and not t.is_compact_summary]
    outcome = _first_sentences(texts[-1], 300) if texts else ""

    follow_ups: list[str] = []
    todo_lists = [u.todos for u in uses if u.name == "TodoWrite"]
    done = _unique(clip(t.content, 160) for todos in todo_lists for t in todos if t.status == "completed")
    if todo_lists:
        follow_ups += [t.content for t in todo_lists[-1] if t.status in ("pending", "in_progress")]
    follow_ups += open_checklist_items(uses)  # a TODO.md's `- [ ]` lines: open work in a file format
    for text in texts[-3:]:
        follow_ups += [clip(s.text, 200) for s in split_sentences(text) if follow_up(s.text)]
    follow_ups = _unique(clip(f, 200) for f in follow_ups)[:_MAX_FOLLOW_UPS]

    stamps = [t.timestamp for t in main if t.timestamp]
    tests = {}  # the last run of each test command decides
    for use in uses:
        if use.command and runs_tests(use.command) and use.ok is not None:
            passed = tests_passed(use.result) if use.ok else None
            tests.pop(command_key(use), None)
            tests[command_key(use)] = None if passed is None else \
                f"`{clip(use.command, 120)}`" + (f" ({passed} passed)" if passed.isdigit() else "")
    return SessionRecord(
        session_id=next((t.session_id for t in main if t.session_id), None),
        intent=intent,
        files_edited=tuple(edited),
        files_read=tuple(read),
        commands=tuple(commands),
        outcome=outcome,
        follow_ups=tuple(follow_ups),
        started=min(stamps) if stamps else None,
        ended=max(stamps) if stamps else None,
        user_turns=len(user_turns),
        assistant_turns=len(assistant_turns),
        tool_errors=sum(len(t.tool_errors) for t in main),
        abandoned_turns=abandoned,
        failed_commands=tuple(c for c in commands if last_run.get(c) is False),
        tests_passed=tuple(t for t in tests.values() if t),
        done=tuple(done),
    )
