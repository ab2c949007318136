"""`rlm-mem`: the command line, a thin click shell over the library (brain/).

Errors a person can cause print `Error: <what happened and what to do>` and exit 1 (2 for usage errors); no
traceback unless RLM_MEM_DEBUG=1.
"""
import json
import os
import sys
from pathlib import Path

import click

from brain.util.errors import RlmMemError


class RlmMemGroup(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort, KeyboardInterrupt):
            raise
        except RlmMemError as exc:
            raise click.ClickException(str(exc)) from None
        except OSError as exc:
            if os.environ.get("RLM_MEM_DEBUG"):
                raise
            where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
            raise click.ClickException(f"{exc.strerror or exc}{where}") from None
        except Exception as exc:  # never a traceback for a person; RLM_MEM_DEBUG=1 shows it
            if os.environ.get("RLM_MEM_DEBUG"):
                raise
            raise click.ClickException(f"unexpected {type(exc).__name__}: {exc} (RLM_MEM_DEBUG=1 shows details)") from None


class Env:
    """What every command needs: the memory root and a store over it, made on first use."""

    def __init__(self, explicit_dir):
        from brain.context.location import resolve_memory_root

        root, self.reason = resolve_memory_root(explicit_dir)
        self.root = Path(root)
        self._store = None

    @property
    def store(self):
        if self._store is None:
            from brain.store.chunk_store import ChunkStore

            self._store = ChunkStore(self.root, actor=os.environ.get("RLM_MEM_ACTOR") or "cli")
        return self._store


pass_env = click.make_pass_decorator(Env)


def json_option(fn):
    return click.option("--json", "as_json", is_flag=True, help="Print JSON (for scripts).")(fn)


def emit_json(value) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


@click.group(cls=RlmMemGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--dir", "memory_dir", type=click.Path(file_okay=False), default=None, envvar=None,
              help="Memory root (the folder holding chunks/, index/, archive/). Overrides RLM_MEM_DIR.")
@click.version_option(package_name="rlm-mem")
@click.pass_context
def cli(ctx, memory_dir):
    """rlm-mem: persistent memory for Claude Code.

    \b
    Examples:
      rlm-mem remember "The staging database listens on port 5433" --tags db,staging
      rlm-mem recall "which port does staging use?"
      rlm-mem list --type decision --json
      rlm-mem where
    """
    ctx.obj = Env(memory_dir)


def _register():
    from brain.cli import store_cmds, session_cmds, recall_cmds, garden_cmds, interop_cmds, doctor_cmds  # noqa: F401

    for module in (store_cmds, session_cmds, recall_cmds, garden_cmds, interop_cmds, doctor_cmds):
        module.register(cli)


_register()


def main():  # pragma: no cover - console entry for `python -m brain.cli.main`
    cli(prog_name="rlm-mem")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
