"""A file's lines as a command printed them: `cat FILE` (its whole text), `grep [-n] PATTERN FILE`, `head` and
`tail` of it, `sed -n '1,20p' FILE` (some of its lines).

What a command showed of a file is what a Read shows: the values its keys had then (a Dockerfile's `ARG
OTP_VERSION=26.2.1`, seen only in `grep -n '^ARG' Dockerfile`, is the value a later rewrite replaced). Only a
command line that runs one such command on one file is read: which lines are whose is then certain.
"""
import re
import shlex

_LINE_NUMBER = re.compile(r"^\d+[:-]")  # grep -n's "12:" (a match) and "12-" (its context)
_PRINTS = frozenset(("cat", "head", "tail", "grep", "egrep", "sed"))
_GREP_VALUE_OPTIONS = frozenset(("-A", "-B", "-C", "-m", "-e", "--max-count", "--after-context", "--before-context",
                                 "--context", "--regexp"))
_COUNT_OPTIONS = frozenset(("-n", "-c"))  # head's and tail's, given apart from their number


def shown_file(command: str, output: str):
    """(path, text) of the file `command` printed some or all lines of, or None (see the module doc)."""
    line = (command or "").strip()
    if not output or line.split(" ", 1)[0] not in _PRINTS or "\n" in line or "`" in line or "$(" in line:
        return None  # (most commands are none of these: shlex only for those that are)
    try:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return None
    if not words or words[0] not in _PRINTS or any(set(word) <= set("|&;<>()") for word in words):
        return None  # (a pipe, a redirect, a second command: whose lines are whose is not certain)
    if words[0] in ("grep", "egrep") and any(w in ("--recursive", "--count", "--files-with-matches") or (
            w.startswith("-") and not w.startswith("--") and set(w) & set("rRlLc")) for w in words[1:]):
        return None  # lines of several files, or counts and names instead of lines
    path = _file_of(words)
    if path is None:
        return None
    lines = output.splitlines()
    if words[0] in ("grep", "egrep") and any(w.startswith("-") and not w.startswith("--") and "n" in w
                                             for w in words[1:]):  # -n, -En: each line opens with its number
        lines = [_LINE_NUMBER.sub("", text, count=1) for text in lines if text != "--"]
    return path, "\n".join(lines) + "\n"


def _file_of(words: list):
    """The one file a `cat`, `head`, `tail`, `grep` or `sed -n` command line names, or None."""
    tool, arguments, skip = words[0], [], False
    for word in words[1:]:
        if skip:
            skip = False
            continue
        if word.startswith("-") and len(word) > 1:
            skip = (tool in ("grep", "egrep") and word in _GREP_VALUE_OPTIONS) or \
                (tool in ("head", "tail") and word in _COUNT_OPTIONS)
            if tool == "sed" and word not in ("-n", "-E", "-r"):
                return None  # (`sed -i` edits: commands.sed_edits reads it)
            continue
        arguments.append(word)
    if tool == "sed" and "-n" not in words:
        return None
    if tool in ("grep", "egrep", "sed"):
        arguments = arguments[1:]  # the pattern, or the script
    return arguments[0] if len(arguments) == 1 else None
