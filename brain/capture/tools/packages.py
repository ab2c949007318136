"""Packages: those that replaced others in a manifest an edit changed (a Gemfile's `gem "prawn"` for `gem
"wicked_pdf"`, package.json, requirements.txt, pyproject.toml, Cargo.toml, go.mod) or in one command line
(commands.py), and the versions an install or upgrade command's output says it installed, and which it replaced.
"""
import re

from brain.capture.settings.formats import format_of
from brain.capture.settings.manifests import msbuild_packages
from brain.util.values import named



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
    if format_of(file_path) == "msbuild":
        return msbuild_packages(text)
    return []


def manifest_changes(file_path: str, old: str, new: str) -> list:
    """(old package, new package) for the dependencies an edit of a manifest swapped for others."""
    if not file_path:
        return []
    before, after = _manifest_names(file_path, old), _manifest_names(file_path, new)
    removed = [n for n in before if n not in after]
    added = [n for n in after if n not in before]
    return [(o, n) for o, n in swapped(removed, added) if named(o) and named(n)]



_INSTALL_WORDS = frozenset("install installed add upgrade update up sync init get bump i deps".split())
_V = r"v?(\d+\.\d[\w.+-]*?)"  # a version with a dot: `0042 -> 0043` is a migration, not a package
# `serde v1.0.196 -> v1.0.197` (cargo), `phoenix 1.7.10 => 1.7.12` (mix), `node 20.1.0 -> 22.0.0` (brew), `go:
# upgraded x v1.2.0 => v1.3.0`, `react ^18.2.0 → ^18.3.1`
_ARROW = re.compile(rf"(?<![\w@/.-])(@?[A-Za-z][\w./@-]*?)[ \t:@]+[\^~]?{_V}[ \t]*(?:->|=>|\u2192)[ \t]*[\^~]?{_V}"
                    r"(?=[\s,;)]|$)")
# `Updating celery (5.3.6 -> 5.4.0)` (poetry), `Installing rails 7.1.3 (was 7.1.2)` (bundler),
# `Unpacking nginx (1.24.0-2) over (1.22.1-1)` (apt)
_IN_BRACKETS = re.compile(rf"(?<![\w@/.-])(@?[A-Za-z][\w./@-]*)[ \t]+\({_V}[ \t]*(?:->|=>|\u2192)[ \t]*{_V}\)")
_WAS = re.compile(rf"(?<![\w@/.-])(@?[A-Za-z][\w./@-]*)[ \t]+{_V}[ \t]+\(was[ \t]+{_V}\)")
_OVER = re.compile(rf"(?<![\w@/.-])(@?[A-Za-z][\w./@-]*)[ \t]+\({_V}\)[ \t]+over[ \t]+\({_V}\)")
# In words: `Upgraded uv from v0.4.18 to v0.5.4!` (uv self update), `Bumps spring-boot from 3.3.1 to 3.3.2`
# (dependabot), `Upgrading Flutter to 3.22.2 from 3.19.6` (flutter upgrade)
_END = r"(?=[\s,;!)]|\.(?:\s|$)|$)"
_FROM_TO = re.compile(rf"(?<![\w@/.-])(@?[A-Za-z][\w./@-]*)[ \t]+from[ \t]+{_V}[ \t]+to[ \t]+{_V}{_END}")
_TO_FROM = re.compile(rf"(?<![\w@/.-])(@?[A-Za-z][\w./@-]*)[ \t]+to[ \t]+{_V}[ \t]+from[ \t]+{_V}{_END}")
# one package at one version: `celery-5.4.0` (pip), `celery==5.4.0` (uv), `react@18.3.1`, `Installing s3fs
# (2024.6.1)` (poetry), `Installing hashicorp/aws v5.31.0` (terraform), `- react 18.2.0` / `+ react 18.3.1` (pnpm)
_PINNED = re.compile(r"(?<![\w@/.-])(@?[A-Za-z][\w./@-]*?)(?:-|==|@)v?(\d+(?:\.\d+)+[\w.+-]*)(?=[\s,;)]|$)")
_SPACED = re.compile(r"^[ \t]*(?:(?P<mark>[-+*])[ \t]+)?(?P<verb>(?:Installing|Installed|Updating|Upgrading|"
                     r"Downloading|Removing|Uninstalling)[ \t]+)?(?P<name>@?[A-Za-z][\w./@-]*)[ \t]+\(?v?"
                     r"(?P<version>\d+(?:\.\d+)+[\w+-]*(?:\.\w+)*)\)?(?:\.\.\.)?(?:[ \t].*)?$")
_GONE = ("uninstall", "remov", "delet")
# pip names what it is about to replace (`Found existing installation: celery 5.3.6`, often the only line left of
# it when the output is filtered); dbt deps names the package on one line and its version on the next
# (`Installing dbt-labs/dbt_utils` / `Installed from version 1.3.0`).
_FOUND_EXISTING = re.compile(rf"Found existing installation:[ \t]+(@?[A-Za-z][\w./@-]*)[ \t]+{_V}[ \t]*$")
_DBT_INSTALLING = re.compile(r"\bInstalling[ \t]+([\w-]+/[\w.-]+)[ \t]*$")
_DBT_INSTALLED = re.compile(rf"\bInstalled from (?:version|revision)[ \t]+{_V}[ \t]*$")
# NuGet (`dotnet add package`) names both in quotes: "PackageReference for package 'Serilog' version '3.1.1'
# updated in file ..."
_NUGET = re.compile(rf"\bpackage[ \t]+'([\w.-]+)'[ \t]+version[ \t]+'{_V}'")


_DEBIAN_REVISION = re.compile(r"-[0-9][\w.+~]*$")


def _upstream(version: str) -> str:
    """A Debian package's version without its revision: `20.11.1` of `20.11.1-1nodesource1`, `1.24.0` of
    `1.24.0-2ubuntu1`."""
    return _DEBIAN_REVISION.sub("", version)


def _package_key(name: str) -> str:
    return name.lower().replace("_", "-")


def installs(command: str) -> bool:
    """Whether `command` installs, upgrades or removes packages (its output is then worth reading)."""
    words = re.split(r"[^\w-]+", command.lower())  # (`--upgrade` counts; `-i` is grep's, sed's, not npm's `i`)
    options = {word[2:] for word in words if word.startswith("--")}
    # (an option's first word too: uv's `--upgrade-package`)
    return not _INSTALL_WORDS.isdisjoint(set(words) | options | {option.split("-")[0] for option in options})


def installed_versions(command: str, output: str) -> dict:
    """package -> (old version or None, new version) an install or upgrade command's output says it installed:
    an arrow (`a 1.0 -> 1.1`), a `(was 1.0)`, an `over (1.0)`, or a version removed and another installed for one
    package in the same output (pip's uninstalled / installed, uv's and pnpm's - / + lines); a version installed
    with no old one said is (None, new). Nothing for a command that installs nothing."""
    if not installs(command):
        return {}
    found, removed, added, installing = {}, {}, {}, None
    for line in output.splitlines()[:400]:
        existing = _FOUND_EXISTING.search(line)
        if existing:
            removed[_package_key(existing.group(1))] = existing.group(2)
            continue
        nuget = _NUGET.search(line)
        if nuget:
            added[_package_key(nuget.group(1))] = nuget.group(2)
            continue
        dbt_package, installing = installing, None
        if (named_package := _DBT_INSTALLING.search(line)) is not None:
            installing = named_package.group(1)
            continue
        dbt_version = _DBT_INSTALLED.search(line) if dbt_package else None
        if dbt_version:
            added[_package_key(dbt_package.rsplit("/", 1)[-1])] = dbt_version.group(1)
            continue
        for pattern in (_ARROW, _IN_BRACKETS):
            for m in pattern.finditer(line):
                found[_package_key(m.group(1))] = (m.group(2), m.group(3))
        for m in _WAS.finditer(line):
            found[_package_key(m.group(1))] = (m.group(3), m.group(2))
        for m in _OVER.finditer(line):  # dpkg's: the upstream version without the package's revision
            found[_package_key(m.group(1))] = (_upstream(m.group(3)), _upstream(m.group(2)))
        for m in _FROM_TO.finditer(line):
            found[_package_key(m.group(1))] = (m.group(2), m.group(3))
        for m in _TO_FROM.finditer(line):
            found[_package_key(m.group(1))] = (m.group(3), m.group(2))
        if "->" in line or "=>" in line or "\u2192" in line or "(was" in line or " from " in line:
            continue
        spaced = _SPACED.match(line)
        if spaced and (spaced.group("mark") or spaced.group("verb")):
            verb = (spaced.group("verb") or "").lower()
            gone = verb.startswith(("removing", "uninstalling")) or (spaced.group("mark") == "-" and not verb)
            (removed if gone else added)[_package_key(spaced.group("name"))] = spaced.group("version")
            continue
        gone = any(word in line.lower() for word in _GONE) or line.lstrip().startswith("- ")
        if gone or re.search(r"\b(?:install|add|upgrad|updat)", line.lower()) or \
                line.lstrip().startswith("+"):
            for m in _PINNED.finditer(line):
                (removed if gone else added)[_package_key(m.group(1))] = m.group(2)
    for name, version in added.items():
        if name not in found:
            old = removed.get(name)
            found[name] = (old if old != version else None, version)
    return found
