"""What every command shares: the Env (memory root and store, made on first use), --json output, and turning
the library's errors into `Error: ...` lines. No traceback reaches a person unless RLM_MEM_DEBUG=1."""
import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path

import click

from brain.context.resolve import resolve
from brain.store.chunk_store import ChunkStore
from brain.safety.redact import redact
from brain.util.errors import describe


class Env:
    """The memory root for this command (and why), the current project, and a store over the root."""

    def __init__(self, explicit_dir):
        context = resolve(os.getcwd(), explicit_root=explicit_dir, root_when_off=True)
        self.explicit_dir = explicit_dir
        self.root, self.reason, self.project = Path(context.root), context.reason, context.project
        self.disabled = context.disabled  # memory is switched off for this project (`rlm-mem disable`)
        self._store = None

    def full_id(self, ref: str) -> str:
        """The full id for a full id or the 8-hex tail shown in recalled context (`Error: ...` otherwise)."""
        return self.store.resolve_id(ref)

    @property
    def store(self) -> ChunkStore:
        if self._store is None:
            self._store = ChunkStore(self.root, actor=os.environ.get("RLM_MEM_ACTOR") or "cli")
        return self._store


pass_env = click.make_pass_decorator(Env)


def json_option(fn):
    return click.option("--json", "as_json", is_flag=True, help="Print JSON (for scripts).")(fn)


def emit_json(value) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def as_click_error(exc: BaseException) -> click.ClickException:
    """The `Error: ...` a person sees for an exception a command let through (redacted: a path or a library's message
    may quote a token)."""
    message = describe(exc)
    if message is not None:
        return click.ClickException(redact(message))
    return click.ClickException(redact(f"unexpected {type(exc).__name__}: {exc} (RLM_MEM_DEBUG=1 shows details)"))


@contextmanager
def progress_bar(label: str):
    """A `progress(done, total)` callback drawing a bar on stderr when it is a terminal; None otherwise."""
    if not sys.stderr.isatty():
        yield None
        return
    state = {}

    def update(done, total):
        if "bar" not in state:
            state["bar"] = click.progressbar(length=max(total, 1), label=label, file=sys.stderr)
            state["bar"].__enter__()
        bar = state["bar"]
        if done > bar.pos:
            bar.update(done - bar.pos)

    try:
        yield update
    finally:
        if "bar" in state:
            state["bar"].__exit__(None, None, None)
