"""Which project a session belongs to, and the per-project off switch. Runs in every hook: stdlib only, no git
subprocess, a handful of stat calls.

Project identity, first match wins (`ProjectInfo.source` says which):
1. "override": the `override` argument;
2. "env": the environment variable `RLM_MEM_PROJECT`;
3. "config": `{"project": "<name>"}` in `.rlm-mem.json` at the project root (the git working-tree top; outside
   git the nearest folder up to the home folder that holds one, else the folder itself) — commit it so every clone
   and machine shares one identity;
4. "git": the repository. Walking up from `cwd` finds `.git` (a folder, or a `gitdir: ...` file for worktrees and
   submodules); a worktree's `commondir` leads back to the main repository, so every worktree and subfolder of
   one repository gets the same id: `<name>-<hash>`, the hash being of the resolved common git dir's path;
5. "cwd": outside git, the resolved folder itself, named and hashed the same way.
Named ids (1–3) are the slug of the name, with no hash: they are meant to be equal across machines.

Off switch: `.rlm-mem.json` at the project root with `{"enabled": false}`, or `RLM_MEM_DISABLE=1` in the
environment. A config file that cannot be read counts as "off": it may be the person's attempt to switch memory off.
"""
import os

from brain.cpython.fast import sha256  # as brain.util.fasthash gives it, without that module on every hook's path
from brain.util import fastjson
from brain.util.errors import RlmMemError
from brain.util.tuple_type import tuple_type

CONFIG_NAME = ".rlm-mem.json"
ENV_PROJECT = "RLM_MEM_PROJECT"
ENV_DISABLE = "RLM_MEM_DISABLE"
_TRUE = {"1", "true", "yes", "on"}


# A plain named tuple (dataclasses and typing cost milliseconds, and this module runs in every hook):
#   id      filesystem-safe and stable: "<name>-<hash>" or the slug of an explicit name
#   name    readable: the repository folder name, or the explicit name
#   root    the working-tree top (or the folder outside git), a str; None if cwd does not exist
#   source  override | env | config | git | cwd
ProjectInfo = tuple_type("ProjectInfo", "id name root source")


class ProjectConfigError(RlmMemError, ValueError):
    """`.rlm-mem.json` exists but is not a JSON object, so it cannot be updated safely."""


_SLUG_KEEP = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-")


def slug(name: str) -> str:
    """Lowercase; every run of other characters becomes one "-" (a loop, not `re`: this runs in every hook)."""
    out, gap = [], False
    for ch in str(name).strip().lower():
        if ch in _SLUG_KEEP:
            out.append(ch)
            gap = False
        elif not gap:
            out.append("-")
            gap = True
    return "".join(out).strip("-.") or "project"


def _short_hash(path: str) -> str:
    return sha256(os.path.normcase(path).encode("utf-8", "surrogateescape")).hexdigest()[:10]


def _read_gitfile(dotgit: str) -> str | None:
    """The git dir a `.git` file points to (worktrees, submodules), or None if it is not a gitdir file."""
    try:
        with open(dotgit, encoding="utf-8") as fh:
            first = fh.readline().strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:"):].strip()
    return os.path.normpath(os.path.join(os.path.dirname(dotgit), target))


def _common_dir(gitdir: str) -> str:
    # Linked worktrees keep a `commondir` file pointing (usually relatively) at the main repository's git dir.
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as fh:
            common = fh.readline().strip()
    except (OSError, UnicodeDecodeError):
        return gitdir
    return os.path.normpath(os.path.join(gitdir, common)) if common else gitdir


def find_git(start):
    """(working-tree top, common git dir) for the repository containing `start`, or None outside git."""
    current = os.fspath(start)
    while True:
        dotgit = os.path.join(current, ".git")
        if os.path.isdir(dotgit):
            return current, os.path.realpath(_common_dir(dotgit))
        if os.path.isfile(dotgit):
            gitdir = _read_gitfile(dotgit)
            if gitdir and os.path.isdir(gitdir):
                return current, os.path.realpath(_common_dir(gitdir))
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _repo_name(common: str, top: str) -> str:
    name, parent = os.path.basename(common), os.path.dirname(common)
    if name == ".git":
        return os.path.basename(parent)  # <repo>/.git
    if name.endswith(".git") and len(name) > 4:
        return name[:-4]  # a bare repository, repo.git
    return name if os.path.basename(parent) == "modules" else os.path.basename(top)  # submodule: .git/modules/<n>


def read_config(root) -> dict:
    """The `.rlm-mem.json` object at `root` ({} if there is none). ProjectConfigError if it is unreadable."""
    if root is None:
        return {}
    path = os.path.join(os.fspath(root), CONFIG_NAME)
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ProjectConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        value = fastjson.loads(text)
    except ValueError as exc:
        raise ProjectConfigError(f"{path} is not valid JSON ({exc}); fix or delete it") from exc
    if not isinstance(value, dict):
        raise ProjectConfigError(f"{path} must hold a JSON object such as {{\"enabled\": false}}")
    return value


# Where a folder sits: `start` (resolved), `root` (the git working-tree top; outside git the nearest folder up to
# the home folder holding a .rlm-mem.json, else `start` itself; None when `start` does not exist) and `common`
# (the git common dir, None outside git).
Place = tuple_type("Place", "start root common")


def locate(cwd) -> Place:
    """One walk up from `cwd`: the project root and the git repository it belongs to."""
    start = os.path.realpath(os.path.abspath(os.fspath(cwd) if cwd else os.getcwd()))
    git = find_git(start)
    if git:
        return Place(start, git[0], git[1])
    home, folder = os.path.expanduser("~"), start
    while os.path.isdir(folder):
        if os.path.isfile(os.path.join(folder, CONFIG_NAME)):
            return Place(start, folder, None)
        parent = os.path.dirname(folder)
        if folder == home or parent == folder:
            break
        folder = parent
    return Place(start, start if os.path.isdir(start) else None, None)


def load_config(root) -> tuple:
    """(the project's config, whether it is unreadable). An unreadable file counts as {} here; `switched_off`
    treats it as "off", since it may be a person's attempt to switch memory off."""
    try:
        return read_config(root), False
    except ProjectConfigError:
        return {}, True


def identify(place: Place, config: dict, override: str | None = None, env=None) -> ProjectInfo:
    """The project's identity (see the module docstring for the order of precedence)."""
    env = os.environ if env is None else env
    if place.common:
        name, hashed, source = _repo_name(place.common, place.root), place.common, "git"
    else:
        name, hashed, source = os.path.basename(place.root or place.start) or place.start, place.root or place.start, "cwd"
    explicit = (override or "").strip()
    if explicit:
        return ProjectInfo(slug(explicit), explicit, place.root, "override")
    explicit = env.get(ENV_PROJECT, "").strip()
    if explicit:
        return ProjectInfo(slug(explicit), explicit, place.root, "env")
    configured = config.get("project")
    if isinstance(configured, str) and configured.strip():
        return ProjectInfo(slug(configured), configured.strip(), place.root, "config")
    return ProjectInfo(f"{slug(name)}-{_short_hash(hashed)}", name, place.root, source)


def switched_off(config: dict, unreadable: bool, env=None) -> bool:
    """True if memory is off: RLM_MEM_DISABLE in the environment, `"enabled": false`, or an unreadable config."""
    env = os.environ if env is None else env
    if env.get(ENV_DISABLE, "").strip().lower() in _TRUE:
        return True
    return unreadable or config.get("enabled", True) is False


def project_id(cwd, override: str | None = None) -> ProjectInfo:
    """Identify the project of `cwd` (see the module docstring for the order of precedence)."""
    place = locate(cwd)
    return identify(place, load_config(place.root)[0], override)


def memory_disabled(project_root) -> bool:
    """True if memory is switched off for the project at `project_root` (None: only the environment decides)."""
    return switched_off(*load_config(project_root))


def set_memory_enabled(project_root, enabled: bool) -> str:
    """Write the off switch into `<project_root>/.rlm-mem.json`, keeping its other keys. Returns the file's path."""
    from brain.util.files import write_user_json  # only this writer needs it; hooks load this module

    config = read_config(project_root)  # refuses to overwrite a file it cannot parse
    config["enabled"] = bool(enabled)
    path = os.path.join(os.fspath(project_root), CONFIG_NAME)
    write_user_json(path, config)  # the project's own file, written as it is (not something rlm-mem stores)
    os.chmod(path, 0o644)  # a project file meant to be committed, not a private memory
    return path
