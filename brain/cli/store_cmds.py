"""Store commands: remember, get, update, scope, forget, restore, list, link, contest, retract, reinstate, reindex,
stats."""
import sys

import click

from brain.capture.scopes import scope_of
from brain.cli.common import emit_json, json_option, pass_env, progress_bar
from brain.narrative.chapters import refresh as refresh_narrative
from brain.recall.depth import DEPTHS
from brain.session import actions
from brain.store import lifecycle, sensitivity
from brain.store.chunk import CHUNK_TYPES, DELETION_POLICIES, MANUAL_LINK_TYPES
from brain.store.lifecycle import SCOPES, set_scope
from brain.util.errors import ChunkValidationError

TYPE_CHOICE = click.Choice(CHUNK_TYPES)
SENSITIVITY_CHOICE = click.Choice(sensitivity.LEVELS)
SCOPE_CHOICE = click.Choice(SCOPES)
POLICY_CHOICE = click.Choice(DELETION_POLICIES)


def read_content(content):
    if content in (None, "-"):
        if sys.stdin is None or sys.stdin.isatty():
            raise click.UsageError("give the content as an argument or on stdin")
        content = sys.stdin.read()
    if not content.strip():
        raise click.UsageError("content is empty")
    return content


def parse_confidence(value):
    if value is None:
        return None
    if not 0.0 <= value <= 1.0:
        raise click.BadParameter("must be between 0 and 1", param_hint="--confidence")
    return value


@click.command()
@click.argument("content", required=False)
@click.option("--type", "chunk_type", type=TYPE_CHOICE, help="Memory type (detected from the words if omitted).")
@click.option("--tags", default="", help="Comma-separated tags, e.g. db,staging.")
@click.option("--conversation", default=None, help="Conversation id to file it under.")
@click.option("--confidence", type=float, default=0.9, show_default=True, help="0 to 1.")
@click.option("--supersedes", "supersedes", multiple=True, help="Id of a memory this one replaces.")
@click.option("--pin", is_flag=True, help="Pin it: always shown at session start, never decays.")
@click.option("--sensitivity", type=SENSITIVITY_CHOICE, default=None,
              help="public, low (default), medium, high, hyper; hooks never inject above medium.")
@click.option("--scope", type=SCOPE_CHOICE, default=None,
              help="user: about you, recalled in every project; project: here only; global: true everywhere. "
                   "Default: user when the words are about you (\"answer me in British English\"), else project.")
@click.option("--deletion-policy", "deletion_policy", type=POLICY_CHOICE, default=None,
              help="auto_prune (default: gardening may archive it), manual_only (only you remove it), "
                   "never (forget --permanent refuses it).")
@click.option("--step", "steps", multiple=True, help="A procedure's step, in order (repeat it).")
@click.option("--precondition", "preconditions", multiple=True, help="What must hold before the procedure.")
@click.option("--postcondition", "postconditions", multiple=True, help="What holds after it.")
@json_option
@pass_env
def remember(env, content, chunk_type, tags, conversation, confidence, supersedes, pin, sensitivity, scope,
             deletion_policy, steps, preconditions, postconditions, as_json):
    """Store a memory (argument or stdin); prints the new ids.

    Long text is split into chunks of at most 800 tokens.

    \b
    Examples:
      rlm-mem remember "The staging database listens on port 5433" --tags db
      rlm-mem remember "I prefer pytest over unittest" --scope user
      rlm-mem remember "Release checklist" --step "Run the tests" --step "Tag the release" --deletion-policy never
    """
    content = read_content(content)
    parse_confidence(confidence)
    procedure = {name: list(items) for name, items in (("steps", steps), ("preconditions", preconditions),
                                                        ("postconditions", postconditions)) if items}
    chunks = actions.remember(env.store, content, env.project, chunk_type=chunk_type, tags=tags,
                              conversation_id=conversation, confidence=confidence, supersedes=supersedes, pinned=pin,
                              sensitivity_level=sensitivity, scope=scope, deletion_policy=deletion_policy,
                              procedure=procedure, max_sensitivity=None)
    if as_json:
        emit_json([c.to_dict() for c in chunks])
    else:
        for c in chunks:
            click.echo(c.id)
    target = actions.store_for(env.store, scope or scope_of(content))
    if target is not env.store:
        click.echo(f"(about you: kept in your own memory, {target.root}, not in the project's shared one)", err=True)


@click.command()
@click.argument("old")
@click.argument("statement", required=False)
@click.option("--type", "chunk_type", type=TYPE_CHOICE, default=None,
              help="Type of the new memory (default: decision when the old one is one, else fact).")
@click.option("--tags", default="", help="Comma-separated tags, e.g. db,staging.")
@json_option
@pass_env
def supersede(env, old, statement, chunk_type, tags, as_json):
    """Record that a memory no longer holds: store STATEMENT (argument or stdin) as a new memory and mark OLD
    (a full id or the 8-hex tail shown in recalled context) replaced by it. Prints the new id.

    \b
    Examples:
      rlm-mem supersede 1a2b3c4d "The staging database listens on port 6432"
      rlm-mem supersede chunk-2026-02-10-1a2b3c4d "We deploy with Kamal now" --type decision
    """
    chunks = actions.supersede_by(env.store, old, read_content(statement), env.project, chunk_type=chunk_type,
                                  tags=tags, max_sensitivity=None)
    if as_json:
        emit_json([c.to_dict() for c in chunks])
    else:
        for c in chunks:
            click.echo(c.id)


@click.command()
@click.argument("chunk_id")
@click.argument("new_scope", metavar="SCOPE", type=SCOPE_CHOICE)
@click.option("--reason", default=None, help="Why (kept in the audit log).")
@pass_env
def scope(env, chunk_id, new_scope, reason):
    """Change where a memory applies: user (about you, recalled in every project), project (only in the project
    it was said in), global (true everywhere).

    \b
    Example: rlm-mem scope chunk-2026-02-10-a1b2c3d4 user
    """
    chunk_id = env.full_id(chunk_id)
    set_scope(env.store, chunk_id, new_scope, reason=reason)
    click.echo(f"{chunk_id}: scope {new_scope}")


@click.command()
@click.argument("chunk_id")
@click.option("--depth", type=click.Choice(DEPTHS), default="full", show_default=True,
              help="summary (~20 tokens), outcome, full, or complete (every field).")
@click.option("--archived", is_flag=True, help="Also look in the archive.")
@click.option("--sensitive", is_flag=True, help="Show it even if marked high or hyper sensitivity.")
@json_option
@pass_env
def get(env, chunk_id, depth, archived, sensitive, as_json):
    """Show one memory (full id, or the 8-hex tail shown in recalled context).

    Example: rlm-mem get chunk-2026-02-10-a1b2c3d4 --depth full
    """
    try:
        chunk = actions.show(env.store, chunk_id, archived=archived,
                             max_sensitivity=None if sensitive else sensitivity.DEFAULT_LIMIT)
    except ChunkValidationError as exc:  # too sensitive: the person may ask again with --sensitive
        raise click.ClickException(f"{exc}; add --sensitive to show it") from None
    if as_json:
        emit_json(chunk.to_dict())
    else:
        click.echo(actions.chunk_text(chunk, depth))

@click.command()
@click.argument("chunk_id")
@click.option("--content", default=None, help="New content ('-' reads stdin).")
@click.option("--type", "chunk_type", type=TYPE_CHOICE)
@click.option("--tags", default=None, help="Replace the tags (comma-separated).")
@click.option("--confidence", type=float, default=None)
@click.option("--sensitivity", type=SENSITIVITY_CHOICE, default=None)
@click.option("--deletion-policy", "deletion_policy", type=POLICY_CHOICE, default=None,
              help="auto_prune, manual_only or never.")
@click.option("--reason", default=None, help="Why (kept in the audit log).")
@json_option
@pass_env
def update(env, chunk_id, content, chunk_type, tags, confidence, sensitivity, deletion_policy, reason, as_json):
    """Change a memory's content, type, tags, confidence, sensitivity or deletion policy.

    Example: rlm-mem update 1a2b3c4d --deletion-policy never
    """
    if all(v is None for v in (content, chunk_type, tags, confidence, sensitivity, deletion_policy)):
        raise click.UsageError("nothing to change: give --content, --type, --tags, --confidence, --sensitivity or "
                               "--deletion-policy")
    chunk = actions.update(env.store, chunk_id, reason=reason,
                           content=None if content is None else read_content(content), chunk_type=chunk_type,
                           tags=tags, confidence=parse_confidence(confidence), sensitivity=sensitivity,
                           deletion_policy=deletion_policy, max_sensitivity=None, lower_sensitivity=True)
    emit_json(chunk.to_dict()) if as_json else click.echo(chunk.id)

@click.command()
@click.argument("chunk_id")
@click.option("--permanent", is_flag=True, help="Remove the file and every link to it (cannot be undone).")
@click.option("--reason", default=None, help="Why (kept in the audit log).")
@pass_env
def forget(env, chunk_id, permanent, reason):
    """Archive a memory (restore brings it back), or delete it with --permanent."""
    chunk_id = actions.forget(env.store, chunk_id, permanent=permanent, reason=reason, max_sensitivity=None)
    click.echo(f"{'deleted' if permanent else 'archived'} {chunk_id}")

@click.command()
@click.argument("chunk_id")
@pass_env
def restore(env, chunk_id):
    """Bring an archived memory back."""
    chunk = env.store.restore_chunk(env.full_id(chunk_id))
    click.echo(f"restored {chunk.id}")

@click.command(name="list")
@click.option("--conversation", default=None)
@click.option("--tags", default=None, help="Only chunks carrying all these tags (comma-separated).")
@click.option("--type", "chunk_type", type=TYPE_CHOICE)
@click.option("--since", default=None, help="ISO date or time, e.g. 2026-02-01.")
@click.option("--until", default=None, help="ISO date or time (a date includes that whole day).")
@click.option("--project", default=None, help="Project id.")
@click.option("--kind", default=None, help="memory, turn, correction, decision, session, ...")
@click.option("--archived", is_flag=True, help="List the archive instead.")
@click.option("--sensitive", is_flag=True, help="Include chunks marked high or hyper sensitivity.")
@click.option("--limit", type=click.IntRange(min=1), default=None)
@json_option
@pass_env
def list_cmd(env, conversation, tags, chunk_type, since, until, project, kind, archived, sensitive, limit,
             as_json):
    """List memories, oldest first.  Example: rlm-mem list --type decision --since 2026-02-01"""
    try:
        chunks, hidden = actions.list_memories(
            env.store, conversation_id=conversation, tags=tags, chunk_type=chunk_type, since=since, until=until,
            project=project, kind=kind, archived=archived, limit=limit,
            max_sensitivity=None if sensitive else sensitivity.DEFAULT_LIMIT)
    except actions.InvalidDate as exc:  # a --since or --until that is not a date: a usage error
        raise click.UsageError(f"--{exc}") from None  # the option as typed
    if hidden and not as_json:
        click.echo(f"({hidden} sensitive chunks hidden; add --sensitive to show them)", err=True)
    if as_json:
        emit_json([c.to_dict() for c in chunks])
        return
    if not chunks:
        click.echo("no memories match", err=True)
    for c in chunks:
        click.echo(actions.chunk_line(c))

@click.command()
@click.argument("source_id")
@click.argument("target_id")
@click.option("--type", "link_type", type=click.Choice(MANUAL_LINK_TYPES), required=True,
              help="How SOURCE relates to TARGET: SOURCE solves TARGET, SOURCE caused_by TARGET, ...")
@click.option("--strength", type=click.FloatRange(0.0, 1.0), default=None, help="0 to 1: how strong the relation is.")
@click.option("--context", default=None, help="One sentence saying why they are related.")
@click.option("--remove", is_flag=True, help="Remove the link instead.")
@json_option
@pass_env
def link(env, source_id, target_id, link_type, strength, context, remove, as_json):
    """Relate one memory to another: supports, contradicts, solves, causes, builds_on, alternative_to, requires,
    follows, related_to, caused_by, led_to, blocked_by.

    \b
    Examples:
      rlm-mem link 1a2b3c4d 5e6f7a8b --type solves --strength 0.8 --context "keepalive stops the idle drops"
      rlm-mem link 1a2b3c4d 5e6f7a8b --type contradicts
    """
    chunk, target_id = actions.link(env.store, env.full_id(source_id), env.full_id(target_id), link_type,
                                    remove=remove, strength=strength, context=context, max_sensitivity=None)
    if as_json:
        emit_json(chunk.to_dict())
    else:
        click.echo(f"{'unlinked' if remove else 'linked'} {chunk.id} {link_type} {target_id}")


def _status_command(action, verb: str, example: str, doc: str):
    @click.command(name=verb, help=f"{doc}\n\nExample: {example}")
    @click.argument("chunk_id")
    @click.option("--reason", default=None, help="Why (kept in the audit log).")
    @json_option
    @pass_env
    def command(env, chunk_id, reason, as_json):
        chunk = action(env.store, env.full_id(chunk_id), reason=reason)
        actions.refresh_brief(env.root, chunk.project or env.project.id)
        emit_json(chunk.to_dict()) if as_json else click.echo(f"{chunk.id}: {chunk.status}")

    return command


contest = _status_command(lifecycle.contest, "contest", 'rlm-mem contest 1a2b3c4d --reason "the port changed?"',
                          "Mark a memory as disputed: still recalled, always marked contested, until reinstated.")
retract = _status_command(lifecycle.retract, "retract", 'rlm-mem retract 1a2b3c4d --reason "this was wrong"',
                          "Withdraw a memory as wrong: kept for the record, never recalled or injected until "
                          "reinstated.")
reinstate = _status_command(lifecycle.reinstate, "reinstate", "rlm-mem reinstate 1a2b3c4d",
                            "Make a contested or retracted memory active again.")


@click.command()
@pass_env
def reindex(env):
    """Rebuild every index (JSON indexes, search index, access counts, chapters and wisdom) from the chunk files."""

    with progress_bar("reindexing") as progress:
        result = env.store.reindex(progress=progress)
    refresh_narrative(env.root, rebuild=True)  # chapters and wisdom, derived from what was just indexed
    click.echo(f"reindexed {result['chunks']} chunks" +
               (f" ({result['skipped']} unreadable files skipped; run `rlm-mem doctor`)" if result["skipped"] else ""))

@click.command()
@json_option
@pass_env
def stats(env, as_json):
    """Counts by type and kind, archive size, disk use."""
    s = env.store.stats()
    if as_json:
        emit_json(s)
        return
    click.echo(f"memory root: {s['root']}")
    click.echo(f"chunks: {s['chunks']} ({s['tokens']} tokens), archived: {s['archived']}")
    click.echo("by type: " + ", ".join(f"{k} {v}" for k, v in s["by_type"].items()))
    click.echo("by kind: " + ", ".join(f"{k} {v}" for k, v in s["by_kind"].items()))
    click.echo(f"disk: {s['bytes_on_disk']:,} bytes")
