"""Store commands: remember, get, update, scope, forget, restore, list, link, reindex, stats."""
import sys

import click

from brain.cli.common import emit_json, json_option, pass_env, progress_bar
from brain.capture.scopes import scope_of
from brain.recall.depth import DEPTHS, render, summary_line
from brain.session.brief import refresh_briefs
from brain.store import sensitivity
from brain.store.chunk import CHUNK_TYPES
from brain.store.lifecycle import SCOPES, remember_memory, set_scope
from brain.util.timestamps import normalize_timestamp

TYPE_CHOICE = click.Choice(CHUNK_TYPES)
SENSITIVITY_CHOICE = click.Choice(sensitivity.LEVELS)
SCOPE_CHOICE = click.Choice(SCOPES)


def too_sensitive(chunk) -> bool:
    """Shown only when asked (--sensitive)."""
    return sensitivity.above(chunk.metadata.get("sensitivity"))


def chunk_line(chunk) -> str:
    d = chunk.to_dict()
    flags = "".join([" 📌" if chunk.pinned else "", f" [{chunk.status}]" if chunk.status != "active" else ""])
    return f"{chunk.id}  {chunk.created[:10]}  {chunk.type:<10} {summary_line(d, 70)}{flags}"


def show_chunk(chunk, depth: str) -> str:
    d = chunk.to_dict()
    if depth == "complete":
        return render(d, depth)
    md = chunk.metadata
    head = (f"{chunk.id} · {chunk.type} · {chunk.created.replace('T', ' ')[:16]} · confidence {md['confidence']:.2f}"
            f" · accessed {md['access_count']}×")
    if chunk.tags:
        head += " · tags: " + ", ".join(chunk.tags)
    lines = [head, render(d, depth)]
    links = [f"  {t} → {', '.join(v)}" for t, v in chunk.links.items() if v]
    if links and depth == "full":
        lines += ["links:"] + links
    return "\n".join(lines)


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
@json_option
@pass_env
def remember(env, content, chunk_type, tags, conversation, confidence, supersedes, pin, sensitivity, scope,
             as_json):
    """Store a memory (argument or stdin); prints the new ids.

    Long text is split into chunks of at most 800 tokens.

    \b
    Examples:
      rlm-mem remember "The staging database listens on port 5433" --tags db
      rlm-mem remember "I prefer pytest over unittest" --scope user
    """
    content = read_content(content)
    parse_confidence(confidence)


    project = env.project
    chosen = scope or scope_of(content)
    chunks = remember_memory(env.store, content, chunk_type=chunk_type, tags=tags, conversation_id=conversation,
                             confidence=confidence, supersedes=[env.full_id(ref) for ref in supersedes], pinned=pin, project=project.id,
                             extra_metadata={"project_name": project.name, "sensitivity": sensitivity,
                                             "scope": None if chosen == "project" else chosen})
    if scope:  # said again with a scope: the memory it repeats takes that scope
        chunks = [set_scope(env.store, c.id, scope) if _scope(c) != scope else c for c in chunks]
    _refresh_brief(env, project.id)
    if as_json:
        emit_json([c.to_dict() for c in chunks])
    else:
        for c in chunks:
            click.echo(c.id)

def _scope(chunk) -> str:
    return chunk.metadata.get("scope") or "project"


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


def _refresh_brief(env, project_id: str) -> None:
    """This project's session-start brief, computed now that a memory joined it, so that the next session start
    finds it ready (bench/run.py: the first start after a write). A cache: failing to refresh it loses nothing."""
    try:
        refresh_briefs(env.root, project_id=project_id, stale_only=True)
    except Exception:  # noqa: BLE001 - the next session start computes it
        pass


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
    chunk_id = env.store.resolve_id(chunk_id)
    chunk = env.store.get_chunk(chunk_id, include_archived=archived, track=False)
    if chunk is None:
        hint = "" if archived else "; add --archived to look in the archive"
        raise click.ClickException(f"no chunk {chunk_id} in {env.root}{hint}")
    if too_sensitive(chunk) and not sensitive:
        raise click.ClickException(f"{chunk_id} is marked {chunk.metadata['sensitivity']} sensitivity; "
                                   "add --sensitive to show it")
    chunk = env.store.get_chunk(chunk_id, include_archived=archived)  # counts as a use only when shown
    if as_json:
        emit_json(chunk.to_dict())
    else:
        click.echo(show_chunk(chunk, depth))

@click.command()
@click.argument("chunk_id")
@click.option("--content", default=None, help="New content ('-' reads stdin).")
@click.option("--type", "chunk_type", type=TYPE_CHOICE)
@click.option("--tags", default=None, help="Replace the tags (comma-separated).")
@click.option("--confidence", type=float, default=None)
@click.option("--sensitivity", type=SENSITIVITY_CHOICE, default=None)
@click.option("--reason", default=None, help="Why (kept in the audit log).")
@json_option
@pass_env
def update(env, chunk_id, content, chunk_type, tags, confidence, sensitivity, reason, as_json):
    """Change a memory's content, type, tags or confidence."""
    changes = {}
    if content is not None:
        changes["content"] = read_content(content)
    if chunk_type:
        changes["chunk_type"] = chunk_type
    if tags is not None:
        changes["tags"] = tags
    if confidence is not None:
        changes["confidence"] = parse_confidence(confidence)
    if sensitivity:
        changes["sensitivity"] = sensitivity
    if not changes:
        raise click.UsageError("nothing to change: give --content, --type, --tags, --confidence or --sensitivity")
    chunk = env.store.revise_chunk(env.full_id(chunk_id), reason=reason, **changes)
    emit_json(chunk.to_dict()) if as_json else click.echo(chunk.id)

@click.command()
@click.argument("chunk_id")
@click.option("--permanent", is_flag=True, help="Remove the file and every link to it (cannot be undone).")
@click.option("--reason", default=None, help="Why (kept in the audit log).")
@pass_env
def forget(env, chunk_id, permanent, reason):
    """Archive a memory (restore brings it back), or delete it with --permanent."""
    chunk_id = env.full_id(chunk_id)
    if not env.store.delete_chunk(chunk_id, permanent=permanent, reason=reason):
        raise click.ClickException(f"no chunk {chunk_id} in {env.root}")
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
    for name, value in (("--since", since), ("--until", until)):
        if value:
            try:
                normalize_timestamp(value)
            except ValueError:
                raise click.BadParameter("not an ISO date or time", param_hint=name) from None
    chunks = env.store.list_chunks(conversation_id=conversation, tags=tags, chunk_type=chunk_type, since=since,
                                   until=until, project=project, kind=kind, archived=archived)
    hidden = 0 if sensitive else sum(1 for c in chunks if too_sensitive(c))
    if hidden:
        chunks = [c for c in chunks if not too_sensitive(c)]
    chunks = chunks[:limit] if limit else chunks
    if hidden and not as_json:
        click.echo(f"({hidden} sensitive chunks hidden; add --sensitive to show them)", err=True)
    if as_json:
        emit_json([c.to_dict() for c in chunks])
        return
    if not chunks:
        click.echo("no memories match", err=True)
    for c in chunks:
        click.echo(chunk_line(c))

@click.command()
@click.argument("source_id")
@click.argument("target_id")
@click.option("--type", "link_type", type=click.Choice(["supports", "contradicts"]), required=True)
@click.option("--remove", is_flag=True, help="Remove the link instead.")
@pass_env
def link(env, source_id, target_id, link_type, remove):
    """Record that one memory supports or contradicts another."""
    source_id, target_id = env.full_id(source_id), env.full_id(target_id)
    env.store.link_chunks(source_id, target_id, link_type, remove=remove)
    click.echo(f"{'unlinked' if remove else 'linked'} {source_id} {link_type} {target_id}")


@click.command()
@pass_env
def reindex(env):
    """Rebuild every index (JSON indexes, search index, access counts) from the chunk files."""

    with progress_bar("reindexing") as progress:
        result = env.store.reindex(progress=progress)
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
