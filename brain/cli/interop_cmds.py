"""Interop commands: import (six formats), export (markdown, jsonl), share (keeping memory in git)."""
import os
from pathlib import Path

import click

from brain.cli.common import emit_json, json_option, pass_env, progress_bar
from brain.interop import export_store, import_path, not_a_source
from brain.interop.share import init_share

IMPORT_FORMATS = ("legacy", "candidates", "cognitive", "claude-memory", "jsonl", "markdown")
EXPORT_FORMATS = ("markdown", "jsonl")
MAX_SHOWN_ERRORS = 20


def _show_errors(errors) -> None:
    for issue in errors[:MAX_SHOWN_ERRORS]:
        click.echo(f"skipped {issue}", err=True)
    if len(errors) > MAX_SHOWN_ERRORS:
        click.echo(f"... and {len(errors) - MAX_SHOWN_ERRORS} more (--json lists them all)", err=True)


@click.command(name="import")
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(("auto",) + IMPORT_FORMATS), default="auto",
              show_default=True, help="Source format; auto tells it from each path.")
@click.option("--batch-size", type=click.IntRange(min=1), default=5000, show_default=True,
              help="Chunks written per index update (bulk imports).")
@json_option
@pass_env
def import_cmd(env, paths, fmt, batch_size, as_json):
    """Import memories from files or folders ('-' reads a MEMORY_CANDIDATES block from stdin).

    \b
    Formats:
      legacy         folder of legacy memory files (# Title, **Created:**, **Category:**, **Tags:**)
      candidates     a MEMORY_CANDIDATES block (file or -)
      cognitive      a cognitive-memory folder (graph/<type>/*.md, graph/edges/*.md)
      claude-memory  Claude Code's auto memory folder (MEMORY.md and topic files)
      jsonl          one JSON record a line (content, type, tags, created, ...): the bulk path
      markdown       rlm-mem's own export (one file per chunk)

    Importing the same source again adds nothing. Bad files and lines are reported and skipped.

    \b
    Examples:
      rlm-mem import --format legacy brain/memory/allmemories
      rlm-mem import ~/.claude/projects/my-app/memory
      pbpaste | rlm-mem import --format candidates -
    """
    missing = [p for p in paths if p != "-" and not os.path.exists(p)]
    if missing:
        raise click.ClickException(f"no such file or folder: {', '.join(missing)}")
    refused = [f"{p} {why}" for p in paths if (why := not_a_source(p))]
    if refused:
        raise click.ClickException("; ".join(refused))
    with progress_bar("importing") as progress:
        report = import_path(env.store, fmt, list(paths), batch_size=batch_size, progress=progress)
    if as_json:
        emit_json(report.to_dict())
    else:
        _show_errors(report.errors)
        click.echo(report.summary())
    if report.bad_paths:
        raise click.ClickException(f"nothing could be imported from {', '.join(report.bad_paths)}"
                                   + ("" if fmt != "auto" else "; check the path or give --format"))

@click.command()
@click.argument("out_dir", type=click.Path(file_okay=False))
@click.option("--format", "fmt", type=click.Choice(EXPORT_FORMATS), default="markdown", show_default=True,
              help="markdown: one file per chunk; jsonl: one memories.jsonl.")
@json_option
@pass_env
def export(env, out_dir, fmt, as_json):
    """Write every memory to OUT_DIR; `rlm-mem import` reads it back to the same chunks.

    \b
    Example: rlm-mem export --format markdown ~/memory-backup
    """
    try:
        with progress_bar("exporting") as progress:
            report = export_store(env.store, fmt, out_dir, progress=progress)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    emit_json(report.to_dict()) if as_json else click.echo(report.summary())


@click.group()
def share():
    """Keep a project's memory in git, shared by a team (one file per memory: no merge conflicts)."""

@share.command(name="init")
@json_option
@pass_env
def share_init(env, as_json):
    """Write the memory folder's .gitignore and .gitattributes (idempotent).

    Indexes and runtime state stay out of git; the append-only audit and episode logs merge by union.
    """
    root = Path(env.root)
    added = init_share(root)
    if as_json:
        emit_json({"root": str(root), "added": added})
        return
    for name, lines in added.items():
        click.echo(f"{root / name}: " + (f"added {', '.join(lines)}" if lines else "up to date"))
    click.echo("next: git add the memory folder and commit; after a pull run `rlm-mem share refresh` "
               "(any write does it too)")

@share.command(name="refresh")
@json_option
@pass_env
def share_refresh(env, as_json):
    """Bring the local indexes up to date after a pull or merge, seed 000's JSON index files included (cheap when
    nothing changed). (Not `rlm-mem sync`, which syncs your own memory with a remote.)

    \b
    Example: git pull && rlm-mem share refresh
    """
    result = env.store.sync_derived()
    env.store.refresh_json_indexes()
    if as_json:
        emit_json(result or {"months": [], "indexed": 0, "removed": 0})
    elif result:
        click.echo(f"re-indexed {result['indexed']} chunks, dropped {result['removed']} "
                   f"(months {', '.join(result['months'])})")
    else:
        click.echo("indexes are up to date")


# Its first name, kept for scripts written with it; not listed, so that a person reads one `sync`: `rlm-mem sync`.
share.add_command(click.Command("sync", callback=share_refresh.callback, params=share_refresh.params, hidden=True,
                                help="The former name of `rlm-mem share refresh`.\n\n\b\nExample: rlm-mem share sync"))
