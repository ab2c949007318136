"""Where memory lives, and why.

Order (first that applies wins):
1. an explicit folder (`--dir`, or `ChunkStore(path)`),
2. the `RLM_MEM_DIR` environment variable (a settings file's `env` block can set it for Claude Code),
3. a project that asked to keep its memory in the repository (`.rlm-mem.json` with `"memory_dir"`, written by
   `rlm-mem install --memory-in-project`); the folder must stay inside the project,
4. `<plugin data folder>/memory` when rlm-mem runs as a Claude Code plugin: `CLAUDE_PLUGIN_DATA` in its hooks,
   `RLM_MEM_PLUGIN_DATA` in the commands Claude runs (brain/context/dependencies.py); the plugin root is replaced on
   every update, and nothing is ever written inside it,
5. the person's own data folder, `$XDG_DATA_HOME/rlm-mem/memory` (default `~/.local/share/rlm-mem/memory`): never
   inside the bundle, which may be a shared checkout, a read-only folder or an installed plugin's copy.
The project and its config come from brain/context/project.py (one walk up the tree); this module does not walk.
Hooks import this module: os.path only.
"""
import os

from brain.context.dependencies import ENV_PLUGIN_DATA


def project_memory_dir(project_root, config: dict):
    """The memory folder a project keeps in its repository (`.rlm-mem.json`'s `memory_dir`), resolved, or None."""
    value = config.get("memory_dir")
    if project_root is None or not isinstance(value, str) or not value:
        return None
    top = os.path.realpath(project_root)
    target = os.path.realpath(os.path.join(top, value))
    return target if os.path.commonpath([target, top]) == top else None  # a clone must not point memory elsewhere


def default_root(env=None) -> str:
    env = os.environ if env is None else env
    base = env.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "rlm-mem", "memory")


def memory_root(explicit=None, *, project_root=None, config=None, env=None) -> tuple:
    """(memory root, reason) following the order above, for a project already located."""
    env = os.environ if env is None else env
    if explicit:
        return os.path.expanduser(os.fspath(explicit)), "given with --dir"
    if env.get("RLM_MEM_DIR"):
        return os.path.expanduser(env["RLM_MEM_DIR"]), "RLM_MEM_DIR is set"
    in_project = project_memory_dir(project_root, config or {})
    if in_project:
        return in_project, f"the project at {project_root} keeps its memory in the repository (.rlm-mem.json)"
    for name in ("CLAUDE_PLUGIN_DATA", ENV_PLUGIN_DATA):
        if env.get(name):
            return os.path.join(env[name], "memory"), f"the Claude Code plugin's data folder ({name})"
    return default_root(env), "the default: your own data folder (XDG_DATA_HOME, else ~/.local/share)"


def own_root(explicit=None, *, env=None) -> tuple:
    """(the person's own memory root, reason): the order above without a project's memory in its repository, which
    is the team's (brain/sync never syncs it; user-scope memories never go into it)."""
    return memory_root(explicit, project_root=None, config=None, env=env)
