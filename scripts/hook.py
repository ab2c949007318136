#!/usr/bin/env python3
"""Claude Code hook entry point: `python3 -I -S hook.py EVENT` with the event's JSON on stdin.

EVENT is session-start, user-prompt-submit, stop, pre-compact or session-end. All logic lives in
brain/hooks/; this file only makes the bundle importable and fails open if even that goes wrong.
Hooks run with -S (no `site`): that saves a third of the interpreter's start-up, and the hot paths need only the
standard library. The few writers that need a package (filelock) find it where brain/context/dependencies.py
says (the set-up's .venv, or the person's cache folder); an installed plugin's copy gets no bytecode written in it.
"""
import gc
import os
import sys

if sys.version_info < (3, 10):  # e.g. an old system python3: say so once, never break the session
    sys.stderr.write(f"rlm-mem: hooks need Python 3.10 or newer; python3 is {sys.version.split()[0]}\n")
    sys.exit(0)

READING = sys.argv[1:2] in (["session-start"], ["user-prompt-submit"])
if READING:
    # A reading hook lives ~30 ms and leaves through os._exit: the cyclic garbage collector's dozen passes over
    # the modules and rows it loads cost ~1 ms and would free almost nothing (reference counting frees the rest).
    gc.disable()

BUNDLE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BUNDLE)
sys.dont_write_bytecode = True  # until prepare() knows where bytecode may go

try:
    from brain.context.dependencies import prepare

    prepare(BUNDLE)
    from brain.hooks.runner import main
except BaseException as exc:  # a broken install must not break the session
    sys.stderr.write(f"rlm-mem: hook unavailable: {type(exc).__name__}: {exc}\n")
    sys.exit(0)

code = main(sys.argv[1:], exiting=READING)
if READING:
    # The reading hooks have written their answer and hold nothing that needs closing (no lock, no write in
    # flight): leave without the interpreter's teardown of every module and object (~7 ms of a ~55 ms prompt
    # hook at 10k memories).
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # Claude Code stopped reading: nothing is lost by leaving
        pass
    os._exit(code)
sys.exit(code)
