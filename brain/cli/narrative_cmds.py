"""What a project's memory adds up to: chapters, wisdom, why."""
import click

from brain.cli.common import emit_json, json_option, pass_env
from brain.narrative.causes import chain_lines, why as why_chain
from brain.narrative.chapters import chapters as project_chapters, wisdom as project_wisdom
from brain.store import sensitivity


def _project(env, project, all_projects):
    if all_projects and project:
        raise click.UsageError("give --project or --all-projects, not both")
    return None if all_projects else (project or env.project.id)


@click.command()
@click.option("--project", default=None, help="Project id (default: the current project).")
@click.option("--all-projects", is_flag=True, help="Every project's chapters.")
@json_option
@pass_env
def chapters(env, project, all_projects, as_json):
    """Consecutive sessions on one topic, as chapters: title, time range, summary, learnings.

    \b
    Examples:
      rlm-mem chapters
      rlm-mem chapters --json
    """
    found = project_chapters(env.root, _project(env, project, all_projects))
    if as_json:
        emit_json(found)
        return
    if not found:
        click.echo("no chapters yet: they come from sessions captured here", err=True)
    for chapter in found:
        span = f"{chapter['start'][:16].replace('T', ' ')} – {chapter['end'][:16].replace('T', ' ')}"
        sessions = len(chapter["sessions"])
        click.echo(f"{chapter['id']}  {span}  {sessions} session{'s' * (sessions != 1)}"
                   + (f"  [{chapter['branch']}]" if chapter.get("branch") else ""))
        click.echo(f"  {chapter['title']}")
        click.echo(f"  {chapter['summary']}")
        for learning in chapter["learnings"]:
            click.echo(f"  learned: {learning}")


@click.command()
@click.option("--project", default=None, help="Project id (default: the current project).")
@json_option
@pass_env
def wisdom(env, project, as_json):
    """What held across a project's chapters: recurring errors and their fixes, conventions, decisions.

    Example: rlm-mem wisdom --json
    """
    found = project_wisdom(env.root, project or env.project.id)
    if as_json:
        emit_json(found)
        return
    click.echo(found["summary"])
    for error in found["recurring_errors"]:
        click.echo(f"recurring ({error['times']}×): {error['error']}")
        for fix in error["fixes"]:
            click.echo(f"  fixed by: {fix}")
    for title, key in (("convention", "conventions"), ("decision", "decisions")):
        for item in found[key]:
            click.echo(f"{title} since {item['since'][:10]}: {item['text']}  [{item['id']}]")


@click.command()
@click.argument("chunk_id")
@click.option("--sensitive", is_flag=True, help="Show the words of memories marked high or hyper sensitivity too.")
@json_option
@pass_env
def why(env, chunk_id, sensitive, as_json):
    """The causal chain around a memory, both ways: what led to it (caused_by, solves, blocked_by, ...) and what
    it led to.

    Example: rlm-mem why 1a2b3c4d
    """
    chunk_id = env.full_id(chunk_id)
    if env.store.get_chunk(chunk_id, track=False, include_archived=True) is None:
        raise click.ClickException(f"no chunk {chunk_id} in {env.root}")
    answer = why_chain(env.root, chunk_id, max_sensitivity=None if sensitive else sensitivity.DEFAULT_LIMIT)
    if as_json:
        emit_json(answer)
    else:
        click.echo("\n".join(chain_lines(answer)))
