"""Packages that replaced others: in a manifest an edit changed (a Gemfile's `gem "prawn"` for `gem "wicked_pdf"`,
package.json, requirements.txt, pyproject.toml, Cargo.toml, go.mod) or in one command line (commands.py).
"""
import re

from brain.util.values import WEAK_SUBJECTS


def named(value: str) -> bool:
    """A name that can stand for a tool or a thing (not a common word): what a replace sentence may change."""
    value = value.strip(".,;:()`'\"")
    return 3 <= len(value) <= 40 and value.lower() not in WEAK_SUBJECTS and not value.isdigit()


def swapped(removed: list, added: list) -> list:
    """Packages that replaced others, (old, new): paired in order when as many went as came, all for one when one
    came (or the first for the first when one went); a name on both sides was upgraded in place, not replaced."""
    kept = {n.lower() for n in removed} & {n.lower() for n in added}
    removed = list(dict.fromkeys(n for n in removed if n.lower() not in kept))
    added = list(dict.fromkeys(n for n in added if n.lower() not in kept))
    if not removed or not added:
        return []
    if len(removed) == len(added):
        return list(zip(removed, added))
    if len(added) == 1:
        return [(old, added[0]) for old in removed]
    return [(removed[0], added[0])] if len(removed) == 1 else []


# The dependencies a manifest names, by file name: an edit dropping some and adding others swapped them (Gemfile
# `gem "wicked_pdf"` for `gem "prawn"`, package.json, requirements.txt, pyproject.toml, Cargo.toml, go.mod).
_GEM = re.compile(r"^[ \t]*gem\s+[\"']([\w.-]+)[\"']", re.MULTILINE)
_JSON_DEPENDENCY = re.compile(r"^[ \t]*\"(@?[\w./-]+)\"\s*:\s*\"(?:[~^<>=*]|\d|workspace:|npm:)", re.MULTILINE)
_REQUIREMENT = re.compile(r"^[ \t]*\"?([A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?\s*(?:[=<>!~]=|[<>]|\"|,|$)", re.MULTILINE)
_TOML_DEPENDENCY = re.compile(r"^[ \t]*([A-Za-z0-9][\w-]*)\s*=\s*(?:\"[~^<>=*\d]|\{)", re.MULTILINE)
_GO_REQUIRE = re.compile(r"^[ \t]*(?:require\s+)?([\w.-]+\.[a-z]{2,}/[\w./-]+)\s+v\d", re.MULTILINE)


def _manifest_names(file_path: str, text: str) -> list:
    name = file_path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name == "gemfile" or name.endswith(".gemspec"):
        return _GEM.findall(text)
    if name == "package.json":
        return _JSON_DEPENDENCY.findall(text)
    if name.startswith("requirements") and name.endswith((".txt", ".in")):
        return _REQUIREMENT.findall(text)
    if name == "pyproject.toml":
        return _REQUIREMENT.findall(text) + _TOML_DEPENDENCY.findall(text)
    if name == "cargo.toml":
        return _TOML_DEPENDENCY.findall(text)
    if name == "go.mod":
        return _GO_REQUIRE.findall(text)
    return []


def manifest_changes(file_path: str, old: str, new: str) -> list:
    """(old package, new package) for the dependencies an edit of a manifest swapped for others."""
    if not file_path:
        return []
    before, after = _manifest_names(file_path, old), _manifest_names(file_path, new)
    removed = [n for n in before if n not in after]
    added = [n for n in after if n not in before]
    return [(o, n) for o, n in swapped(removed, added) if named(o) and named(n)]

