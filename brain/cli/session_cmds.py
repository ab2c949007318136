"""Session lifecycle commands: hud, statusline, where, install, uninstall, enable, disable (ingest: ingest_cmds)."""
import json
import os
import sys
from pathlib import Path

import click

from brain.capture.queue import pending_count
from brain.cli.common import emit_json, json_option, pass_env
from brain.context.project import project_id, set_memory_enabled
from brain.hud import state as hudlib
from brain.hud.render import render_statusline
from brain.hud.state import load_hud_state
from brain.context.dependencies import ENV_TRANSCRIPT
from brain.session.brief import current_brief, hud_text
from brain.setup.install import claude_json_path
from brain.setup.install import install as do_install
from brain.setup.install import uninstall as do_uninstall
from brain.sync.status import behind_note

BUNDLE_ROOT = Path(__file__).resolve().parents[2]


def _settings_target(project_dir, user):
    """(settings file, skills folder, project): a project's hooks go to its settings.local.json (they name this
    machine's paths, and Claude Code keeps that file out of the repository)."""
    if bool(project_dir) == bool(user):
        raise click.UsageError("give exactly one of --project DIR or --user")
    if user:
        home = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
        return home / "settings.json", home / "skills", None
    project = Path(project_dir).resolve()
    if not project.is_dir():
        raise click.ClickException(f"{project} is not a folder; give the project's root folder")
    return project / ".claude" / "settings.local.json", project / ".claude" / "skills", project


@click.group(invoke_without_command=True)
@click.pass_context
def hud(ctx):
    """Print the LiveHud; `hud set NAME N`, `hud mode NAME`, `hud reset` change its sliders."""
    if ctx.invoked_subcommand is None:
        env = ctx.find_object(type(ctx.obj))
        click.echo(_render_hud(env))

@hud.command(name="set")
@click.argument("name")
@click.argument("value")
@pass_env
def hud_set(env, name, value):
    """Set a slider, e.g. `rlm-mem hud set Humor 70`."""

    state = hudlib.load_hud_state(env.root)
    try:
        hudlib.set_slider(state, name, value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    hudlib.save_hud_state(env.root, state)
    click.echo(_render_hud(env))

@hud.command(name="mode")
@click.argument("name", type=click.Choice(["Base", "Research", "Creative", "Technical", "Concise"],
                                          case_sensitive=False))
@pass_env
def hud_mode(env, name):
    """Switch to a mode: Base, Research, Creative, Technical, Concise."""

    state = hudlib.apply_mode(hudlib.load_hud_state(env.root), name)
    hudlib.save_hud_state(env.root, state)
    click.echo(_render_hud(env))

@hud.command(name="reset")
@pass_env
def hud_reset(env):
    """Put every slider back to its default."""

    hudlib.save_hud_state(env.root, hudlib.reset(hudlib.load_hud_state(env.root)))
    click.echo(_render_hud(env))

@click.command()
@pass_env
def statusline(env):
    """One-line HUD for Claude Code's status line (reads the status JSON on stdin when given)."""
    payload = {}
    if sys.stdin is not None and not sys.stdin.isatty():
        try:
            payload = json.loads(sys.stdin.read(1_000_000) or "{}")
        except ValueError:
            payload = {}
    brief = _brief(env, payload.get("cwd") if isinstance(payload, dict) else None)
    click.echo(render_statusline(load_hud_state(env.root), brief.get("loaded", 0), pending_count(env.root),
                                 brief.get("intent") or brief.get("past") or "Fresh session",
                                 sync_note=behind_note(env.root)))

@click.command()
@json_option
@pass_env
def where(env, as_json):
    """Say which memory folder is in use and why."""
    if as_json:
        emit_json({"root": str(env.root), "reason": env.reason, "exists": Path(env.root).is_dir()})
    else:
        click.echo(f"{env.root}\n  because: {env.reason}" +
                   ("" if Path(env.root).is_dir() else "\n  (not created yet: the first memory creates it)"))

@click.command()
@click.option("--project", "project_dir", type=click.Path(file_okay=False), help="Install into DIR/.claude/.")
@click.option("--user", is_flag=True, help="Install into ~/.claude/ (every project).")
@click.option("--memory-in-project", is_flag=True,
              help="Keep this project's memory in the repository (DIR/.rlm-mem/) so the team shares it.")
def install(project_dir, user, memory_in_project):
    """Wire rlm-mem's hooks into Claude Code's settings, make the skill visible, register the MCP server.

    A project gets them in DIR/.claude/settings.local.json (this machine's paths stay out of the repository) and
    its MCP server in ~/.claude.json for that project; --user in ~/.claude/settings.json, for every project.
    Keeps every other setting and the file's formatting, keeps a backup outside the project, and adds nothing on
    a second run.

    \b
    Examples:
      rlm-mem install --project ~/code/my-app
      rlm-mem install --user
    """
    settings, skills, project = _settings_target(project_dir, user)
    if memory_in_project and project is None:
        raise click.UsageError("--memory-in-project needs --project DIR")
    report = do_install(settings, BUNDLE_ROOT, skills_dir=skills, project=project,
                        memory_dir=(project / ".rlm-mem") if memory_in_project else None,
                        mcp_config=claude_json_path())
    click.echo(report.summary())

@click.command()
@click.option("--project", "project_dir", type=click.Path(file_okay=False))
@click.option("--user", is_flag=True)
def uninstall(project_dir, user):
    """Remove exactly what `install` added (hooks, skill link, MCP server, memory-folder setting).

    Example: rlm-mem uninstall --project ~/code/my-app"""

    settings, _, _ = _settings_target(project_dir, user)
    click.echo(do_uninstall(settings, BUNDLE_ROOT).summary())

@click.command()
@click.argument("project_dir", type=click.Path(file_okay=False), default=".")
def disable(project_dir):
    """Switch memory off for a project (no capture, nothing injected)."""
    _switch(project_dir, False)

@click.command()
@click.argument("project_dir", type=click.Path(file_okay=False), default=".")
def enable(project_dir):
    """Switch memory back on for a project."""
    _switch(project_dir, True)


def _switch(project_dir, enabled: bool):
    info = project_id(project_dir)
    if info.root is None:
        raise click.ClickException(f"{project_dir} is not a folder")
    path = set_memory_enabled(info.root, enabled)
    click.echo(f"memory {'on' if enabled else 'off'} for {info.name} ({path})")


def _brief(env, cwd=None) -> dict:
    if not (Path(env.root) / "index").is_dir():
        return {}
    try:
        return current_brief(env.root, project_id(cwd or os.getcwd()), writable=os.access(env.root, os.W_OK))
    except Exception:  # no usable index yet: an empty HUD is still a HUD
        return {}


def _render_hud(env) -> str:
    """Inside a Claude Code session (its Bash tool: CLAUDECODE=1, and the transcript the SessionStart hook
    exported) the session's LiveHud; in a plain shell "Session: None"."""
    class _Session:
        transcript_path = os.environ.get(ENV_TRANSCRIPT, "")

    inside = bool(_Session.transcript_path) or os.environ.get("CLAUDECODE") == "1"
    return hud_text(env.root, _Session(), active=True if inside else None, brief=_brief(env))
