"""Where this interpreter finds rlm-mem's third-party packages, and where its compiled bytecode goes.

- The README's set-up made `.venv/` in the bundle: its site-packages (for this Python version) serve any
  interpreter of that version, so hooks run as `python3 -I -S` still find filelock and the rest.
- Otherwise (a plugin installed from a marketplace is a copy that no set-up step ran in) the packages are
  installed once, by the first background worker or command that needs them (brain/setup/provision.py), into
  the person's cache folder, `$XDG_CACHE_HOME/rlm-mem/python<X.Y>-<tag>` (default `~/.cache/...`): they can be
  downloaded again at any time, every route and every plugin update with the same requirements shares them, and
  a new Python version or a changed requirement list gets a folder of its own.
The hooks' hot paths need none of it (standard library only); writers and the command line do. Without the
set-up's venv, bytecode goes to `$XDG_CACHE_HOME/rlm-mem/pycache` too: nothing is written inside an installed
plugin's folder.

A plugin's data folder is `CLAUDE_PLUGIN_DATA` in its hooks (Claude Code sets it) and `RLM_MEM_PLUGIN_DATA` in the
commands Claude runs through its Bash tool (those get no plugin variables: the SessionStart hook exports it through
`CLAUDE_ENV_FILE`). Hooks import this module: os only.
"""
import os
import sys

# A hash of pyproject.toml's [project] dependencies (tests/test_provision.py checks it): bump it with them.
REQUIREMENTS_TAG = "648b4116"
ENV_PLUGIN_DATA = "RLM_MEM_PLUGIN_DATA"
ENV_TRANSCRIPT = "RLM_MEM_TRANSCRIPT"  # the session's transcript, for the commands Claude runs (the LiveHud)
READY_MARK = ".complete"
VERSION = f"{sys.version_info[0]}.{sys.version_info[1]}"


def plugin_data(env=None):
    """The plugin's data folder, or None outside a plugin."""
    env = os.environ if env is None else env
    return env.get("CLAUDE_PLUGIN_DATA") or env.get(ENV_PLUGIN_DATA) or None


def cache_dir(env=None) -> str:
    env = os.environ if env is None else env
    return os.path.join(env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "rlm-mem")


def venv_site_packages(bundle_root: str) -> str:
    return os.path.join(bundle_root, ".venv", "lib", f"python{VERSION}", "site-packages")


def packages_dir(env=None) -> str:
    return os.path.join(cache_dir(env), f"python{VERSION}-{REQUIREMENTS_TAG}")


def prepare(bundle_root: str) -> None:
    """Make the packages importable: after the standard library, so that it always wins, and before any packages
    the interpreter has of its own, whose versions are not ours. In a bundle without the set-up's venv (an installed
    plugin's copy) bytecode goes to the cache folder instead of the bundle, and this interpreter is remembered for
    scripts/run-python (a version manager's python3 shim is slow to start)."""
    venv = venv_site_packages(bundle_root)
    if not os.path.isdir(venv):
        cache = cache_dir()
        sys.pycache_prefix = os.path.join(cache, "pycache")
        _remember_interpreter(os.path.join(cache, "python3"))
    sys.dont_write_bytecode = False  # the entry scripts switch it off until the folder for bytecode is known
    at = next((i for i, path in enumerate(sys.path) if path.endswith(("site-packages", "dist-packages"))),
              len(sys.path))
    sys.path[at:at] = [venv, packages_dir()]


def _remember_interpreter(link: str) -> None:
    if sys.prefix != sys.base_prefix or os.path.exists(link):
        return
    try:
        if os.path.islink(link):
            os.unlink(link)  # its interpreter is gone
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(sys.executable, link)
    except OSError:
        pass  # run-python then starts python3 from PATH, as it did this time


def ready(bundle_root: str) -> bool:
    """Are the packages there (the set-up's venv, or a finished install in the cache folder)? Two stats."""
    return os.path.isdir(venv_site_packages(bundle_root)) or os.path.exists(
        os.path.join(packages_dir(), READY_MARK))
