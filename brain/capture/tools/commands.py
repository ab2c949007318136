"""Value pairs a shell command changes: a `sed s/old/new/` substitution's values (as an edit's), and packages
removed and others added in one command line.
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
    for part in re.split(r"&&|;|\|\|", command):
        m = _PACKAGE_VERB.match(part)
        if m is None or (m.group("tool") in ("npm", "pnpm", "yarn", "bun") and m.group("verb") == "i"
                         and not m.group("args").strip()):
            continue
        names = [_package_name(a) for a in m.group("args").split() if not a.startswith("-")]
        names = [n for n in names if named(n) and not n.startswith((".", "/"))]
        (removed if m.group("verb") in _REMOVE_VERBS else added).extend(names)
    return pairs + swapped(removed, added)


