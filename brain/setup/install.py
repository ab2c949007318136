"""Install rlm-mem's hooks into a Claude Code settings file, and take exactly those out again.

`install()` merges the bundle's `hooks/hooks.json` (plugin format, `${CLAUDE_PLUGIN_ROOT}` replaced by the bundle's
absolute path) into `settings.json`, keeping every other key and hook. Our matcher groups are recognised by their
commands, so a second run adds nothing and a changed hooks.json replaces the old groups. An existing settings file
is copied to `settings.json.bak-<timestamp>` before it changes, is written atomically, and is never overwritten
when it is not valid JSON (`InstallError`).

Also:
- the skill: `<skills_dir>/rlm-mem` becomes a symlink to the bundle, or, where symlinks fail, a folder holding a
  pointer SKILL.md;
- `memory_dir` (memory kept with the project, for the team): when the settings file belongs to a project
  (`<project>/.claude/settings*.json`) and `memory_dir` is inside that project, it is recorded as a relative path in
  `<project>/.rlm-mem.json` (`{"memory_dir": "..."}`, committed with the repository, read by `paths.py`);
  otherwise as an absolute `RLM_MEM_DIR` in the settings' `env` block.

Everything added is recorded in `<settings dir>/rlm-mem-install.json` (one entry per settings file), and
`uninstall()` removes exactly that: the JSON value of the settings file is the same as before install.
"""
import copy
import json
import os
import shutil
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import yaml

from brain.context.project import CONFIG_NAME, ProjectConfigError, read_config
from brain.util.errors import RlmMemError
from brain.util.files import atomic_write_json, atomic_write_text

PLACEHOLDER = "${CLAUDE_PLUGIN_ROOT}"
SKILL_NAME = "rlm-mem"
MANIFEST_NAME = "rlm-mem-install.json"
POINTER_MARK = "<!-- rlm-mem install pointer -->"


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
    manifest: Path | None = None
    changed: bool = False

    def summary(self) -> str:
        lines = [f"{self.settings_path}:"]
        lines += [f"  added {a}" for a in self.added] + [f"  removed {r}" for r in self.removed]
        if self.unchanged and not self.added and not self.removed:
            lines.append("  hooks already installed")
        lines += [f"  {n}" for n in self.notes]
        if self.backup:
            lines.append(f"  backup: {self.backup}")
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
                out.append("'" + value.replace("'", "'\\''") + "'" if any(c in value for c in " \t'\"$`\\;&|<>()*?[]#~")
                           else value)
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


# --- files -----------------------------------------------------------------------------------------------------

def _read_settings(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path}: {exc}") from exc
    if not text.strip():
        return {}
    try:
        settings = json.loads(text)
    except ValueError as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); fix it by hand, nothing was changed") from exc
    if not isinstance(settings, dict):
        raise InstallError(f"{path} must hold a JSON object; nothing was changed")
    for key, kind in (("hooks", dict), ("env", dict)):
        if key in settings and not isinstance(settings[key], kind):
            raise InstallError(f"\"{key}\" in {path} must be a JSON object; nothing was changed")
    for event, groups in settings.get("hooks", {}).items():
        if not isinstance(groups, list):
            raise InstallError(f"hooks.{event} in {path} must be a list; nothing was changed")
    return settings


def _backup(path: Path) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target, n = path.with_name(f"{path.name}.bak-{stamp}"), 1
    while target.exists():
        target, n = path.with_name(f"{path.name}.bak-{stamp}-{n}"), n + 1
    shutil.copy2(path, target)
    return target


def _write_settings(path: Path, settings: dict, report: InstallReport) -> None:
    mode = None
    if path.exists():
        mode = path.stat().st_mode & 0o777
        report.backup = _backup(path)
    atomic_write_json(path, settings)
    if mode is not None:
        os.chmod(path, mode)  # a shared project settings file keeps its permissions


def _manifest_path(settings_path: Path) -> Path:
    return settings_path.parent / MANIFEST_NAME


def _read_manifest(path: Path) -> dict:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise InstallError(f"{path} (rlm-mem's install record) is damaged ({exc}); restore it or delete it") from exc
    return value if isinstance(value, dict) else {}


def _save_manifest(path: Path, manifest: dict) -> None:
    if manifest:
        atomic_write_json(path, manifest)
    elif path.exists():
        path.unlink()


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
    return (f"---\nname: {SKILL_NAME}\ndescription: {json.dumps(description, ensure_ascii=False)}\n---\n"
            f"{POINTER_MARK}\nThe rlm-mem bundle is installed at `{bundle_root}`.\n"
            f"Read `{bundle_root / 'SKILL.md'}` and follow it.\n")


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
        atomic_write_text(link / "SKILL.md", _pointer_text(bundle_root))
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


# --- memory folder ---------------------------------------------------------------------------------------------

def _owning_project(settings_path: Path):
    # <project>/.claude/settings*.json belongs to <project>; ~/.claude/settings.json belongs to nobody.
    if settings_path.parent.name != ".claude":
        return None
    project = settings_path.parent.parent
    return None if project == Path.home().resolve() else project


def _record_memory_dir(settings: dict, settings_path: Path, memory_dir: Path, previous, report: InstallReport):
    memory_dir = Path(memory_dir).expanduser().resolve()
    project = _owning_project(settings_path)
    in_project = project is not None and memory_dir.is_relative_to(project)
    if previous and previous.get("where") != ("config" if in_project else "env"):
        _forget_memory_dir(settings, previous, report)  # recorded the other way last time
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
        atomic_write_json(config_path, config)
        os.chmod(config_path, 0o644)  # committed with the project
        report.notes.append(f"memory kept in the project: {memory_dir} (recorded in {config_path})")
        report.changed = True
        return record
    env = settings.get("env", {})
    value = str(memory_dir)
    if env.get("RLM_MEM_DIR") == value:
        report.notes.append("RLM_MEM_DIR already set")
        return previous
    if "RLM_MEM_DIR" in env and not (previous and previous.get("value") == env["RLM_MEM_DIR"]):
        raise InstallError(f"{settings_path} already sets env.RLM_MEM_DIR to {env['RLM_MEM_DIR']!r}; edit it by hand")
    created_env = previous["created_env"] if previous else "env" not in settings
    settings.setdefault("env", {})["RLM_MEM_DIR"] = value
    report.notes.append(f"memory folder {value} set as env.RLM_MEM_DIR")
    return {"where": "env", "value": value, "created_env": created_env}


def _forget_memory_dir(settings: dict, record, report: InstallReport) -> None:
    if not record:
        return
    if record["where"] == "env":
        env = settings.get("env")
        if isinstance(env, dict) and env.get("RLM_MEM_DIR") == record["value"]:
            del env["RLM_MEM_DIR"]
            if record.get("created_env") and not env:
                del settings["env"]
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
        atomic_write_json(path, config)
        os.chmod(path, 0o644)
    report.notes.append(f"removed memory_dir from {path}")
    report.changed = True


# --- install / uninstall ---------------------------------------------------------------------------------------

def install(settings_path: Path, bundle_root: Path, *, skills_dir: Path | None, memory_dir: Path | None = None
            ) -> InstallReport:
    """Merge the bundle's hooks into `settings_path`, make the skill visible, record `memory_dir` (see module doc)."""
    settings_path = Path(settings_path).expanduser().absolute().resolve()  # a symlinked settings file: write its target
    bundle_root = Path(bundle_root).expanduser().resolve()
    report = InstallReport(settings_path, manifest=_manifest_path(settings_path))
    desired = bundle_hooks(bundle_root)
    settings = _read_settings(settings_path)
    original = copy.deepcopy(settings)
    manifest = _read_manifest(report.manifest)
    previous = manifest.get(settings_path.name) or {}
    entry = {
        "bundle_root": str(bundle_root),
        "created_file": previous.get("created_file", not settings_path.exists()),
        "created_hooks_key": previous.get("created_hooks_key", "hooks" not in settings),
        "created_events": list(previous.get("created_events", [])),
    }
    our_commands = {c for groups in (*desired.values(), *previous.get("hooks", {}).values())
                    for g in groups for c in _commands(g)}
    hooks = settings.setdefault("hooks", {})
    for event in sorted(set(desired) | set(previous.get("hooks", {}))):
        if event not in hooks:
            entry["created_events"].append(event)
        groups = hooks.setdefault(event, [])
        wanted = desired.get(event, [])
        for group in [g for g in groups if _is_ours(g, our_commands) and g not in wanted]:
            groups.remove(group)  # an older version of our hooks
            report.removed.append(_describe(event, group))
        for group in wanted:
            if group in groups:
                report.unchanged.append(_describe(event, group))
            else:
                groups.append(copy.deepcopy(group))
                report.added.append(_describe(event, group))
        if not groups and event in entry["created_events"]:
            del hooks[event]
    entry["created_events"] = sorted(set(e for e in entry["created_events"] if e in hooks))
    entry["hooks"] = desired
    # memory first: its refusals (InstallError) come before any file outside settings is touched
    if memory_dir is not None:
        entry["memory_dir"] = _record_memory_dir(settings, settings_path, memory_dir, previous.get("memory_dir"),
                                                 report)
    elif previous.get("memory_dir"):
        entry["memory_dir"] = previous["memory_dir"]
    if skills_dir is not None:
        old_skill = previous.get("skill")
        if old_skill and old_skill["path"] != str(Path(skills_dir).expanduser().absolute() / SKILL_NAME):
            _unlink_skill(old_skill, report)  # the skill moved to another skills folder
            previous = {**previous, "skill": None}
        entry["skill"] = _link_skill(Path(skills_dir), bundle_root, previous.get("skill"), report)
    elif previous.get("skill"):
        entry["skill"] = previous["skill"]

    if settings != original or not settings_path.exists():
        _write_settings(settings_path, settings, report)
        report.changed = True
    if {k: v for k, v in previous.items() if k != "installed_at"} != {k: v for k, v in entry.items() if v is not None}:
        manifest[settings_path.name] = {"installed_at": datetime.now().isoformat(timespec="seconds"),
                                        **{k: v for k, v in entry.items() if v is not None}}
        _save_manifest(report.manifest, manifest)
    return report


def uninstall(settings_path: Path, bundle_root: Path | None = None) -> InstallReport:
    """Remove what `install()` added to `settings_path` (hooks, skill link, memory folder record), nothing else.

    Without an install record, `bundle_root` identifies our hooks by their commands (the keys they sit under stay).
    """
    settings_path = Path(settings_path).expanduser().absolute().resolve()
    report = InstallReport(settings_path, manifest=_manifest_path(settings_path))
    manifest = _read_manifest(report.manifest)
    entry = manifest.get(settings_path.name)
    if entry is None:
        if bundle_root is None:
            raise InstallError(f"no rlm-mem install is recorded for {settings_path}; pass the bundle folder")
        entry = {"hooks": bundle_hooks(bundle_root)}
    our_commands = {c for groups in entry.get("hooks", {}).values() for g in groups for c in _commands(g)}
    settings = _read_settings(settings_path)
    original = copy.deepcopy(settings)
    hooks = settings.get("hooks", {})
    for event in list(hooks):
        for group in [g for g in hooks[event] if _is_ours(g, our_commands)]:
            hooks[event].remove(group)
            report.removed.append(_describe(event, group))
        if not hooks[event] and event in entry.get("created_events", []):
            del hooks[event]
    if "hooks" in settings and not hooks and entry.get("created_hooks_key"):
        del settings["hooks"]
    _forget_memory_dir(settings, entry.get("memory_dir"), report)
    _unlink_skill(entry.get("skill"), report)

    if settings != original:
        if entry.get("created_file") and not settings:
            settings_path.unlink()  # install created it; the JSON value before install was "no file"
            report.notes.append(f"removed {settings_path} (created by install)")
        else:
            _write_settings(settings_path, settings, report)
        report.changed = True
    manifest.pop(settings_path.name, None)
    _save_manifest(report.manifest, manifest)
    return report
