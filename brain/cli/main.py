"""`rlm-mem`: the command line, a thin click shell over the library (brain/).

Every command is defined at module level in a *_cmds module and listed once in COMMANDS below; a command's module
is imported only when that command runs (click's lazily loaded subcommands), so `rlm-mem get ID` does not pay for
the importers, gardening or install. Errors a person can cause print `Error: <what happened and what to do>` and
exit 1 (2 for usage errors); no traceback unless RLM_MEM_DEBUG=1.
"""
import importlib
import os
import sys

import click

from brain.cli.common import Env, as_click_error
from brain.safety.redact import redact

# command name -> "module:function"
COMMANDS = {
    "remember": "brain.cli.store_cmds:remember", "get": "brain.cli.store_cmds:get",
    "update": "brain.cli.store_cmds:update", "scope": "brain.cli.store_cmds:scope",
    "forget": "brain.cli.store_cmds:forget", "supersede": "brain.cli.store_cmds:supersede",
    "restore": "brain.cli.store_cmds:restore", "list": "brain.cli.store_cmds:list_cmd",
    "link": "brain.cli.store_cmds:link", "reindex": "brain.cli.store_cmds:reindex",
    "contest": "brain.cli.store_cmds:contest", "retract": "brain.cli.store_cmds:retract",
    "reinstate": "brain.cli.store_cmds:reinstate",
    "chapters": "brain.cli.narrative_cmds:chapters", "wisdom": "brain.cli.narrative_cmds:wisdom",
    "why": "brain.cli.narrative_cmds:why",
    "stats": "brain.cli.store_cmds:stats",
    "recall": "brain.cli.recall_cmds:recall",
    "pin": "brain.cli.garden_cmds:pin", "unpin": "brain.cli.garden_cmds:unpin",
    "garden": "brain.cli.garden_cmds:garden", "core": "brain.cli.garden_cmds:core",
    "reflect": "brain.cli.garden_cmds:reflect",
    "ingest": "brain.cli.ingest_cmds:ingest", "hud": "brain.cli.session_cmds:hud",
    "statusline": "brain.cli.session_cmds:statusline", "where": "brain.cli.session_cmds:where",
    "install": "brain.cli.session_cmds:install", "uninstall": "brain.cli.session_cmds:uninstall",
    "enable": "brain.cli.session_cmds:enable", "disable": "brain.cli.session_cmds:disable",
    "import": "brain.cli.interop_cmds:import_cmd", "export": "brain.cli.interop_cmds:export",
    "share": "brain.cli.interop_cmds:share", "sync": "brain.cli.sync_cmds:sync",
    "doctor": "brain.cli.doctor_cmds:doctor",
    "serve": "brain.cli.web_cmds:serve",
    "mcp": "brain.cli.mcp_cmds:mcp",
}


class RlmMemGroup(click.Group):
    """Loads a command's module when the command is used; turns library errors into `Error: ...`."""

    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, attr = target.split(":")
        return getattr(importlib.import_module(module), attr)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:  # click's own messages quote the value given ("'x' is not one of...")
            exc.message = redact(exc.message)
            raise
        except (click.exceptions.Exit, click.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:  # never a traceback for a person; RLM_MEM_DEBUG=1 shows it
            if os.environ.get("RLM_MEM_DEBUG"):
                raise
            raise as_click_error(exc) from None


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


def main():  # pragma: no cover - console entry for `python -m brain.cli.main`
    cli(prog_name="rlm-mem")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
