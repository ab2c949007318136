"""The local page: `rlm-mem serve` shows memory in a browser and lets a person tend it (brain/web)."""
import errno
import sys
import webbrowser

import click

from brain.cli.common import pass_env
from brain.util.errors import RlmMemError
from brain.web.server import MemoryServer


@click.command()
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 (0: any free port).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the default browser.")
@click.option("--read-only", is_flag=True, help="Show memory only: no pin, forget, edit or any other change.")
@pass_env
def serve(env, port, open_browser, read_only):
    """Serve a page to see and tend memory, on 127.0.0.1 only; prints its address first.

    The address carries a token made for this run: only someone who has it can open the page, and changes are
    accepted only from the page itself. Every asset is local (it works offline). Ctrl-C stops it.

    \b
    Examples:
      rlm-mem serve --open
      rlm-mem serve --port 8765 --read-only
    """
    if not read_only:
        try:
            env.store.sync_derived()  # chunk files changed behind our back (a git pull): index them first
        except (RlmMemError, OSError) as exc:
            click.echo(f"note: the index could not be brought up to date ({exc}); showing it as it is", err=True)
    try:
        server = MemoryServer(env.root, env.project, port=port, read_only=read_only)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise click.ClickException(f"port {port} is in use; choose another with --port (0: any free port)")
        raise
    click.echo(server.url)
    click.echo(f"Memory at {env.root} for project {env.project.name}"
               + (" (read-only)" if read_only else "") + ". Ctrl-C stops.")
    sys.stdout.flush()
    if open_browser:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
