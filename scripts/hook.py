#!/usr/bin/env python3
"""Claude Code hook entry point: `hook.py EVENT` with the event's JSON on stdin.

EVENT is session-start, user-prompt-submit, stop, pre-compact or session-end. All logic lives in
brain/scripts/hooks.py; this file only makes the bundle importable and fails open if even that goes wrong.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    from brain.scripts.hooks import main
except BaseException as exc:  # a broken install must not break the session
    sys.stderr.write(f"rlm-mem: hook unavailable: {type(exc).__name__}: {exc}\n")
    sys.exit(0)

sys.exit(main(sys.argv[1:]))
