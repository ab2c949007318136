"""Install rlm-mem's hooks into a Claude Code settings file, and take exactly those out again.

`install()` adds the bundle's `hooks/hooks.json` (plugin format; `${CLAUDE_PLUGIN_ROOT}` replaced by the bundle's
absolute path) to a settings file, and pre-approves the skill (`permissions.allow: Skill(rlm-mem)`: the skill's
own `allowed-tools` then let Claude run rlm-mem's command line without asking). Those paths belong to one
machine, so a project's hooks go to `<project>/.claude/settings.local.json`, the settings file Claude Code keeps
out of the repository; `--user` uses `~/.claude/settings.json`.

The file is edited as text (brain/setup/json_text.py): its own formatting stays, and only the added lines change.
Our matcher groups are recognised by their commands, so a second run adds nothing and a changed hooks.json
replaces the old groups. A file that is not valid JSON is never touched (`InstallError`).

Also:
- the skill: `<skills_dir>/rlm-mem` becomes a symlink to the bundle, or, where symlinks fail, a folder holding a
  pointer SKILL.md; in a git repository, the settings file and the skill link are listed in the repository's
  `info/exclude` unless git already ignores them, so nothing machine-specific gets committed;
- the MCP server (`rlm-mem mcp`, when `mcp_config` is given: Claude Code's `~/.claude.json`): registered for the
  project (its `projects.<folder>.mcpServers`, Claude Code's "local" scope: this machine, this project, nothing in
  the repository) or, for `--user`, for every project (top-level `mcpServers`), and its tools pre-approved
  (`mcp__rlm-mem` in the settings' `permissions.allow`, as the skill is). Claude Code rewrites that file all the
  time, so uninstall takes out exactly the entry install added (and the containers it made, when empty), never
  the file as a whole;
- `memory_dir` (memory kept with the project, for the team): when the settings file belongs to a project
  (`<project>/.claude/settings*.json`) and `memory_dir` is inside that project, it is recorded as a relative path in
  `<project>/.rlm-mem.json` (`{"memory_dir": "..."}`, committed with the repository, read by context/location.py);
  otherwise as an absolute `RLM_MEM_DIR` in the settings' `env` block.

What install did is recorded outside the project, in `$XDG_STATE_HOME/rlm-mem/installs/` (default
`~/.local/state/...`), with a backup of the settings file as it was. `uninstall()` takes out exactly that: a file
nobody changed since is given back byte for byte (the backup); otherwise our entries are taken out of the text
as it is now. Folders install created go when they are empty, and the record and backup go too.
"""
import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import yaml

from brain.context.project import CONFIG_NAME, ProjectConfigError, read_config
from brain.setup import json_text
from brain.util.errors import RlmMemError
from brain.util.files import write_user_bytes, write_user_json, write_user_text

PLACEHOLDER = "${CLAUDE_PLUGIN_ROOT}"
SKILL_NAME = "rlm-mem"
SKILL_PERMISSION = f"Skill({SKILL_NAME})"
MCP_SERVER = "rlm-mem"
MCP_PERMISSION = f"mcp__{MCP_SERVER}"  # every tool of that server
POINTER_MARK = "<!-- rlm-mem install pointer -->"
EXCLUDE_MARK = "# rlm-mem install (rlm-mem uninstall takes these lines out)"


class InstallError(RlmMemError):
    """The settings (or a file next to them) cannot be changed safely; the message says why and what to do."""


@dataclass
class InstallReport:
    settings_path: Path
    added: list = field(default_factory=list)  # "Event: command" lines
    unchanged: list = field(default_factory=list)
    removed: list = field(default_factory=list)
    notes: list = field(default_factory=list)  # skill link, memory folder, things left alone
    backup: Path | None = None
    changed: bool = False

    def summary(self) -> str:
        lines = [f"{self.settings_path}:"]
        lines += [f"  added {a}" for a in self.added] + [f"  removed {r}" for r in self.removed]
        if self.unchanged and not self.added and not self.removed:
            lines.append("  hooks already installed")
        lines += [f"  {n}" for n in self.notes]
        if self.backup:
            lines.append(f"  backup of the file as it was: {self.backup}")
        if not self.changed:
            lines.append("  nothing to change (already installed)" if self.unchanged else "  nothing to change")
        return "\n".join(lines)


# --- the bundle's hooks ----------------------------------------------------------------------------------------

def _shell_substitute(command: str, value: str) -> str:
    """Replace the placeholder, escaping `value` for the shell quoting it appears in (so spaces and quotes work)."""
    out, quote, i = [], None, 0
    while i < len(command):
        if command.startswith(PLACEHOLDER, i):
            if quote == '"':
                out.append("".join("\\" + c if c in '\\"$`' else c for c in value))
            elif quote == "'":
                out.append(value.replace("'", "'\\''"))
            else:
                out.append(_shell_word(value))
            i += len(PLACEHOLDER)
            continue
        c = command[i]
        if c == "\\" and quote != "'":
            out.append(command[i:i + 2])
            i += 2
            continue
        if c in "'\"" and quote in (None, c):
            quote = None if quote == c else c
        out.append(c)
        i += 1
    return "".join(out)


def _shell_word(value: str) -> str:
    """`value` as one word for the shell: as it is when nothing in it is special, else single-quoted."""
    if not any(c in value for c in " \t'\"$`\\;&|<>()*?[]#~"):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def _substitute(value, root: str, key: str = ""):
    if isinstance(value, dict):
        return {k: _substitute(v, root, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, root) for v in value]
    if isinstance(value, str) and PLACEHOLDER in value:
        return _shell_substitute(value, root) if key == "command" else value.replace(PLACEHOLDER, root)
    return value


def bundle_hooks(bundle_root: Path) -> dict:
    """The bundle's hooks ({Event: [matcher groups]}) with `${CLAUDE_PLUGIN_ROOT}` replaced by its absolute path."""
    root = Path(bundle_root).expanduser().resolve()
    path = root / "hooks" / "hooks.json"
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InstallError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise InstallError(f"{path} is not valid JSON: {exc}") from exc
    hooks = spec.get("hooks") if isinstance(spec, dict) else None
    if not isinstance(hooks, dict) or not all(isinstance(g, list) for g in hooks.values()):
        raise InstallError(f"{path} must look like {{\"hooks\": {{\"SessionStart\": [...]}}}}")
    return _substitute(hooks, str(root))


def _commands(group) -> list:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return [h.get("command") for h in hooks or [] if isinstance(h, dict) and h.get("command")]


def _is_ours(group, our_commands: set) -> bool:
    commands = _commands(group)
    return bool(commands) and all(c in our_commands for c in commands)


def _describe(event: str, group: dict) -> str:
    return f"{event}: {' ; '.join(_commands(group))}"


# --- the settings file -----------------------------------------------------------------------------------------

def _read_settings(path: Path, objects=("hooks", "env", "permissions")):
    """(text, value): the file's text ("" when missing) and its JSON value, checked for the shapes we edit (the
    members named in `objects` must be JSON objects)."""
    try:
        text = path.read_bytes().decode("utf-8")  # as it is: read_text would turn \r\n line ends into \n
    except FileNotFoundError:
        return "", {}
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path}: {exc}") from exc
    if not text.strip():
        return text, {}
    try:
        settings = json_text.parse(text).value(text)
    except ValueError as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); fix it by hand, nothing was changed") from exc
    if not isinstance(settings, dict):
        raise InstallError(f"{path} must hold a JSON object; nothing was changed")
    for key in objects:
        if key in settings and not isinstance(settings[key], dict):
            raise InstallError(f"\"{key}\" in {path} must be a JSON object; nothing was changed")
    for event, groups in (settings.get("hooks", {}) if "hooks" in objects else {}).items():
        if not isinstance(groups, list):
            raise InstallError(f"hooks.{event} in {path} must be a list; nothing was changed")
    if "permissions" in objects and not isinstance(settings.get("permissions", {}).get("allow", []), list):
        raise InstallError(f"permissions.allow in {path} must be a list; nothing was changed")
    return text, settings


class _Edit:
    """The settings text being edited, and which containers the edits created (uninstall drops them if empty)."""

    def __init__(self, text: str, created: list):
        self.text = text if text.strip() else "{}\n"
        self.created = [list(p) for p in created]

    def value(self):
        return json_text.parse(self.text).value(self.text)

    def add(self, path: list, item, *, key=None) -> None:
        root = json_text.parse(self.text)
        for depth in range(1, len(path) + 1):
            if json_text.find(root, path[:depth]) is None and path[:depth] not in self.created:
                self.created.append(path[:depth])
        self.text = json_text.add(self.text, path, item, key=key)

    def remove_where(self, path: list, matches) -> list:
        """Take out every child of the container at `path` for which matches(key, value) holds; their values."""
        gone = []
        while True:
            root = json_text.parse(self.text)
            node = json_text.find(root, path)
            if node is None or node.kind not in ("object", "array"):
                return gone
            hit = next((i for i, (k, _, child) in enumerate(node.children) if matches(k, child.value(self.text))),
                       None)
            if hit is None:
                return gone
            gone.append(node.children[hit][2].value(self.text))
            self.text = json_text.remove(self.text, node, hit)

    def drop_created(self) -> None:
        """Containers this install created and that are empty now go (deepest first)."""
        for path in sorted(self.created, key=len, reverse=True):
            node = json_text.find(json_text.parse(self.text), path)
            if node is not None and node.kind in ("object", "array") and not node.children:
                self.remove_where(path[:-1], lambda k, v, name=path[-1]: k == name)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write(path: Path, data: bytes, new_mode: int = 0o644) -> None:
    mode = path.stat().st_mode & 0o777 if path.exists() else new_mode  # a settings file is not secret
    write_user_bytes(path, data)
    os.chmod(path, mode)  # a shared settings file keeps its permissions


# --- the install record (outside the project) ------------------------------------------------------------------

def records_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "rlm-mem" / "installs"


def _record_path(settings_path: Path) -> Path:
    return records_dir() / f"{hashlib.sha256(str(settings_path).encode()).hexdigest()[:16]}.json"


def _read_record(path: Path) -> dict:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise InstallError(f"{path} (rlm-mem's install record) is damaged ({exc}); restore it or delete it") from exc
    return value if isinstance(value, dict) else {}


# --- skill link ------------------------------------------------------------------------------------------------

def _pointer_text(bundle_root: Path) -> str:
    description = "Persistent memory for Claude Code (rlm-mem)."
    try:
        text = (bundle_root / "SKILL.md").read_text(encoding="utf-8")
        if text.startswith("---"):
            meta = yaml.safe_load(text.split("---", 2)[1]) or {}
            description = str(meta.get("description") or description)
    except (OSError, ValueError, IndexError, AttributeError, yaml.YAMLError):
        pass
    command = f'"{bundle_root}/bin/rlm-mem"'
    return (f"---\nname: {SKILL_NAME}\ndescription: {json.dumps(description, ensure_ascii=False)}\n"
            f"allowed-tools:\n  - {json.dumps(f'Bash({command}:*)')}\n---\n"
            f"{POINTER_MARK}\nThe rlm-mem bundle is installed at `{bundle_root}`. Read `{bundle_root / 'SKILL.md'}` "
            f"and follow it; its command line is `{command}`.\n")


def _link_skill(skills_dir: Path, bundle_root: Path, previous: dict | None, report: InstallReport):
    link = Path(skills_dir).expanduser().absolute() / SKILL_NAME
    ours = previous and previous.get("path") == str(link)
    if link.is_symlink() or link.exists():
        if link.resolve() == bundle_root:
            report.notes.append(f"skill already visible at {link}")
            return previous if ours else None  # a link someone else made stays theirs
        if not ours:
            report.notes.append(f"left {link} alone: it exists and was not made by rlm-mem")
            return None
        if previous.get("kind") == "pointer":
            shutil.rmtree(link)
        else:
            link.unlink()
    link.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.symlink(bundle_root, link, target_is_directory=True)
        kind = "symlink"
    except (OSError, NotImplementedError):
        link.mkdir()
        write_user_text(link / "SKILL.md", _pointer_text(bundle_root))
        kind = "pointer"
    report.notes.append(f"skill made visible at {link} ({kind})")
    report.changed = True
    return {"path": str(link), "kind": kind, "target": str(bundle_root)}


def _unlink_skill(record: dict | None, report: InstallReport) -> None:
    if not record:
        return
    link = Path(record["path"])
    if record.get("kind") == "symlink" and link.is_symlink() and os.readlink(link) == record.get("target"):
        link.unlink()
    elif record.get("kind") == "pointer" and POINTER_MARK in _read_text(link / "SKILL.md"):
        (link / "SKILL.md").unlink()
        if not any(link.iterdir()):
            link.rmdir()
    else:
        report.notes.append(f"left {link} alone: it changed since install")
        return
    report.notes.append(f"removed skill {link}")
    report.changed = True


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


# --- keeping machine-specific files out of git -----------------------------------------------------------------

def _git(project: Path, *args):
    try:
        done = subprocess.run(["git", "-C", str(project), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done


def _exclude(project: Path, paths: list, report: InstallReport):
    """List `paths` (inside `project`) in the repository's info/exclude unless git ignores them already."""
    top = _git(project, "rev-parse", "--show-toplevel")
    where = _git(project, "rev-parse", "--git-path", "info/exclude")
    if not top or top.returncode or not where or where.returncode:
        return None  # not a git repository (or no git): nothing can be committed by accident
    top_dir = Path(top.stdout.strip())
    exclude = Path(where.stdout.strip())
    exclude = exclude if exclude.is_absolute() else project / exclude
    wanted = []
    for path in paths:
        ignored = _git(project, "check-ignore", "-q", "--no-index", str(path))
        if ignored is not None and ignored.returncode != 0:
            where_it_is = path.parent.resolve() / path.name  # the skill link itself, not the bundle it points to
            wanted.append("/" + where_it_is.relative_to(top_dir.resolve()).as_posix())
    if not wanted:
        return None
    before = exclude.read_bytes() if exclude.exists() else None
    text = (before or b"").decode("utf-8", "replace")
    block = EXCLUDE_MARK + "\n" + "".join(line + "\n" for line in wanted)
    if block in text:
        return {"path": str(exclude), "block": block, "created": before is None}
    sep = "" if not text or text.endswith("\n") else "\n"
    write_user_text(exclude, text + sep + block)
    report.notes.append(f"kept out of git (listed in {exclude}): {', '.join(wanted)}")
    return {"path": str(exclude), "block": sep + block, "created": before is None}


def _unexclude(record, report: InstallReport) -> None:
    if not record:
        return
    path = Path(record["path"])
    text = _read_text(path)
    if record["block"] not in text:
        return
    text = text.replace(record["block"], "", 1)
    if record.get("created") and not text:
        path.unlink()
    else:
        write_user_text(path, text)
    report.notes.append(f"took rlm-mem's lines out of {path}")


# --- memory folder ---------------------------------------------------------------------------------------------

def _owning_project(settings_path: Path):
    # <project>/.claude/settings*.json belongs to <project>; ~/.claude/settings.json belongs to nobody.
    if settings_path.parent.name != ".claude":
        return None
    project = settings_path.parent.parent
    return None if project == Path.home().resolve() else project


def _record_memory_dir(edit: _Edit, settings_path: Path, memory_dir: Path, previous, report: InstallReport):
    memory_dir = Path(memory_dir).expanduser().resolve()
    project = _owning_project(settings_path)
    in_project = project is not None and memory_dir.is_relative_to(project)
    if previous and previous.get("where") != ("config" if in_project else "env"):
        _forget_memory_dir(edit, previous, report)  # recorded the other way last time
        previous = None
    if in_project:
        config_path = project / CONFIG_NAME
        try:
            config = read_config(project)
        except ProjectConfigError as exc:
            raise InstallError(str(exc)) from exc
        value = memory_dir.relative_to(project).as_posix() or "."
        current = config.get("memory_dir")
        if current == value:
            report.notes.append(f"memory folder already recorded in {config_path}")
            return previous
        if current is not None and not (previous and previous.get("value") == current):
            raise InstallError(f"{config_path} already sets memory_dir to {current!r}; edit it by hand")
        record = {"where": "config", "path": str(config_path), "value": value,
                  "created_file": previous["created_file"] if previous else not config_path.exists()}
        config["memory_dir"] = value
        write_user_json(config_path, config)
        os.chmod(config_path, 0o644)  # committed with the project
        report.notes.append(f"memory kept in the project: {memory_dir} (recorded in {config_path})")
        report.changed = True
        return record
    env = edit.value().get("env", {})
    value = str(memory_dir)
    if env.get("RLM_MEM_DIR") == value:
        report.notes.append("RLM_MEM_DIR already set")
        return previous
    if "RLM_MEM_DIR" in env and not (previous and previous.get("value") == env["RLM_MEM_DIR"]):
        raise InstallError(f"{settings_path} already sets env.RLM_MEM_DIR to {env['RLM_MEM_DIR']!r}; edit it by hand")
    edit.remove_where(["env"], lambda k, v: k == "RLM_MEM_DIR")  # our own older value
    edit.add(["env"], value, key="RLM_MEM_DIR")
    report.notes.append(f"memory folder {value} set as env.RLM_MEM_DIR")
    return {"where": "env", "value": value}


def _forget_memory_dir(edit: _Edit, record, report: InstallReport) -> None:
    if not record:
        return
    if record["where"] == "env":
        edit.remove_where(["env"], lambda k, v: k == "RLM_MEM_DIR" and v == record["value"])
        return
    path = Path(record["path"])
    try:
        config = read_config(path.parent)
    except ProjectConfigError:
        report.notes.append(f"left {path} alone: it is not valid JSON any more")
        return
    if config.get("memory_dir") != record["value"]:
        return
    del config["memory_dir"]
    if record.get("created_file") and not config:
        path.unlink()
    else:
        write_user_json(path, config)
        os.chmod(path, 0o644)
    report.notes.append(f"removed memory_dir from {path}")
    report.changed = True


# --- the MCP server --------------------------------------------------------------------------------------------

def claude_json_path() -> Path:
    """Claude Code's own state file, where it keeps MCP servers registered for the user and for each project."""
    base = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(base) if base else Path.home()) / ".claude.json"


def mcp_server(bundle_root: Path) -> dict:
    return {"type": "stdio", "command": str(Path(bundle_root) / "bin" / "rlm-mem"), "args": ["mcp"]}


def _servers_at(project: Path | None) -> list:
    return ["projects", str(project), "mcpServers"] if project is not None else ["mcpServers"]


def _read_claude_json(path: Path, at: list):
    text, value = _read_settings(path, objects=("mcpServers", "projects"))
    node = value
    for key in at:
        node = node.get(key) if isinstance(node, dict) else None
        if node is not None and not isinstance(node, dict):
            raise InstallError(f"{'.'.join(at)} in {path} is not a JSON object; nothing was changed")
    return text, node or {}


def _mcp_state(config: Path, bundle_root: Path, project: Path | None, previous) -> tuple:
    """(text of `config`, where the servers are, our server entry, the one there now, our earlier record or None,
    whether a server of our name there is someone else's)."""
    at = _servers_at(project)
    text, servers = _read_claude_json(config, at)
    wanted, current = mcp_server(bundle_root), servers.get(MCP_SERVER)
    ours = previous if previous and previous.get("path") == str(config) and previous.get("at") == at else None
    foreign = current is not None and current != wanted and not (ours and ours.get("server") == current)
    return text, at, wanted, current, ours, foreign


def _register_mcp(config: Path, bundle_root: Path, project: Path | None, previous, report: InstallReport):
    """Add the server to `config` unless it is there; returns the record uninstall needs (None: nothing ours)."""
    text, at, wanted, current, ours, foreign = _mcp_state(config, bundle_root, project, previous)
    if current == wanted:
        report.notes.append(f"MCP server already registered in {config}")
        return ours
    if foreign:
        report.notes.append(f"left the MCP server {MCP_SERVER!r} in {config} alone: it was not registered by rlm-mem")
        return None
    edit = _Edit(text, ours.get("created", []) if ours else [])
    edit.remove_where(at, lambda k, v: k == MCP_SERVER)  # our own older entry (the bundle moved)
    edit.add(at, wanted, key=MCP_SERVER)
    edit.drop_created()
    _write(config, edit.text.encode("utf-8"), new_mode=0o600)  # Claude Code's state: the person's only
    report.notes.append(f"MCP server {MCP_SERVER!r} registered in {config}"
                        + (f" for {project}" if project is not None else " for every project"))
    report.changed = True
    return {"path": str(config), "at": at, "server": wanted, "created": edit.created,
            "created_file": ours["created_file"] if ours else not text}


def _unregister_mcp(record, report: InstallReport) -> None:
    if not record:
        return
    path, at = Path(record["path"]), record["at"]
    try:
        text, servers = _read_claude_json(path, at)
    except InstallError as exc:
        report.notes.append(f"left the MCP server in {path} alone: {exc}")
        return
    if servers.get(MCP_SERVER) != record["server"]:
        if servers.get(MCP_SERVER) is not None:
            report.notes.append(f"left the MCP server {MCP_SERVER!r} in {path} alone: it changed since install")
        return
    edit = _Edit(text, record.get("created", []))
    edit.remove_where(at, lambda k, v: k == MCP_SERVER)
    edit.drop_created()
    if record.get("created_file") and edit.value() == {}:
        path.unlink()
    else:
        _write(path, edit.text.encode("utf-8"))
    report.notes.append(f"removed the MCP server {MCP_SERVER!r} from {path}")
    report.changed = True


# --- install / uninstall ---------------------------------------------------------------------------------------

def _missing_dirs(path: Path, stop: Path) -> list:
    """The folders from `path` up to (not including) `stop` that do not exist yet, deepest first."""
    out = []
    while path != stop and path != path.parent and not path.exists():
        out.append(str(path))
        path = path.parent
    return out


def _allow(edit: _Edit, rule: str, what: str, key: str, entry: dict, previous: dict, report: InstallReport) -> None:
    """Pre-approve `rule` in permissions.allow unless it is there; `entry[key]` records it when install added it
    (then, and only then, uninstall takes it out)."""
    if rule not in edit.value().get("permissions", {}).get("allow", []):
        edit.add(["permissions", "allow"], rule)
        entry[key] = rule
        report.notes.append(f"pre-approved {what} ({rule} in permissions.allow)")
    elif previous.get(key):
        entry[key] = previous[key]


def install(settings_path: Path, bundle_root: Path, *, skills_dir: Path | None, memory_dir: Path | None = None,
            project: Path | None = None, mcp_config: Path | None = None) -> InstallReport:
    """Add the bundle's hooks and the skill's pre-approval to `settings_path`, make the skill visible, record
    `memory_dir`; `project` (a folder) keeps the machine-specific files out of its git repository and is where the
    MCP server is registered in `mcp_config` (Claude Code's ~/.claude.json; for every project without one)."""
    settings_path = Path(settings_path).expanduser().absolute().resolve()  # a symlinked settings file: edit its target
    bundle_root = Path(bundle_root).expanduser().resolve()
    report = InstallReport(settings_path)
    record_path = _record_path(settings_path)
    previous = _read_record(record_path)
    desired = bundle_hooks(bundle_root)
    text, _ = _read_settings(settings_path)
    existed = settings_path.exists()
    edit = _Edit(text, previous.get("created", []))
    entry = {"settings_path": str(settings_path), "bundle_root": str(bundle_root),
             "created_file": previous.get("created_file", not existed),
             "created_dirs": previous.get("created_dirs", []), "hooks": desired}

    our_commands = {c for groups in (*desired.values(), *previous.get("hooks", {}).values())
                    for g in groups for c in _commands(g)}
    for event in sorted(set(desired) | set(previous.get("hooks", {}))):
        wanted = desired.get(event, [])
        for group in edit.remove_where(["hooks", event], lambda k, g: _is_ours(g, our_commands) and g not in wanted):
            report.removed.append(_describe(event, group))  # an older version of our hooks
        present = edit.value().get("hooks", {}).get(event, [])
        for group in wanted:
            if group in present:
                report.unchanged.append(_describe(event, group))
            else:
                edit.add(["hooks", event], group)
                report.added.append(_describe(event, group))
    _allow(edit, SKILL_PERMISSION, "the skill", "permission", entry, previous, report)
    mcp_project = Path(project).resolve() if project else None
    if mcp_config is not None:
        mcp_config = Path(mcp_config).expanduser().absolute().resolve()  # a symlinked ~/.claude.json: its target
        # read (and refused) before anything is written; someone else's server of our name gets no pre-approval
        if not _mcp_state(mcp_config, bundle_root, mcp_project, previous.get("mcp"))[-1]:
            _allow(edit, MCP_PERMISSION, "its MCP tools", "mcp_permission", entry, previous, report)
        elif previous.get("mcp_permission"):
            entry["mcp_permission"] = previous["mcp_permission"]  # uninstall still takes out what it added
    # memory first: its refusals (InstallError) come before any file outside settings is touched
    if memory_dir is not None:
        entry["memory_dir"] = _record_memory_dir(edit, settings_path, memory_dir, previous.get("memory_dir"), report)
    elif previous.get("memory_dir"):
        entry["memory_dir"] = previous["memory_dir"]
    edit.drop_created()
    entry["created"] = edit.created

    boundary = project.resolve() if project else settings_path.parent.parent
    if edit.text != text or not existed:
        entry["created_dirs"] += _missing_dirs(settings_path.parent, boundary)
        if existed and not previous.get("backup"):
            backup = records_dir() / f"{record_path.stem}.backup"
            write_user_bytes(backup, settings_path.read_bytes())
            entry["backup"] = str(backup)
            report.backup = backup
        _write(settings_path, edit.text.encode("utf-8"))
        report.changed = True
    if previous.get("backup"):
        entry["backup"] = previous["backup"]
    entry["post_install_sha"] = _sha(settings_path.read_bytes())

    if skills_dir is not None:
        skills_dir = Path(skills_dir).expanduser().absolute()
        old_skill = previous.get("skill")
        if old_skill and old_skill["path"] != str(skills_dir / SKILL_NAME):
            _unlink_skill(old_skill, report)  # the skill moved to another skills folder
            previous = {**previous, "skill": None}
        entry["created_dirs"] += _missing_dirs(skills_dir, boundary)
        entry["skill"] = _link_skill(skills_dir, bundle_root, previous.get("skill"), report)
    elif previous.get("skill"):
        entry["skill"] = previous["skill"]
    entry["created_dirs"] = list(dict.fromkeys(entry["created_dirs"]))
    if mcp_config is not None:
        entry["mcp"] = _register_mcp(mcp_config, bundle_root, mcp_project, previous.get("mcp"), report)
    elif previous.get("mcp"):
        entry["mcp"] = previous["mcp"]
    if project is not None:
        hidden = [settings_path] + ([skills_dir / SKILL_NAME] if entry.get("skill") else [])
        entry["git_exclude"] = _exclude(Path(project), hidden, report) or previous.get("git_exclude")

    if {k: v for k, v in previous.items() if k != "installed_at"} != {k: v for k, v in entry.items() if v is not None}:
        write_user_json(record_path, {"installed_at": datetime.now().isoformat(timespec="seconds"),
                                        **{k: v for k, v in entry.items() if v is not None}})
    return report


def uninstall(settings_path: Path, bundle_root: Path | None = None) -> InstallReport:
    """Take out what `install()` added for `settings_path` (hooks, pre-approval, skill link, memory folder record,
    git exclusions, folders it made), nothing else. Without an install record, `bundle_root` identifies our hooks
    by their hook script (the containers they sit in stay)."""
    settings_path = Path(settings_path).expanduser().absolute().resolve()
    report = InstallReport(settings_path)
    record_path = _record_path(settings_path)
    entry = _read_record(record_path)
    if not entry:
        if bundle_root is None:
            raise InstallError(f"no rlm-mem install is recorded for {settings_path}; pass the bundle folder")
        entry = {"hooks": {}, "script": str(Path(bundle_root).expanduser().resolve() / "scripts" / "hook.py")}
    our_commands = {c for groups in entry.get("hooks", {}).values() for g in groups for c in _commands(g)}
    script = entry.get("script")

    def ours(group) -> bool:
        return _is_ours(group, our_commands) or bool(script) and all(script in c for c in _commands(group) or [""])

    text, _ = _read_settings(settings_path)
    backup = Path(entry["backup"]) if entry.get("backup") else None
    if text and entry.get("post_install_sha") == _sha(settings_path.read_bytes()):  # untouched since install
        if entry.get("created_file"):
            settings_path.unlink()
            report.notes.append(f"removed {settings_path} (created by install)")
        elif backup and backup.exists():
            _write(settings_path, backup.read_bytes())
            report.notes.append(f"{settings_path} is back as it was before install")
        report.changed = True
        _forget_memory_dir(_Edit(text, []), entry.get("memory_dir"), report)  # the config file, if any
    elif text.strip():
        edit = _Edit(text, entry.get("created", []))
        for event in list(edit.value().get("hooks", {})):
            for group in edit.remove_where(["hooks", event], lambda k, g: ours(g)):
                report.removed.append(_describe(event, group))
        for key in ("permission", "mcp_permission"):
            if entry.get(key):
                edit.remove_where(["permissions", "allow"], lambda k, v, ours=entry[key]: v == ours)
        _forget_memory_dir(edit, entry.get("memory_dir"), report)
        edit.drop_created()
        if edit.text != text:
            if entry.get("created_file") and edit.value() == {}:
                settings_path.unlink()
                report.notes.append(f"removed {settings_path} (created by install)")
            else:
                _write(settings_path, edit.text.encode("utf-8"))
            report.changed = True
    _unlink_skill(entry.get("skill"), report)
    _unregister_mcp(entry.get("mcp"), report)
    _unexclude(entry.get("git_exclude"), report)
    for folder in sorted(entry.get("created_dirs", []), key=lambda f: len(Path(f).parts), reverse=True):
        path = Path(folder)
        if path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    if backup and backup.exists():
        backup.unlink()
    if record_path.exists():
        record_path.unlink()
    return report
