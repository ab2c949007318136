"""Learnings: a tool call that failed, why, and the change that made it work.

A failed call (a command, not a file tool; not a refusal of the tool itself) opens an error. It is closed when the
assistant explains it (a sentence naming the error's words that says why, and one that says what was changed) or
when a similar call later succeeds after a change (an edit whose lines the call summary names, a command that adds,
removes or upgrades something). It becomes a learning only with both halves: the cause (the output's line saying
what went wrong, or the sentence saying why) and the fix (the sentence or the change). A failure fixed by running
the same thing again, or explained by words that are about something else, teaches nothing and is dropped.

Stdlib only: capture hooks import this module.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from brain.capture.rules.sentences import split_sentences
from brain.capture.rules.tool_events import changes_something, explains_cause, failure_line, routine_refusal, states_fix
from brain.capture.tool_calls import EDIT_TOOLS, READ_TOOLS
from brain.capture.transcript import Turn
from brain.util.text import STOPWORDS, clip

MAX_OPEN = 20  # errors waiting at once: older ones are forgotten
_FILE_TOOLS = EDIT_TOOLS | READ_TOOLS | {"Glob", "Grep", "LS", "TodoWrite"}
_SHELL_SEPARATORS = re.compile(r"&&|\|\||;|\n")
_WORD = re.compile(r"[a-z0-9][a-z0-9_-]*")  # "reply.getResponseTime()" names getresponsetime
# Words every failure shares: a sentence holding only these is not about this failure.
_GENERIC = STOPWORDS | frozenset("error errors failed fails fail failure exception exit code build run runs ran "
                                 "line file command output now test tests spec specs "
                                 "py js ts go rb rs kt cs sh md yml yaml json toml "  # file endings
                                 "add install remove update upgrade exec npm pnpm yarn npx pip uv poetry cargo "
                                 "make docker compose git bash cd sudo".split())  # words of every command line


@dataclass(frozen=True)
class Learning:
    content: str
    turn: Turn  # where it was learned: the explanation, or the call that then worked
    position: int


@dataclass
class _OpenError:
    key: str  # the call's program and subcommand: a later call with the same key tries it again
    command: str
    line: str | None  # the output's line saying what went wrong, when it says more than a status
    turn: Turn
    because: str = ""  # the assistant's sentence saying why
    fix: str = ""  # the assistant's sentence saying what was changed
    explained_in: Turn | None = None
    explained_at: int = 0
    changes: list = field(default_factory=list)  # edits and changing commands made since the failure

    def words(self, of_line: bool = False) -> set:
        """The words naming this error: of its output line (and, unless `of_line`, of the failing command)."""
        said = self.line or "" if of_line else f"{self.line or ''} {self.command}"
        return {w for w in _WORD.findall(said.lower()) if len(w) > 1 and not w.isdigit()} - _GENERIC

    def learning(self, turn: Turn, position: int) -> Learning | None:
        cause = self.line or self.because
        wanted = self.words()  # the changes naming the error's words, when some do
        related = [c for c in self.changes if wanted & set(_WORD.findall(c.lower()))] or self.changes
        changes = "; ".join(related[:3])
        fix = changes if changes and states_fix(self.fix) != "done" else self.fix  # what was done, over a promise
        if not cause or not fix:
            return None
        why = f" — {clip(self.because, 150)}" if self.because and self.line and self.because != fix else ""
        content = f"Error: {clip(cause, 150)}{why} — fixed by: {clip(fix, 180)}"
        return Learning(content, turn, position)


def command_key(use) -> str:
    """Commands count as "similar" when their main part starts with the same program and subcommand.

    The main part is the last `&&`/`;` segment ("cd repo && pytest") before any pipe ("pytest | tail").
    """
    if use.command:
        segments = [s for s in _SHELL_SEPARATORS.split(use.command) if s.strip()]
        main = segments[-1].split("|")[0] if segments else ""
        words = [w for w in main.split() if not w.startswith("-") and "=" not in w]
        return "Bash:" + " ".join(words[:2])
    return f"{use.name}:{use.file_path or ''}"


class Learnings:
    """The errors of one session waiting for their cause and fix, in the order the session made them."""

    def __init__(self):
        self.open: list[_OpenError] = []

    def explained(self, turn: Turn, position: int) -> None:
        """Read an assistant turn's sentences for the errors still unexplained: the first sentence about an
        error (sharing its words) that says why, and a sentence from there on (at most two further) saying what
        was changed; failing a why, the first sentence about it that says what was changed."""
        waiting = [e for e in self.open if not e.fix]
        if not waiting:
            return
        said = [s.text for s in split_sentences(turn.text) if not s.is_question]
        for error in waiting:  # sentences naming the failure's own words first, then the command's
            about = [i for i, text in enumerate(said) if error.words(of_line=True) & set(_WORD.findall(text.lower()))]
            about = about or [i for i, text in enumerate(said) if error.words() & set(_WORD.findall(text.lower()))]
            because = next((i for i in about if explains_cause(said[i])), None)
            start = because if because is not None else next((i for i in about if states_fix(said[i])), None)
            if start is None:
                continue
            error.because = error.because or (said[because] if because is not None else "")
            error.fix = next((said[i] for i in range(start, min(start + 3, len(said))) if states_fix(said[i])), "")
            if error.fix or error.explained_in is None:
                error.explained_in, error.explained_at = turn, position

    def tool_call(self, use, turn: Turn, position: int) -> list[Learning]:
        """Open an error on a failed call; close the errors of a similar call that now works."""
        if use.name in _FILE_TOOLS:
            if use.name in EDIT_TOOLS and " → " in use.summary:  # an edit whose summary shows its lines
                self._changed("editing " + use.summary.split(": ", 1)[-1])
            return []
        key = command_key(use)
        if use.ok is False:
            if not routine_refusal(use.result):
                line = failure_line(use.result)
                if all((e.key, e.line) != (key, line) for e in self.open):
                    self.open.append(_OpenError(key, clip(use.command or use.summary, 100), line, turn))
                    del self.open[:-MAX_OPEN]
            return []
        if use.ok is not True:
            return []
        done = [e for e in self.open if e.key == key]
        for error in done:
            self.open.remove(error)
        if use.command and changes_something(use.command):
            self._changed(f"running `{clip(use.command, 100)}`")
        return [learned for learned in (e.learning(turn, position) for e in done) if learned]

    def remaining(self) -> list[Learning]:
        """Errors the assistant explained, cause and fix, that no similar call followed."""
        return [learned for learned in (e.learning(e.explained_in, e.explained_at) for e in self.open
                                        if e.explained_in is not None) if learned]

    def _changed(self, what: str) -> None:
        for error in self.open:
            if what not in error.changes:
                error.changes.append(what)
