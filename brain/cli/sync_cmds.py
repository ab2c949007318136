"""`rlm-mem sync`: your own memory, the same on every machine, through a git remote you own."""
import click

from brain.cli.common import emit_json, json_option, pass_env
from brain.context.location import own_root
from brain.sync.engine import stop_sync, sync_state
from brain.sync.engine import sync as run_sync


@click.command()
@click.option("--remote", "remote", metavar="URL", default=None,
              help="Set up (or change) the remote: a private repository of yours or a bare one on your server. "
                   "An empty one gets this memory; one with memory is merged into it. No password or token in "
                   "the URL: git's credential helper or SSH keeps those.")
@click.option("--status", "show_status", is_flag=True, help="Say where sync stands, without the network.")
@click.option("--off", "turn_off", is_flag=True, help="Stop syncing here (the memory stays; the remote too).")
@json_option
@pass_env
def sync(env, remote, show_status, turn_off, as_json):
    """Sync your own memory with a git remote: commit here, fetch, merge, push.

    Memories never conflict: each is one file; one changed on two machines keeps the later change (the other
    is kept in the audit log); forgets, restores and pins travel; a permanent delete stays deleted. Indexes,
    access counts and runtime state never leave this machine. With sync set up, the background worker syncs
    when a session ends and at most every few minutes while sessions run.

    \b
    Examples:
      rlm-mem sync --remote git@github.com:me/my-memory.git
      rlm-mem sync
      rlm-mem sync --status --json
    """
    if sum(map(bool, (remote, show_status, turn_off))) > 1:
        raise click.UsageError("give one of --remote URL, --status or --off")
    root, _ = own_root(env.explicit_dir)
    if show_status:
        state = sync_state(root)
        if as_json:
            emit_json(dict(state, root=str(root)))
        else:
            click.echo(_describe(root, state))
        return
    if turn_off:
        stopped = stop_sync(root)
        if as_json:
            emit_json({"root": str(root), "stopped": stopped})
        else:
            click.echo(f"sync stopped for {root} (the memory and the remote stay as they are)" if stopped
                       else f"sync was not set up for {root}")
        return
    result = run_sync(root, remote=remote)
    if as_json:
        emit_json(dict(result.to_dict(), root=str(root)))
    else:
        click.echo(result.summary())


def _describe(root, state: dict) -> str:
    if not state.get("configured"):
        return f"sync is not set up for {root} (`rlm-mem sync --remote URL`)"
    lines = [f"memory {root} syncs with {state['remote']}",
             f"last synced: {state.get('synced') or 'never'}"]
    if state.get("error"):
        lines.append(f"behind: the last sync ({state.get('attempted')}) failed: {state['error']}")
    lines.append(f"{state['changed_files']} file(s) changed here since the last commit, "
                 f"{state['unpushed_commits']} commit(s) not pushed")
    for path, why in sorted(state.get("held", {}).items())[:10]:
        lines.append(f"held back (not synced): {path}: {why}")
    return "\n".join(lines)
