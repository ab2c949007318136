"""What tool calls say: a commit's subject, the line of a failed call's output that names the failure, refusals
that teach nothing, the sentence that explains a fix, and the session's open work."""
from __future__ import annotations

import re

from brain.capture.rules import Case, Family, rule
from brain.util.text import clip


def _on_text(find, case: Case):
    return find(case.text)


COMMAND = Family("command", _on_text)  # a shell command line
OUTPUT = Family("output", _on_text)  # a failed tool call's output
EXPLANATION = Family("explanation", _on_text)  # one sentence of the assistant's
RECORD = Family("record", _on_text)  # one sentence of the assistant's, for the session record

# Global options may sit between "git" and "commit" ("git -C repo commit"); an option's value never starts
# with "-", which keeps this regex free of ambiguous (exponential) backtracking.
_GIT_COMMIT = re.compile(r"\bgit\b(?:\s+-\S+(?:\s+[^-\s]\S*)?)*?\s+commit\b")
_HEREDOC_MSG = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?\s*\n(.*?)\n\s*\1\b", re.DOTALL)
_DASH_M = re.compile(r"(?:^|\s)(?:-[a-zA-Z]*m|--message)(?:\s+|=)(?:\"((?:[^\"\\]|\\.)*)\"|'([^']*)'|(\S+))")


@rule(COMMAND, catches=[Case('git commit -m "Fix the login redirect"', gives="Fix the login redirect"),
                        Case('git -C repo commit --message="Tidy imports"', gives="Tidy imports"),
                        Case("git commit -m \"$(cat <<'EOF'\nAdd the exporter\n\nCo-Authored-By: Someone\nEOF\n)\"",
                             gives="Add the exporter")],
      leaves=["git status", "git log --grep commit", "git commit", "echo commit -m x"])
def commit_message(command: str) -> str | None:
    """Subject line of a `git commit` command's message, or None when the command is not a commit with one."""
    commit = _GIT_COMMIT.search(command)
    if not commit:
        return None
    heredoc = _HEREDOC_MSG.search(command, commit.end())
    if heredoc:
        message = heredoc.group(2)
    else:
        m = _DASH_M.search(command, commit.end())
        if not m:
            return None
        message = next(g for g in m.groups() if g is not None).replace('\\"', '"')
    subject = next((line.strip() for line in message.splitlines() if line.strip()), "")
    return clip(subject, 200) or None


_TEST_COMMAND = re.compile(
    r"\b(?:pytest|py\.test|unittest|tox|nox|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test|jest|vitest|mocha|"
    r"cargo\s+test|go\s+test|make\s+(?:test|check)|mvn\s+test|gradle\w*\s+test|rspec|phpunit|ctest|dotnet\s+test)"
    r"(?![\w.-])"  # not pytest.ini, pytest-cov
)


@rule(COMMAND, catches=["pytest -q", "cd web && pnpm test", "go test ./...", "./gradlew test"],
      leaves=["ls tests", "pip install pytest-cov", "cat pytest.ini"])
def runs_tests(command: str) -> bool:
    """A command that runs a test suite."""
    return bool(_TEST_COMMAND.search(command))


_PASSED = re.compile(r"\b(\d+)\s+(?:passed|passing|tests? passed)\b", re.IGNORECASE)
_FAILED = re.compile(r"\b[1-9]\d*\s+(?:failed|failing|errors?)\b|\bFAILED\b|^FAIL\b", re.MULTILINE)
_GO_OK = re.compile(r"^ok\s+\S+", re.MULTILINE)


@rule(OUTPUT, catches=[Case("12 passed in 1.1s", gives="12"), "Tests:       4 passed, 4 total",
                       Case("ok  \texample.com/pkg\t0.01s", gives="all")],
      leaves=["3 failed, 9 passed in 1.2s", "5 passed, 1 error", "FAILED tests/test_a.py::test_b"])
def tests_passed(output: str) -> str | None:
    """How many tests a run passed ("all" when it does not count them), None unless all passed."""
    if _FAILED.search(output):
        return None
    passed = _PASSED.findall(output)
    if passed:
        return passed[-1]
    return "all" if _GO_OK.search(output) else None


_ERROR_LINE = re.compile(r"error|exception|failed|fatal|not found|denied|cannot|can't|no such|refused|"
                         r"timed out|invalid|missing|traceback", re.IGNORECASE)


@rule(OUTPUT, catches=[Case("Exit code 1\nnpm ERR! missing script: build", gives="npm ERR! missing script: build"),
                       Case("Traceback (most recent call last):\n  File \"a.py\"\nE   ModuleNotFoundError: No module "
                            "named 'responses'", gives="ModuleNotFoundError: No module named 'responses'")],
      leaves=["Exit code 1", "Exit code 2\nwarning: 3 files reformatted"])
def failure_line(output: str) -> str | None:
    """The line of a failed call's output that names the failure: the last error-looking line (a traceback ends
    with the exception; pytest's "E   " and Claude Code's "Exit code N" set aside)."""
    flagged = [line for line in output_lines(output) if _ERROR_LINE.search(line)]
    return clip(flagged[-1], 150) if flagged else None


def output_lines(output: str) -> list:
    """A tool output's non-blank lines, without pytest's "E   " prefix and Claude Code's "Exit code N" line."""
    lines = [re.sub(r"^E\s{2,}", "", line.strip()) for line in output.splitlines() if line.strip()]
    return [line for line in lines if not re.fullmatch(r"(?i)exit code \d+", line)]


# Routine tool refusals that teach nothing: Claude just reads the file again or the person said no.
_ROUTINE_ERROR = re.compile(r"has not been read yet|string to replace not found|modified since read|"
                            r"doesn'?t want to (?:proceed|take this action)|was rejected|interrupted by user|"
                            r"found \d+ matches of the string|inputvalidationerror|file does not exist",
                            re.IGNORECASE)


@rule(OUTPUT, catches=["String to replace not found in file.", "The user doesn't want to proceed with this tool use.",
                       "File has not been read yet. Read it first before writing to it."],
      leaves=["Error: permission denied", "fatal: not a git repository"])
def routine_refusal(output: str) -> bool:
    """A refusal of the tool itself (a stale read, a rejected call), not a failure of the work."""
    return bool(_ROUTINE_ERROR.search(output))


_FIX_CUE = re.compile(r"\b(?:the (?:issue|problem|error|bug|cause) (?:was|is)|fixed|the fix|caused by|because|"
                      r"root cause|turns out|needed to|need to|was missing|resolved)\b", re.IGNORECASE)


@rule(EXPLANATION, catches=["The error is because package.json has no build script; I'll add one.",
                            "The problem was a local Postgres already using port 5432.",
                            "Turns out the responses package was missing."],
      leaves=["Let me look at the logs.", "All 12 tests pass now."])
def explains_fix(sentence: str) -> bool:
    """A sentence explaining what went wrong or what fixed it."""
    return bool(_FIX_CUE.search(sentence))


# "TODO" only in capitals: "todo list" is how Claude talks about its own tracker.
_FOLLOW_UP = re.compile(r"(?i:\bnext steps?\b|\bfollow[- ]?ups?\b|\bremaining\b)|\bTODO\b")


@rule(RECORD, catches=["Next step: document the retry settings in the README.", "TODO: wire the Postmark sender.",
                       "The remaining work is updating the changelog."],
      leaves=["I updated the todo list.", "Stepped through the next function."])
def follow_up(sentence: str) -> bool:
    """A sentence naming work left for later."""
    return bool(_FOLLOW_UP.search(sentence))
