#!/usr/bin/env python3
"""Claude Code hook entry point: `python -I -S hook.py EVENT` with the event's JSON on stdin.

EVENT is session-start, user-prompt-submit, stop, pre-compact or session-end. All logic lives in
brain/hooks/; this file only makes the bundle importable and fails open if even that goes wrong.
Hooks run with -S (no `site`): that saves a third of the interpreter's start-up, and the hot paths need only the
standard library. The venv's site-packages goes at the end of sys.path for the few writers that need filelock.
"""
import os
import sys

BUNDLE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BUNDLE)
if "site" not in sys.modules:
    sys.path.append(os.path.join(BUNDLE, ".venv", "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}",
                                 "site-packages"))

try:
    from brain.hooks.runner import main
except BaseException as exc:  # a broken install must not break the session
    sys.stderr.write(f"rlm-mem: hook unavailable: {type(exc).__name__}: {exc}\n")
    sys.exit(0)

sys.exit(main(sys.argv[1:]))
