"""The recall command: the memories that answer a question, ranked and fitted to a token budget."""

import click

from brain.cli.common import emit_json, json_option, pass_env
from brain.recall.depth import DEPTHS
from brain.session.actions import recall_memories
from brain.store import sensitivity
from brain.store.chunk import CHUNK_TYPES


@click.command()
@click.argument("query", nargs=-1, required=True)
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most N memories (default 40).")
@click.option("--budget", type=click.IntRange(min=1), default=None,
              help="Token budget for the whole block (default: what the prompt hook injects).")
@click.option("--depth", type=click.Choice(DEPTHS), default="full", show_default=True,
              help="summary (~20 tokens each), outcome, full text, or complete with every field.")
@click.option("--project", default=None, help="Project id to favour (default: the current folder's project).")
@click.option("--all-projects", is_flag=True, help="Rank every project's memory alike.")
@click.option("--file", "files", multiple=True, help="A file the question is about (repeatable).")
@click.option("--max-sensitivity", type=click.Choice(sensitivity.LEVELS), default="medium", show_default=True,
              help="Leave out memories above this level.")
@click.option("--type", "chunk_type", type=click.Choice(CHUNK_TYPES), default=None,
              help="Only memories of this type.")
@click.option("--since", default=None, help="Only memories made since this ISO date or time, e.g. 2026-02-01.")
@click.option("--no-track", is_flag=True, help="Do not count this as a use of the memories shown.")
@json_option
@pass_env
def recall(env, query, limit, budget, depth, project, all_projects, files, max_sensitivity, chunk_type, since,
           no_track, as_json):
    """Show the memories that answer QUERY, best first, within a token budget.

    Ranks by the words (BM25), the turns around each match, names and dates in the question, the kind of
    memory (corrections and decisions first), confidence, use, recency, the current project and files named.
    Prints nothing (exit 0) when no memory is relevant enough.

    \b
    Examples:
      rlm-mem recall "which port does staging use?"
      rlm-mem recall why did we drop celery --budget 300 --depth summary
      rlm-mem recall "what changed in parser.py" --file src/parser.py --json
      rlm-mem recall "database choices" --type decision --since 2026-02-01
    """
    text = " ".join(query).strip()
    if not text:
        raise click.UsageError("give the question to recall memories for")
    if all_projects:
        project = None
    elif project is None:
        project = env.project.id
    result = recall_memories(env.store, text, project=project, limit=limit, budget_tokens=budget, depth=depth,
                             max_sensitivity=max_sensitivity, files=files, track=not no_track, chunk_type=chunk_type,
                             since=since)
    if as_json:
        emit_json(result.to_dict())
    elif result.items:
        click.echo(result.render_lines(compact=False))
    else:
        click.echo("No memory is relevant enough to this question.", err=True)
