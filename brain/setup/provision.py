"""Install rlm-mem's third-party packages once, for a bundle that no set-up step ran in.

A plugin installed from a marketplace is a copy of the repository that no set-up step ever runs in, and its root
is replaced on every update. Its hooks run on the system `python3` (the hot paths need only the standard
library); what writes memory (the capture worker, the command line) needs the packages in pyproject.toml. The
first process that needs them and finds them missing runs `python3 -m pip install --target` into the cache
folder brain/context/dependencies.py names, one process at a time (a lock next to it): a temp folder first,
renamed into place when pip succeeded, so a half-finished install is never used. Meanwhile nothing is lost:
hooks keep queueing capture, and the worker that installs the packages captures the queue when it is done.
A failure is written next to the folder (`…failed`, with pip's last lines); a command run by hand tries again at
once, a background worker only after RETRY_AFTER (offline, every turn of a session would otherwise start pip).
"""
import fcntl
import glob
import os
import shutil
import subprocess
import sys
import time

from brain.context.dependencies import READY_MARK, cache_dir, packages_dir
from brain.util.errors import RlmMemError

PIP_TIMEOUT = 600  # seconds: a slow network must not leave a worker behind forever
RETRY_AFTER = 600  # seconds before a background worker tries again after pip failed


class ProvisionError(RlmMemError):
    """The packages could not be installed; the message says why and what to do."""


def requirements(bundle_root) -> list:
    """The `dependencies = [...]` of the bundle's pyproject.toml (read by hand: tomllib needs Python 3.11)."""
    path = os.path.join(os.fspath(bundle_root), "pyproject.toml")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    start = text.find("\ndependencies = [")
    if start < 0:
        raise ProvisionError(f"{path} has no dependencies list")
    block = text[text.index("[", start) + 1:text.index("]", start)]
    return [line.strip().strip(",").strip('"') for line in block.splitlines() if line.strip().strip(",")]


def provision(bundle_root, *, python=None, background=False) -> str:
    """Install the packages unless they are there; returns their folder.

    In the background it returns at once when another process is installing them (that one finishes the job),
    and does not try again within RETRY_AFTER of a failure. Raises ProvisionError when pip fails or is missing."""
    target = packages_dir()
    if os.path.exists(os.path.join(target, READY_MARK)):
        return target
    failed = f"{target}.failed"
    if background and os.path.exists(failed) and time.time() - os.path.getmtime(failed) < RETRY_AFTER:
        raise ProvisionError(f"installing rlm-mem's Python packages failed a moment ago (details in {failed})")
    os.makedirs(cache_dir(), exist_ok=True)
    with open(os.path.join(cache_dir(), "python.lock"), "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (fcntl.LOCK_NB if background else 0))
        except BlockingIOError:
            return target
        if not os.path.exists(os.path.join(target, READY_MARK)):  # the lock's last holder may have done it
            _install(target, requirements(bundle_root), python or sys.executable)
    return target


def _install(target: str, reqs: list, python: str) -> None:
    temp = f"{target}.tmp-{os.getpid()}"
    failed = f"{target}.failed"
    for left in glob.glob(glob.escape(target) + ".tmp-*"):  # an installer killed mid-way (we hold the lock)
        shutil.rmtree(left, ignore_errors=True)
    command = [python, "-I", "-m", "pip", "install", "--target", temp, "--no-input", "--quiet",
               "--disable-pip-version-check", "--no-warn-script-location", *reqs]
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=PIP_TIMEOUT)
        output = (done.stderr or done.stdout).strip()
        ok = done.returncode == 0
    except (OSError, subprocess.TimeoutExpired) as exc:
        output, ok = str(exc), False
    if not ok:
        shutil.rmtree(temp, ignore_errors=True)
        tail = "\n".join(output.splitlines()[-5:]) or "no output"
        with open(failed, "w", encoding="utf-8") as fh:
            fh.write(" ".join(command) + "\n" + tail + "\n")
        hint = "python3 has no pip (install it, e.g. the python3-pip package)" if "No module named pip" in output \
            else f"pip failed: {tail.splitlines()[-1]}"
        raise ProvisionError(f"could not install rlm-mem's Python packages into {target}: {hint} (details in "
                             f"{failed})")
    with open(os.path.join(temp, READY_MARK), "w", encoding="utf-8") as fh:
        fh.write("\n".join(reqs) + "\n")
    shutil.rmtree(target, ignore_errors=True)  # an unfinished folder of an earlier version of this function
    os.replace(temp, target)
    if os.path.exists(failed):
        os.unlink(failed)
