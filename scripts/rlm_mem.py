#!/usr/bin/env python3
"""Run the rlm-mem CLI from the bundle without installing it: `scripts/rlm_mem.py --help`."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from brain.cli.main import cli  # noqa: E402

if __name__ == "__main__":
    cli(prog_name="rlm-mem")
