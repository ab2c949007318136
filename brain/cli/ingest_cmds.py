"""`rlm-mem ingest`: capture transcripts now, or run as the detached capture worker hooks start.

In a module of its own: the worker also reads Claude Code's auto memory (interop/auto_memory.py, with the YAML
and frontmatter readers), which `rlm-mem statusline` and `hud` must not load.
"""
import os
from pathlib import Path

import click

from brain.capture import ingest as capture
from brain.capture.candidates import format_candidates
from brain.cli.common import emit_json, json_option, pass_env
from brain.interop import auto_memory
from brain.session.maintenance import after_capture
from brain.util.timestamps import parse_timestamp


def _print_candidates(reports) -> bool:
    cands = [c for r in reports for c in r.candidates]
    if cands:
        click.echo(format_candidates(cands))
    return bool(cands)


@click.command()
@click.argument("transcripts", nargs=-1, type=click.Path())
@click.option("--backfill", is_flag=True,
              help="Capture older transcripts too (sessions rlm-mem never saw start): TRANSCRIPTS may be folders; "
                   "without them, this project's folder of Claude Code transcripts.")
@click.option("--since", default=None, help="With --backfill: only transcripts changed since this ISO date.")
@click.option("--background", is_flag=True, hidden=True, help="Run as the detached worker hooks start.")
@json_option
@pass_env
def ingest(env, transcripts, backfill, since, background, as_json):
    """Capture transcripts into memory now.

    With no argument, finish all pending capture work (what hooks queued) and return when done. Hooks capture
    only the sessions rlm-mem sees start (and their missed ends); older ones only with --backfill.

    \b
    Examples:
      rlm-mem ingest ~/.claude/projects/my-app/1f2e3d4c.jsonl
      rlm-mem ingest --backfill --since 2026-01-01
    """
    store = env.store
    if since and not backfill:
        raise click.UsageError("--since goes with --backfill")
    if backfill:
        reports = capture.backfill(store, _backfill_paths(env, transcripts), since=_epoch(since))
    elif transcripts:
        reports = []
        for path in transcripts:
            if not Path(path).is_file():
                raise click.ClickException(f"no transcript at {path}")
            reports.append(capture.capture_transcript(store, path, final=True))
    else:  # hooks see the worker by its lock on state/.ingest.lock (capture.ingest holds it while it works)
        reports = capture.ingest(store, wait=not background, after_pass=auto_memory.after_sessions)
    if backfill or transcripts:
        auto_memory.after_sessions(store, reports)  # Claude Code's own memory files of the sessions that ended
    after_capture(store, reports, background=background)
    if background:
        return
    if as_json:
        emit_json([r.to_dict() for r in reports])
    else:
        for r in reports:
            line = f"{r.session_id}: {r.turns} turns, {r.memories} memories, {r.created} new chunks"
            if r.skipped_reason:
                line += f" (not saved: {r.skipped_reason})"
            click.echo(line)
        if not reports:
            click.echo("nothing pending" if not backfill else "no transcript with anything new to capture")
    if _print_candidates(reports):
        raise click.ClickException("memory could not be written; the MEMORY_CANDIDATES above were not saved "
                                   "(save them later with `rlm-mem import --format candidates FILE`)")


def _backfill_paths(env, given) -> list:
    for path in given:
        if not Path(path).exists():
            raise click.ClickException(f"no transcript or folder at {path}")
    if given:
        return list(given)
    project = env.project
    folder = capture.transcripts_folder(project.root or os.getcwd())
    if not folder.is_dir():
        raise click.ClickException(f"no Claude Code transcripts for {project.root or os.getcwd()} in {folder}; "
                                   "give the transcripts or their folder")
    return [folder]


def _epoch(since):
    if not since:
        return None
    when = parse_timestamp(since)
    if when is None:
        raise click.BadParameter("not an ISO date or time", param_hint="--since")
    return when.timestamp()
