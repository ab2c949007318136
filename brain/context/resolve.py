"""One resolution of a session's context, made once at the boundary (a hook, a command): which project, its
config, whether memory is switched off there, and which memory root serves it.

The off switch is decided before the memory root is looked for, so a disabled project costs one walk up the tree
and nothing else. Hooks import this module: stdlib only.
"""
import os

from brain.context.location import memory_root
from brain.context.project import identify, load_config, locate, switched_off
from brain.util.tuple_type import tuple_type

# project: ProjectInfo; config: the project's .rlm-mem.json ({} when absent or unreadable); disabled: memory is off
# here; root: the memory root (None when disabled); reason: why that root (or why memory is off).
Context = tuple_type("Context", "project config disabled root reason")


def resolve(cwd=None, *, explicit_root=None, project_override=None, env=None, root_when_off: bool = False) -> Context:
    """The context of `cwd` (default: $CLAUDE_PROJECT_DIR, else the working directory). When memory is off there,
    `root` is None unless `root_when_off` (the CLI still works on the store: `rlm-mem enable`, `list`, ...)."""
    env = os.environ if env is None else env
    place = locate(cwd or env.get("CLAUDE_PROJECT_DIR") or os.getcwd())
    config, unreadable = load_config(place.root)
    project = identify(place, config, project_override, env)
    disabled = switched_off(config, unreadable, env)
    if disabled and not root_when_off:
        return Context(project, config, True, None, "memory is switched off for this project")
    root, reason = memory_root(explicit_root, project_root=place.root, config=config, env=env)
    return Context(project, config, disabled, os.fspath(root), reason)
