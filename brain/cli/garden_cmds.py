"""Keeping memory true and small: pin, unpin, garden, core, reflect."""

import click

from brain.cli.common import emit_json, json_option, pass_env
from brain.garden import garden as gardening
from brain.garden.reflect import reflect as make_report
from brain.garden.reflect import render, write_reflection
from brain.recall.core import build_core, write_core
from brain.session.maintenance import after_garden
from brain.store.lifecycle import set_pinned


def _plan_text(plan: dict) -> str:
    c = plan["counts"]
    lines = [f"Garden plan for {plan['root']}",
             f"  {c['memories']} memories (turns and session records aside): {c['active']} active, {c['fading']} "
             f"fading, {c['dormant']} dormant, {c['pinned']} pinned"]
    for item in plan["resolve"]:
        lines.append(f"  resolve      {item['old']} superseded by {item['new']} ({item['note']})")
    for item in plan["review"]:
        lines.append(f"  review       {item['old']} contradicts {item['new']}: {item['why']}")
    for item in plan["consolidate"]:
        lines.append(f"  consolidate  {len(item['members'])} memories on \"{item['topic']}\" into one master: "
                     + ", ".join(item["members"]))
    for item in plan["archive"]:
        lines.append(f"  archive      {item['id']}  salience {item['score']:.3f}, idle {item['idle_days']} days  "
                     f"{item['summary']}")
    if c.get("consolidate_deferred"):
        lines.append(f"  ({c['consolidate_deferred']} more topics to consolidate are left for the next run)")
    if c.get("archive_deferred"):
        lines.append(f"  ({c['archive_deferred']} more dormant memories are left for the next run)")
    if not (plan["resolve"] or plan["consolidate"] or plan["archive"] or plan["review"]):
        lines.append("  nothing to do")
    return "\n".join(lines)


def _applied_text(plan: dict) -> str:
    done = plan["applied"]
    lines = [f"Garden run {plan['run']}: {len(done['resolved'])} contradictions resolved, "
             f"{len(done['consolidated'])} masters made, {len(done['archived'])} dormant memories archived"]
    for item in done["consolidated"]:
        lines.append(f"  {item['master']} ← {len(item['members'])} memories on \"{item['topic']}\"")
    for item in done["skipped"]:
        lines.append(f"  skipped {item['action']} of {', '.join(item['ids'])}: {item['why']}")
    if done["resolved"] or done["consolidated"] or done["archived"]:
        lines.append(f"Nothing was deleted; undo with `rlm-mem garden --undo {plan['run']}` "
                     "(or `rlm-mem restore ID` for one memory).")
    return "\n".join(lines)


@click.command()
@click.argument("chunk_id")
@pass_env
def pin(env, chunk_id):
    """Pin a memory: always in the session-start context, never decays, never gardened.

    Example: rlm-mem pin chunk-2026-02-10-a1b2c3d4"""

    chunk_id = env.full_id(chunk_id)
    set_pinned(env.store, chunk_id, True)
    click.echo(f"pinned {chunk_id}")

@click.command()
@click.argument("chunk_id")
@pass_env
def unpin(env, chunk_id):
    """Unpin a memory (it decays and is gardened like any other).  Example: rlm-mem unpin chunk-2026-02-10-a1b2c3d4"""

    chunk_id = env.full_id(chunk_id)
    set_pinned(env.store, chunk_id, False)
    click.echo(f"unpinned {chunk_id}")

@click.command()
@click.option("--apply", "do_apply", is_flag=True, help="Carry the plan out (default: only show it).")
@click.option("--if-due", is_flag=True, help="Do nothing unless a run is due (for scheduled or detached runs).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing unless something goes wrong.")
@click.option("--undo", "undo_run", metavar="RUN_ID", default=None, help="Revert a gardening run.")
@json_option
@pass_env
def garden(env, do_apply, if_due, quiet, undo_run, as_json):
    """Consolidate, resolve contradictions and archive dormant memories.

    Shows the plan; --apply carries it out. Nothing is ever deleted: originals go to the archive with links to
    their master, every step is in the audit log, and --undo RUN_ID reverts a run.

    \b
    Examples:
      rlm-mem garden                  # what would change
      rlm-mem garden --apply
      rlm-mem garden --undo garden-20260210T101500Z-1a2b
    """
    if undo_run:
        result = gardening.undo(env.store, undo_run)
        if as_json:
            emit_json(result)
        elif not quiet:
            click.echo(f"undid {undo_run}: {len(result['restored'])} memories restored, "
                       f"{len(result['archived_masters'])} masters archived, "
                       f"{len(result['reactivated'])} memories active again")
        return
    if if_due and not gardening.garden_due(env.root):
        if as_json:
            emit_json({"due": False})
        elif not quiet:
            click.echo("gardening is not due yet")
        return
    plan = gardening.run(env.store, apply=do_apply)
    if do_apply:
        after_garden(env.store, plan)
    if as_json:
        emit_json(plan)
    elif not quiet:
        click.echo(_applied_text(plan) if do_apply else _plan_text(plan))
        if not do_apply and (plan["resolve"] or plan["consolidate"] or plan["archive"]):
            click.echo("Run `rlm-mem garden --apply` to carry it out.")

@click.command()
@click.option("--project", default=None, help="Project id (default: the current one); 'all' for every project.")
@click.option("--budget", type=click.IntRange(200, 3000), default=3000, show_default=True,
              help="Token budget (the digest never exceeds 12,000 characters).")
@click.option("--write", "write_file", is_flag=True, help="Also save it as CORE.md in the memory root.")
@json_option
@pass_env
def core(env, project, budget, write_file, as_json):
    """The most salient memories, grouped: pinned, corrections, decisions, preferences, the last session, ...

    \b
    Example: rlm-mem core --write
    """
    project = None if project == "all" else (project or env.project.id)
    digest = build_core(env.root, project, budget_tokens=budget)
    if write_file:
        path = write_core(env.root, digest["text"], project=project, budget_tokens=budget)
        digest["path"] = str(path)
    if as_json:
        emit_json(digest)
    else:
        click.echo(digest["text"], nl=False)
        if write_file:
            click.echo(f"wrote {digest['path']}", err=True)

@click.command()
@json_option
@pass_env
def reflect(env, as_json):
    """Themes, tags spanning projects, most used memories, recent insights; writes REFLECTION.md.

    \b
    Example: rlm-mem reflect --json
    """
    report = make_report(env.root)
    path = write_reflection(env.root, report)
    if as_json:
        emit_json(dict(report, path=str(path)))
    else:
        click.echo(render(report), nl=False)
        click.echo(f"wrote {path}", err=True)
