"""`rlm-mem doctor`: check the memory store and repair what can be repaired."""
import click

from brain.cli.common import emit_json, json_option, pass_env
from brain.store.doctor import Problem, check_store, repair_store
from brain.sync.engine import health as sync_health


def render(report) -> str:
    counts = report.counts
    lines = [f"memory root: {report.root}"]
    if not report.exists:
        lines.append("no memory store here yet: nothing to check")
        return "\n".join(lines)
    lines.append(f"checked {counts.get('chunks', 0)} chunk(s), {counts.get('archived', 0)} archived, "
                 f"{counts.get('quarantined', 0)} in quarantine")
    if report.repairs:
        lines.append("repaired:")
        lines += [f"  - {done}" for done in report.repairs]
    if report.problems:
        lines.append("problems:")
        for p in report.problems:
            where = f"{p.path}: " if p.path else ""
            lines.append(f"  ✗ [{p.code}] {where}{p.message}" + ("" if p.fixable else "  (fix by hand)"))
    for note in report.notes:
        lines.append(f"  note: {note}")
    if report.ok:
        lines.append("ok: no problems found")
    return "\n".join(lines)


@click.command()
@click.option("--repair", is_flag=True,
              help="Fix what can be fixed: rebuild the indexes, move unreadable chunk files to quarantine/, "
                   "remove stale temp files and dangling links, tighten permissions.")
@json_option
@pass_env
def doctor(env, repair, as_json):
    """Check the memory store; exits 1 when something is wrong.

    Checks every chunk file (parses, matches the schema, sits where its id says), the archive, the JSON
    and search indexes against the chunk files, links, temp files left by a killed writer, the access log,
    symbolic links (never followed), permissions (owner only), and whether sync is behind (`rlm-mem sync`).
    --repair never deletes a memory: a chunk file it cannot read is moved to quarantine/ and the move is
    audited.

    \b
    Examples:
      rlm-mem doctor
      rlm-mem doctor --repair --json
    """
    report = repair_store(env.store) if repair else check_store(env.store)
    problems, notes = sync_health(env.root)
    report.problems += [Problem(code, message, path, fixable=False) for code, message, path in problems]
    report.notes += notes
    if as_json:
        emit_json(report.to_dict())
    else:
        click.echo(render(report))
    if not report.ok:
        fixable = sum(1 for p in report.problems if p.fixable)
        hint = " (run `rlm-mem doctor --repair`)" if fixable and not repair else ""
        left = "remain after repair" if repair else "found"
        raise click.ClickException(f"{len(report.problems)} problem(s) {left} in {report.root}{hint}")
