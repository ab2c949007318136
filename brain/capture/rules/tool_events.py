"""What tool calls say: a commit's subject, the line of a failed call's output that names the failure, refusals
that teach nothing, the sentence that explains a fix, and the session's open work."""
from __future__ import annotations

import re

from brain.capture.rules import Case, Family, on_text, rule
from brain.util.text import clip

COMMAND = Family("command", on_text)  # a shell command line
OUTPUT = Family("output", on_text)  # a failed tool call's output
EXPLANATION = Family("explanation", on_text)  # one sentence of the assistant's
RECORD = Family("record", on_text)  # one sentence of the assistant's, for the session record

# Global options may sit between "git" and "commit" ("git -C repo commit"); an option's value never starts
# with "-", which keeps this regex free of ambiguous (exponential) backtracking.
_GIT_COMMIT = re.compile(r"\bgit\b(?:\s+-\S+(?:\s+[^-\s]\S*)?)*?\s+commit\b")
_HEREDOC_MSG = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?\s*\n(.*?)\n\s*\1\b", re.DOTALL)
_DASH_M = re.compile(r"(?:^|\s)(?:-[a-zA-Z]*m|--message)(?:\s+|=)(?:\"((?:[^\"\\]|\\.)*)\"|'([^']*)'|(\S+))")


def _subject(command: str, at: int) -> str | None:
    """Subject line of the message of the `git commit` whose options start at `at`, or None when it gives none."""
    heredoc = _HEREDOC_MSG.search(command, at)
    if heredoc:
        message = heredoc.group(2)
    else:
        m = _DASH_M.search(command, at)
        if not m:
            return None
        message = next(g for g in m.groups() if g is not None).replace('\\"', '"')
    subject = next((line.strip() for line in message.splitlines() if line.strip()), "")
    return clip(subject, 200) or None


_GIT_ADD = re.compile(r"\bgit\b(?:\s+-C\s+\S+)?\s+(?:add|rm)\b([^;&|\n]*)")
_ALL_FLAGS = frozenset("-A --all -u --update .".split())


@rule(COMMAND, catches=[Case('git commit -m "Fix the login redirect"', gives=[("Fix the login redirect", None)]),
                        Case('git -C repo commit --message="Tidy imports"', gives=[("Tidy imports", None)]),
                        Case("git commit -m \"$(cat <<'EOF'\nAdd the exporter\n\nCo-Authored-By: Someone\nEOF\n)\"",
                             gives=[("Add the exporter", None)]),
                        Case("git add app/x.rb db/schema.rb && git commit -m 'slots' && git add -A && "
                             "git commit -m 'lint'",
                             gives=[("slots", ("app/x.rb", "db/schema.rb")), ("lint", None)]),
                        Case("git commit -qam 'bump'", gives=[("bump", None)])],
      leaves=["git status", "git log --grep commit", "git commit", "echo commit -m x", "git add -A"])
def commits(command: str) -> list:
    """(subject, the paths staged for it) of each commit of a command line, in order; None for the paths when the
    commit takes all that changed (`-a`, `git add -A` or `.`, or no `git add` before it in the line)."""
    out, start = [], 0
    for commit in _GIT_COMMIT.finditer(command):
        subject = _subject(command, commit.end())
        if subject is None:
            continue
        staged: list | None = []
        for add in _GIT_ADD.finditer(command, start, commit.start()):
            arguments = [a.strip("'\"") for a in add.group(1).split()]
            if _ALL_FLAGS & set(arguments):
                staged = None
                break
            staged += [a.rstrip("/") for a in arguments if a and not a.startswith("-")]
        if not staged or _commits_all(command, commit.end()):
            staged = None
        out.append((subject, tuple(staged) if staged is not None else None))
        start = commit.end()
    return out


def _commits_all(command: str, at: int) -> bool:
    """Whether the commit whose options start at `at` takes every tracked change (`-a`, `-qam`, `--all`)."""
    options = re.split(r"[\"'<$]", command[at:at + 200], maxsplit=1)[0]
    flags = re.findall(r"(?<!\S)-[-\w]+", options)
    return any(flag == "--all" or (not flag.startswith("--") and "a" in flag[1:]) for flag in flags)


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
# A status line says a run failed, not why: counts ("1 failed, 3 passed"), an exit code, a build's, task's or
# hook's verdict. The words such lines are made of, and the forms a few tools print them in:
_STATUS_WORDS = frozenset("passed failed failing fail failure failures error errors err skipped skip total tests test "
                          "checks check pass warn warning warnings done completed complete build with exception "
                          "process exit code task step files file run runs found fixed remaining ok summary "
                          "collected succeeded assertions assertion suites suite examples example pending specs "
                          "duration time seconds took elapsed".split())
_STATUS_FORMS = re.compile(r"^make(?:\[\d+\])?: \*\*\*|^\*\*\* \[[^\]]*\] Error \d+|^(?:---\s*)?FAIL\b|"
                           r"\bTask :\S+ FAILED\b|(?<!\.)\.{3,}\s*Failed$|"
                           r"^npm ERR! code\b|^ERR_PNPM_\w+$|^(?:\S+\s)?ELIFECYCLE\b|"
                           # a checker's count of what it found: "svelte-check found 1 error and 0 warnings in 1 file",
                           # tsc's "Found 3 errors in 2 files.", eslint's "5 problems (5 errors, 0 warnings)"
                           r"\b[Ff]ound \d+ (?:errors?|problems?|issues?)\b|\b\d+ problems? \(\d+ errors?|"
                           # a tally of counts: "Failed: 8 failure(s), 0 warning(s) on 52 files", "2 errors, 1 warning"
                           r"\b\d+ (?:failure|error|warning|violation|offen[cs]e)s?(?:\(s\))?,")


def _says_why(line: str) -> bool:
    words = re.findall(r"[A-Za-z][A-Za-z_'-]{2,}", line)
    return not _STATUS_FORMS.search(line) and any(w.lower() not in _STATUS_WORDS for w in words)


@rule(OUTPUT, catches=[Case("Exit code 1\nnpm ERR! missing script: build", gives="npm ERR! missing script: build"),
                       Case("Traceback (most recent call last):\n  File \"a.py\"\nE   ModuleNotFoundError: No module "
                            "named 'responses'", gives="ModuleNotFoundError: No module named 'responses'"),
                       Case("E   AssertionError: assert 3 == 4\n1 failed, 3 passed in 0.52s",
                            gives="AssertionError: assert 3 == 4"),
                       Case("KeyError:\n'plan_id'", gives="KeyError: 'plan_id'"),
                       Case("** (Postgrex.Error) ERROR 42704 (undefined_object) type \"citext\" does not exist\n"
                            "    (ecto_sql 3.11.1) lib/ecto/adapters/sql.ex:1054: "
                            "Ecto.Adapters.SQL.raise_sql_call_error/1",
                            gives="** (Postgrex.Error) ERROR 42704 (undefined_object) type \"citext\" does not exist"),
                       Case("TypeError: fetch failed\n    at node:internal/deps/undici:12345:11\n"
                            "    at async handleError (/app/src/errors.js:3:1)", gives="TypeError: fetch failed"),
                       Case("src/main.cpp:4:10: fatal error: secrets.h: No such file or directory\n"
                            "===== [FAILED] Took 3.41 seconds =====",
                            gives="src/main.cpp:4:10: fatal error: secrets.h: No such file or directory"),
                       Case("build (esp32)\tBuild\t2024-03-23T21:14:55.6820015Z src/net.cpp:9:10: fatal error: "
                            "secrets.h: No such file or directory\nbuild (esp32)\tBuild\t2024-03-23T21:14:55.70Z "
                            "*** [.pio/build/esp32/src/net.cpp.o] Error 1\nbuild (esp32)\tBuild\t"
                            "2024-03-23T21:14:55.73Z ===== [FAILED] Took 147.83 seconds =====",
                            gives="src/net.cpp:9:10: fatal error: secrets.h: No such file or directory")],
      leaves=["Exit code 1", "Exit code 2\nwarning: 3 files reformatted", "1 failed, 3 passed in 0.52s",
              "FAILURE: Build failed with an exception.", "make: *** [Makefile:10: lint] Error 1",
              "##[error]Process completed with exit code 4.", "Tests 7 failed (7)", "404",
              "17 checks passed. 1 checks failed", " ELIFECYCLE  Command failed with exit code 1.",
              "Tests:  1 failed, 60 passed (812 assertions)",
              "Test Suites: 1 failed, 4 passed, 5 total", "3 examples, 1 failure, 1 pending",
              "svelte-check found 1 error and 0 warnings in 1 file", "Found 3 errors in 2 files.",
              "✖ 5 problems (5 errors, 0 warnings)",
              "Failed: 8 failure(s), 0 warning(s) on 52 files. Last profile that met the validation criteria was "
              "'min'.", "========== [FAILED] Took 38.77 seconds =========="])
def failure_line(output: str) -> str | None:
    """The line of a failed call's output that says what went wrong: the last error-looking line that is more than
    a status (a traceback ends with its exception; "1 failed, 3 passed" says only that it failed); a line ending
    in ":" with the line after it. pytest's "E   " and Claude Code's "Exit code N" set aside."""
    lines = output_lines(output)
    lines = [f"{line} {lines[i + 1]}" if line.endswith(":") and i + 1 < len(lines) else line
             for i, line in enumerate(lines)]
    flagged = [line for line in lines if _ERROR_LINE.search(line) and _says_why(line) and not _STACK_FRAME.match(line)]
    return clip(flagged[-1], 150) if flagged else None


# A traceback's frame says where, not what: Elixir's "(ecto_sql 3.11.1) lib/ecto/adapters/sql.ex:1054: ...",
# Python's `File "a.py", line 3`, JavaScript's, Java's, .NET's and Rust's "at ...", Ruby's "from x.rb:12:in",
# Go's "/src/main.go:12 +0x1d"
_STACK_FRAME = re.compile(r"\([\w.-]+ [\w.+-]+\) \S+:\d+:|File \"[^\"]+\", line \d+|"
                          r"at (?:async |new )?\S+ \([^)]*:\d+(?::\d+)?\)|"
                          r"at [\w$.<>`]+\(|at \S+:\d+|from \S+:\d+:in\b|/\S+\.go:\d+ \+0x")


def output_lines(output: str) -> list:
    """A tool output's non-blank lines, without pytest's "E   " prefix, a CI log's job, step and time stamp
    (`gh run view --log`: "build\tCompile\t2024-03-23T21:14:55.68Z src/net.cpp:9:10: fatal error: ...") and Claude
    Code's "Exit code N" line."""
    lines = [re.sub(r"^E\s{2,}", "", _CI_LOG_PREFIX.sub("", line).strip()) for line in output.splitlines()
             if line.strip()]
    return [line for line in lines if line and not re.fullmatch(r"(?i)exit code \d+", line)]


_CI_LOG_PREFIX = re.compile(r"^(?:[^\t\n]{0,80}\t[^\t\n]{0,80}\t)?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?")


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


_CAUSE = re.compile(r"\b(?:because|the (?:issue|problem|error|bug|cause) (?:was|is)|caused by|root cause|turns out|"
                    r"(?:was|is|were|are) missing|due to|only (?:supports|works|exists)|requires|isn't set|"
                    r"wasn't set)\b",
                    re.IGNORECASE)


@rule(EXPLANATION, catches=["The error is because package.json has no build script; I'll add one.",
                            "The problem was a local Postgres already using port 5432.",
                            "Turns out the responses package was missing.",
                            "@fastify/rate-limit 10 only supports Fastify 5."],
      leaves=["Let me look at the logs.", "All 12 tests pass now.", "uv lock resolved in 2.3 seconds.",
              "I created a queue called notifications."])
def explains_cause(sentence: str) -> bool:
    """A sentence saying why something failed."""
    return bool(_CAUSE.search(sentence))


_CHANGE_VERBS = (r"add|change|set|move|pin|install|upgrade|downgrade|remove|rename|replace|switch|bump|raise|lower|"
                 r"fix|convert|drop|enable|disable|import|wrap|revert|restore|regenerate|rebuild|delete|exclude|"
                 r"register|point|correct|create")
# A fix is said by whoever made it: a verb of change opening the sentence or a clause ("Pinned 3.12", "...; I set
# line-length = 100"), after "I"/"we" ("so I converted it"), or "X now takes Y". The same verb said of something
# else is the cause ("Flyway 10, which moved database support out", "we're pinned to 1.79", "rollForward disabled").
_FIX_VERBS = (r"added|changed|set|moved|pinned|installed|upgraded|downgraded|removed|renamed|replaced|switched|"
              r"bumped|raised|lowered|fixed|gave|converted|dropped|enabled|disabled|imported|wrapped|reverted|"
              r"restored|regenerated|rebuilt|deleted|excluded|registered|pointed|corrected|applied|configured|"
              r"adjusted|increased|decreased|reduced|extended|limited|capped|mounted|exported|declared|defined|"
              r"marked|allowed|granted|created|wired|turned|made|started|restarted")
_FIX = re.compile(rf"(?:^|[;:,.!]\s+|\b(?:i|we)(?:'ve| have)?\s+(?:also\s+|then\s+|just\s+)?|\b(?:so|then|and)\s+)"
                  rf"(?:{_FIX_VERBS})\b|\bnow (?:takes|uses|runs|points|reads|listens|starts|calls|has|sets)\b|"
                  r"\bthe fix (?:is|was)\b", re.IGNORECASE)
_PROMISED_FIX = re.compile(rf"\b(?:i'll|i will|let me|we'll)\s+(?:\w+\s+)?(?:{_CHANGE_VERBS})\b", re.IGNORECASE)


@rule(EXPLANATION, catches=["I added `CREATE EXTENSION IF NOT EXISTS btree_gist;` at the top of the migration.",
                            "I installed dotenv-cli and committed pnpm-lock.yaml.",
                            "hatch.Client now takes a *slog.Logger.", "Fixed the query and ran sqlc generate again.",
                            "package.json has no build script; I'll add one."],
      leaves=["The test run failed before a single test ran.", "We can either pin the plugin or upgrade Fastify.",
              "I ran the whole suite with bundle exec rspec.",
              "The build stops because aws-sdk-s3 requires rustc 1.81 and we're pinned to 1.79.",
              "Boot 3.3 brings Flyway 10, which moved database support into separate modules.",
              "global.json pins SDK 8.0.204 with rollForward disabled.",
              "Let me look at the logs.", "Changing the toolchain to 1.22.7 would clear it."])
def states_fix(sentence: str) -> str | None:
    """A sentence saying what was changed ("done"), or is being changed ("promised"), to make it work; None for
    one that offers ("we can either pin ... or ...", "that would clear it")."""
    if _OFFER.search(sentence):
        return None
    return "done" if _FIX.search(sentence) else "promised" if _PROMISED_FIX.search(sentence) else None


_OFFER = re.compile(r"\b(?:we|you|i) (?:can|could|should|might) (?:either\b)?|\beither\b.*\bor\b|\bwould\b",
                    re.IGNORECASE)

_CHANGING_COMMAND = re.compile(
    r"\b(?:npm|pnpm|yarn|bun|pip3?|uv|poetry|cargo|gem|bundle|go|dotnet|brew|apt(?:-get)?|composer|conda)\b"
    r"[^|;&\n]*?\b(?:add|install|remove|rm|uninstall|upgrade|update|pin|get)\b|\bsed\s+-i\b")


@rule(COMMAND, catches=["uv add sentencepiece==0.2.0", "cd web && pnpm add -D dotenv-cli",
                        "bundle update selenium-webdriver", "sed -i 's/a/b/' app.env",
                        "uv python pin 3.12 && uv python install 3.12"],
      leaves=["sinfo -s", "./gradlew ktlintCheck test", "git log --oneline -3", "pip list",
              "cargo tree -i openssl-sys"])
def changes_something(command: str) -> bool:
    """A command that changes the project (a dependency added, removed or upgraded; a file edited in place), as
    opposed to one that reads or runs it."""
    return bool(_CHANGING_COMMAND.search(command))


# "TODO" only in capitals: "todo list" is how Claude talks about its own tracker.
_FOLLOW_UP = re.compile(r"(?i:\bnext steps?\b|\bfollow[- ]?ups?\b|\bremaining\b)|\bTODO\b")


@rule(RECORD, catches=["Next step: document the retry settings in the README.", "TODO: wire the Postmark sender.",
                       "The remaining work is updating the changelog."],
      leaves=["I updated the todo list.", "Stepped through the next function."])
def follow_up(sentence: str) -> bool:
    """A sentence naming work left for later."""
    return bool(_FOLLOW_UP.search(sentence))
