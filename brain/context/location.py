"""Where memory lives, and why.

Order (first that applies wins):
1. an explicit folder (`--dir`, or `ChunkStore(path)`),
2. the `RLM_MEM_DIR` environment variable,
3. a project that asked to keep its memory in the repository (`.rlm-mem.json` with `"memory_dir"`, written by
   `rlm-mem install --memory-in-project`); the folder must stay inside the project,
4. `${CLAUDE_PLUGIN_DATA}/memory` when running as a Claude Code plugin (the plugin root is replaced on every
   update, so memory must not live there); hooks leave a pointer so the CLI run by hand finds the same folder,
5. the bundle's own `brain/memory/` (the bundle copied into a skills folder).
The project and its config come from brain/context/project.py (one walk up the tree); this module does not walk.
Hooks import this module: os.path only.
"""
import os

BUNDLE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUNDLE_MEMORY = os.path.join(BUNDLE_ROOT, "brain", "memory")
POINTER = os.path.join(BUNDLE_ROOT, "brain", ".memory-location")


def _in_project(project_root, config: dict):
    value = config.get("memory_dir")
    if project_root is None or not isinstance(value, str) or not value:
        return None
    top = os.path.realpath(project_root)
    target = os.path.realpath(os.path.join(top, value))
    return target if os.path.commonpath([target, top]) == top else None  # a clone must not point memory elsewhere


def memory_root(explicit=None, *, project_root=None, config=None, env=None) -> tuple:
    """(memory root, reason) following the order above, for a project already located."""
    env = os.environ if env is None else env
    if explicit:
        return os.path.expanduser(os.fspath(explicit)), "given with --dir"
    if env.get("RLM_MEM_DIR"):
        return os.path.expanduser(env["RLM_MEM_DIR"]), "RLM_MEM_DIR is set"
    in_project = _in_project(project_root, config or {})
    if in_project:
        return in_project, f"the project at {project_root} keeps its memory in the repository (.rlm-mem.json)"
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
