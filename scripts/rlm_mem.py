#!/usr/bin/env python3
"""The rlm-mem command line straight from the bundle, whichever way it was installed: `scripts/rlm_mem.py --help`
(`bin/rlm-mem` runs it with the right interpreter).

Its packages come from the set-up's .venv or from the person's cache folder (brain/context/dependencies.py); when
they are not there yet (an installed plugin's first run), they are installed there first, once
(brain/setup/provision.py); `rlm-mem mcp` instead answers its client at once while they install
(brain/mcp/first_start.py). Nothing is written inside an installed plugin's copy, bytecode included.
"""
import importlib
import os
import sys

BUNDLE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BUNDLE)
sys.dont_write_bytecode = True  # until prepare() knows where bytecode may go

from brain.context.dependencies import prepare, ready  # noqa: E402


def _command(args: list) -> str:
    """The command's name: the first argument that is not the global --dir option or its value."""
    words = iter(args)
    for word in words:
        if word == "--dir":
            next(words, None)
        elif not word.startswith("--dir="):
            return word
    return ""


def main() -> None:
    try:
        from brain.cli.main import cli
    except ImportError as exc:
        sys.stderr.write(f"Error: rlm-mem's Python packages are missing ({exc}); run the README's set-up command in "
                         f"{BUNDLE}\n")
        sys.exit(1)
    cli(prog_name="rlm-mem")


prepare(BUNDLE)
if not ready(BUNDLE) and _command(sys.argv[1:]) == "mcp":
    # An agent is waiting for the MCP server's first answer: answer now, install meanwhile (never block it).
    from brain.mcp.first_start import serve_while_installing  # noqa: E402

    sys.exit(serve_while_installing(BUNDLE, main))
if not ready(BUNDLE):
    from brain.setup.provision import ProvisionError, provision  # noqa: E402

    background = "--background" in sys.argv  # the worker hooks start
    if not background:
        sys.stderr.write("rlm-mem: installing its Python packages (first run only, about a minute at most)\n")
    try:
        provision(BUNDLE, background=background)
    except ProvisionError as exc:
        sys.stderr.write(f"Error: {exc}\n")
        sys.exit(1)
    importlib.invalidate_caches()  # the packages' folder did not exist when the import system first looked
    if not ready(BUNDLE):  # another worker is installing them: it captures what is queued when it is done
        sys.exit(0)

if __name__ == "__main__":
    main()
