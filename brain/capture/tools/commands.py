"""What a shell command changes or shows: a `sed s/old/new/` substitution's values (as an edit's) and the files
it edits in place, packages removed and others added in one command line, and a tool's version a version command
prints (`node -v`, `terraform version`).
"""
import re

from brain.capture.tools.edits import edit_changes
from brain.capture.tools.packages import named, swapped


# A substitution a command makes in a file: sed 's/connection_limit=5/connection_limit=15/' (any delimiter).
_SED = re.compile(r"\bsed\b[^|;&]*?\bs(?P<d>[/|#,])(?P<old>(?:\\.|(?!(?P=d)).)+)(?P=d)"
                  r"(?P<new>(?:\\.|(?!(?P=d)).)*)(?P=d)")
# Packages removed and others added in one command line ("pnpm remove zod && pnpm add @sinclair/typebox",
# "pip uninstall -y celery && pip install arq"): the added ones replace the removed ones.
_PACKAGE_VERB = re.compile(r"^\s*(?:sudo\s+)?(?P<tool>pnpm|npm|yarn|bun|pip3?|uv(?:\s+pip)?|poetry|cargo)\s+"
                           r"(?P<verb>remove|rm|uninstall|un|add|install|i)\b(?P<args>.*)$")
_REMOVE_VERBS = frozenset({"remove", "rm", "uninstall", "un"})


_COMMAND_BREAK = re.compile(r"&&|;|\|\|")


def _commands(command: str) -> list:
    """The commands of a command line, split where one ends and the next begins (`&&`, `;`, `||`)."""
    return _COMMAND_BREAK.split(command)


def _package_name(arg: str) -> str:
    """A package argument without its version: @scope/name@5 -> @scope/name, celery==5.3 -> celery."""
    if arg.startswith("@"):
        scope, _, rest = arg.partition("/")
        return scope + "/" + rest.split("@", 1)[0]
    return re.split(r"[@=<>~!\[;]", arg, maxsplit=1)[0]


def command_changes(command: str) -> list:
    """Value pairs a shell command changes: a sed substitution's values (as an edit's, edit_changes), and packages
    swapped for others in one command line (paired in order)."""
    pairs = []
    for m in _SED.finditer(command):
        old, new = (m.group(g).replace("\\" + m.group("d"), m.group("d")) for g in ("old", "new"))
        pairs += edit_changes(old, new)
    removed, added = [], []
    for part in _commands(command):
        m = _PACKAGE_VERB.match(part)
        if m is None or (m.group("tool") in ("npm", "pnpm", "yarn", "bun") and m.group("verb") == "i"
                         and not m.group("args").strip()):
            continue
        names = [_package_name(a) for a in m.group("args").split() if not a.startswith("-")]
        names = [n for n in names if named(n) and not n.startswith((".", "/"))]
        (removed if m.group("verb") in _REMOVE_VERBS else added).extend(names)
    return pairs + swapped(removed, added)




def sed_edits(command: str) -> list:
    """(file, old text, new text) of each `sed -i 's/old/new/' FILE` in `command`: an edit in place, read as an
    Edit's fragments would be. Files given with a wildcard or none are left out."""
    out = []
    for part in _commands(command):
        if not re.search(r"\bsed\s+(?:-\w*i|--in-place)", part):
            continue
        m = _SED.search(part)
        if not m:
            continue
        files = [word.strip("'\"") for word in part[m.end():].split()[1:] if not word.startswith("-")]
        files = [f for f in files if f and not any(ch in f for ch in "*?$>|")]
        old, new = (m.group(g).replace("\\" + m.group("d"), m.group("d")) for g in ("old", "new"))
        if "\\" in old or "\\" in new or any(ch in old for ch in "^$[]*+?"):
            continue  # a pattern, not the text it matches
        out += [(f, old, new) for f in files]
    return out


def _file_arguments(part: str, verb: re.Pattern) -> list:
    m = verb.match(part)
    if not m:
        return []
    words = [w.strip("'\"") for w in part[m.end():].split()]
    return [w for w in words if w and not w.startswith("-") and not any(ch in w for ch in "*?$>|&;")]


_REMOVE = re.compile(r"^\s*(?:git\s+rm|rm)\s")
_MOVE = re.compile(r"^\s*(?:git\s+mv|mv)\s")


def removed_files(command: str) -> list:
    """The paths a `git rm` or `rm` of the command line removes (options and patterns left out)."""
    return [path for part in _commands(command) for path in _file_arguments(part, _REMOVE)]


def file_moves(command: str) -> list:
    """(old, new) of each `git mv OLD NEW` or `mv OLD NEW` of the command line (two paths, no folder target)."""
    out = []
    for part in _commands(command):
        paths = _file_arguments(part, _MOVE)
        if len(paths) == 2 and not paths[1].endswith("/"):
            out.append((paths[0], paths[1]))
    return out


# `node -v`, `python3 --version`, `go version`, `terraform version`, `npx prisma --version`: the tool's version
_VERSION_COMMAND = re.compile(r"^\s*(?:(?:npx|bunx|pnpm\s+exec|poetry\s+run|uv\s+run|bundle\s+exec)\s+)?"
                              r"([A-Za-z][\w.+-]{0,40})\s+(?:-v|-V|--version|version)\s*$")
_VERSION = re.compile(r"(?<![\w.])v?(\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?)|(?<=[a-z])(\d+\.\d+(?:\.\d+)?)\b")


# Where a command runs somewhere else: on a server (`ssh deploy@web1 php -v`), in a container (`docker compose exec
# db mysql --version`, `docker run --rm node:20 node -v`), in a pod (`kubectl exec api-0 -- node -v`): options
# given as flags, or the few that take one argument
_ELSEWHERE = re.compile(
    r"^\s*(?:sudo\s+)?(?:"
    r"ssh(?:\s+-[46AaCfGgKkMNnqsTtVvXxYy]+|\s+-[ipoJlF]\s*\S+)*\s+[\w.@-]+"
    r"|docker(?:-compose|\s+compose)\s+(?:exec|run)(?:\s+-[dTit]+|\s+--(?:rm|no-deps)|\s+-[uwe]\s*\S+)*\s+[\w.-]+"
    r"|docker\s+(?:exec|run)(?:\s+-[dit]+|\s+--rm|\s+-[uwe]\s*\S+)*\s+[\w./:@-]+"
    r"|kubectl\s+exec\s+[^\n]*?\s--"
    r")\s+")


def _run_here(command: str) -> str:
    """The command a line runs, wherever it runs it: `php -v` of `ssh deploy@web1 'php -v'` (_ELSEWHERE)."""
    elsewhere = _ELSEWHERE.match(command)
    return command[elsewhere.end():].strip().strip("'\"") if elsewhere else command


def _tool(m) -> str:
    """The tool a _VERSION_COMMAND match asks about (`python3.12` is python)."""
    return m.group(1).split("/")[-1].rstrip("0123456789.") or m.group(1)


def _version_command(command: str):
    """The match of _VERSION_COMMAND for `command`'s first line, run here or elsewhere (_ELSEWHERE), or None."""
    return _VERSION_COMMAND.match(_run_here(command.strip().split("\n", 1)[0]))


# A version output that names other tools too: flutter's "Tools • Dart 3.4.3 • DevTools 2.34.3"
_NAMED_VERSION = re.compile(r"(?<![\w.-])([A-Z][A-Za-z]{2,20}) (\d+\.\d+\.\d+)(?![\w.])")


def other_versions(output: str, tool: str) -> list:
    """(tool, version) of the other tools a version command's output names with a full version, lower-cased."""
    found = {}
    for name, version in _NAMED_VERSION.findall("\n".join((output or "").splitlines()[:40])):
        if name.lower() != tool:
            found.setdefault(name.lower(), version)
    return list(found.items())


def asks_version(command: str) -> bool:
    """Whether `command` only prints a tool's version (its output is then worth reading), here or on a server, in
    a container or a pod."""
    return _version_command(command) is not None


def versions_asked(command: str, output: str) -> list:
    """(tool, version) of each version command of a command line of several (`php -v | head -1; mysql --version`,
    here or over ssh), read from the output's lines naming the tool with a version (when they all give one): which
    line is whose is said only there, or by its place (a bare "8.0.408" opening the output is the first command's,
    ending it the last one's)."""
    found = []
    parts = _commands(_run_here(command.strip().split("\n", 1)[0]))
    printed = [line.strip() for line in (output or "").splitlines()[:200] if line.strip()]
    for at, part in enumerate(parts):
        piped = "|" in part
        part = part.split("|", 1)[0].strip().strip("'\"")
        elsewhere = _ELSEWHERE.match(part)  # (its command keeps a quote left open: `ssh host 'tool -v` is no match)
        m = _VERSION_COMMAND.match(part[elsewhere.end():] if elsewhere else part)
        if not m:
            continue
        tool = _tool(m)
        named = [out for out in printed if tool.lower() in out.lower()]
        said = [hit for hit in map(_VERSION.search, named) if hit]  # the lines naming it with a version
        version = said[0] if said and len({v.group(1) or v.group(2) for v in said}) == 1 else None
        if version is None:  # a tool names itself first ("ansible [core 2.15.9]"), its paths later (python3.11)
            version = next(filter(None, (_VERSION.search(out) for out in named
                                         if out.lower().startswith(tool.lower()))), None)
        if version is None and not piped and printed:
            # a bare version ("8.0.408") is the first command's when it opens the output, the last's when it ends it
            edge = printed[0] if at == 0 else printed[-1] if at == len(parts) - 1 else ""
            version = _BARE_VERSION.match(edge)
        if version:
            found.append((tool.lower(), version.group(1) or version.group(2)))
    return found


_BARE_VERSION = re.compile(r"^v?(\d+\.\d+(?:\.\d+)*(?:[-+][\w.]+)?)$()")


def tool_version(command: str, output: str):
    """(tool, version) a version command printed (`node -v` -> ("node", "20.11.1"); `python3.12 --version` is
    python's), or None."""
    m = _version_command(command)
    if not m or not output:
        return None
    tool = _tool(m)
    lines = [line for line in output.splitlines() if line.strip()]
    # the line naming the tool, else the first: `elixir --version` prints the Erlang runtime's line first
    line = next((line for line in lines if tool.lower() in line.lower()), lines[0] if lines else "")
    found = _VERSION.search(line)
    return (tool.lower(), found.group(1) or found.group(2)) if found else None
