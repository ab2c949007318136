"""Where memory lives, and why.

Order (first that applies wins):
1. an explicit folder (`--dir`, or `ChunkStore(path)`),
2. the `RLM_MEM_DIR` environment variable,
3. a project that asked to keep its memory in the repository (`.rlm-mem.json` with `"memory_dir"`, written by
   `rlm-mem install --memory-in-project`), found from the working directory,
4. `${CLAUDE_PLUGIN_DATA}/memory` when running as a Claude Code plugin (the plugin root is replaced on every
   update, so memory must not live there); hooks leave a pointer so the CLI run by hand finds the same folder,
5. the bundle's own `brain/memory/` (the bundle copied into a skills folder).
Hooks import this module: os.path only.
"""
import os

from brain.util import fastjson

BUNDLE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUNDLE_MEMORY = os.path.join(BUNDLE_ROOT, "brain", "memory")
POINTER = os.path.join(BUNDLE_ROOT, "brain", ".memory-location")
PROJECT_CONFIG = ".rlm-mem.json"


def _project_memory_dir(cwd: str):
    folder = cwd
    while True:
        cfg = os.path.join(folder, PROJECT_CONFIG)
        if os.path.isfile(cfg):
            try:
                with open(cfg, encoding="utf-8") as fh:
                    value = fastjson.loads(fh.read()).get("memory_dir")
            except (OSError, ValueError, AttributeError):
                return None
            if isinstance(value, str) and value:
                target = os.path.realpath(os.path.join(folder, value))
                inside = os.path.commonpath([target, os.path.realpath(folder)]) == os.path.realpath(folder)
                return target if inside else None  # a cloned repository must not point memory elsewhere
            return None
        if os.path.exists(os.path.join(folder, ".git")) or folder == os.path.expanduser("~"):
            return None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def resolve_memory_root(explicit=None, *, cwd=None, env=None) -> tuple:
    """(memory root, reason) following the order above."""
    env = os.environ if env is None else env
    if explicit:
        return os.path.expanduser(os.fspath(explicit)), "given with --dir"
    if env.get("RLM_MEM_DIR"):
        return os.path.expanduser(env["RLM_MEM_DIR"]), "RLM_MEM_DIR is set"
    here = os.fspath(cwd or env.get("CLAUDE_PROJECT_DIR") or os.getcwd())
    try:
        in_project = _project_memory_dir(os.path.realpath(here))
    except OSError:
        in_project = None
    if in_project:
        return in_project, f"the project at {here} keeps its memory in the repository ({PROJECT_CONFIG})"
    if env.get("CLAUDE_PLUGIN_DATA"):
        return os.path.join(env["CLAUDE_PLUGIN_DATA"], "memory"), "running as a Claude Code plugin (CLAUDE_PLUGIN_DATA)"
    try:
        with open(POINTER, encoding="utf-8") as fh:
            pointed = fh.read().strip()
    except OSError:
        pointed = ""
    if pointed:
        return pointed, f"the plugin's hooks use this folder (recorded in {POINTER})"
    return BUNDLE_MEMORY, "the bundle's default store (brain/memory/)"


def remember_plugin_location(root) -> None:
    """Record the plugin-data folder for the CLI; best effort (the plugin root may be read-only)."""
    root = os.fspath(root)
    try:
        with open(POINTER, encoding="utf-8") as fh:
            if fh.read().strip() == root:
                return
    except OSError:
        pass
    try:
        with open(POINTER, "w", encoding="utf-8") as fh:
            fh.write(root + "\n")
    except OSError:
        pass


def month_fingerprint(root) -> dict:
    """Each chunks/YYYY-MM folder's mtime: one stat per month tells whether any chunk file came or went."""
    out = {}
    try:
        entries = os.scandir(os.path.join(os.fspath(root), "chunks"))
    except OSError:
        return out
    with entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                out[entry.name] = entry.stat(follow_symlinks=False).st_mtime_ns
    return out
