"""Where memory lives, and why.

Order (first that applies wins):
1. an explicit folder (`--dir`, or `ChunkStore(path)`),
2. the `RLM_MEM_DIR` environment variable,
3. a project that asked to keep its memory in the repository (`.rlm-mem.json` with `"memory_dir"`, written by
   `rlm-mem install --memory-in-project`), found from the working directory,
4. `${CLAUDE_PLUGIN_DATA}/memory` when running as a Claude Code plugin (the plugin root is replaced on every
   update, so memory must not live there); hooks leave a pointer so the CLI run by hand finds the same folder,
5. the bundle's own `brain/memory/` (the bundle copied into a skills folder).
"""
import json
import os
from pathlib import Path

BUNDLE_ROOT = Path(__file__).resolve().parents[2]
BUNDLE_MEMORY = BUNDLE_ROOT / "brain" / "memory"
POINTER = BUNDLE_ROOT / "brain" / ".memory-location"
PROJECT_CONFIG = ".rlm-mem.json"


def _project_memory_dir(cwd: Path):
    for folder in (cwd, *cwd.parents):
        cfg = folder / PROJECT_CONFIG
        if cfg.is_file():
            try:
                value = json.loads(cfg.read_text(encoding="utf-8")).get("memory_dir")
            except (OSError, ValueError, AttributeError):
                return None
            if isinstance(value, str) and value:
                return (folder / value).resolve()
            return None
        if (folder / ".git").exists():
            return None
    return None


def resolve_memory_root(explicit=None, *, cwd=None, env=None) -> tuple:
    """(memory root, reason) following the order above."""
    env = os.environ if env is None else env
    if explicit:
        return Path(explicit).expanduser(), "given with --dir"
    if env.get("RLM_MEM_DIR"):
        return Path(env["RLM_MEM_DIR"]).expanduser(), "RLM_MEM_DIR is set"
    here = Path(cwd or env.get("CLAUDE_PROJECT_DIR") or os.getcwd())
    try:
        in_project = _project_memory_dir(here.resolve())
    except OSError:
        in_project = None
    if in_project:
        return in_project, f"the project at {here} keeps its memory in the repository ({PROJECT_CONFIG})"
    if env.get("CLAUDE_PLUGIN_DATA"):
        return Path(env["CLAUDE_PLUGIN_DATA"]) / "memory", "running as a Claude Code plugin (CLAUDE_PLUGIN_DATA)"
    try:
        pointed = POINTER.read_text(encoding="utf-8").strip()
    except OSError:
        pointed = ""
    if pointed:
        return Path(pointed), f"the plugin's hooks use this folder (recorded in {POINTER})"
    return BUNDLE_MEMORY, "the bundle's default store (brain/memory/)"


def remember_plugin_location(root: Path) -> None:
    """Record the plugin-data folder for the CLI; best effort (the plugin root may be read-only)."""
    try:
        if not POINTER.exists() or POINTER.read_text(encoding="utf-8").strip() != str(root):
            POINTER.write_text(str(root) + "\n", encoding="utf-8")
    except OSError:
        pass
