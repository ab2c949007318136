"""Settings merge: install next to other hooks, idempotence, backups, exact uninstall, refusal, odd paths."""
import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from brain.setup import install as inst
from brain.setup.install import InstallError, bundle_hooks, install, uninstall

PY = '"${CLAUDE_PLUGIN_ROOT}/.venv/bin/python"'
HOOK = '"${CLAUDE_PLUGIN_ROOT}/scripts/hook.py"'
HOOKS_JSON = {"hooks": {
    "SessionStart": [{"matcher": "startup|resume|clear|compact",
                      "hooks": [{"type": "command", "command": f"{PY} {HOOK} session-start", "timeout": 10}]}],
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"{PY} {HOOK} prompt", "timeout": 5}]}],
    "SessionEnd": [{"hooks": [{"type": "command", "command": f"{PY} {HOOK} session-end", "timeout": 2}]}],
}}
OTHER_HOOK = {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello", "timeout": 3}]}
ORIGINAL = {
    "model": "opus",
    "permissions": {"allow": ["Bash(git status)"]},
    "env": {"FOO": "bar"},
    "hooks": {"SessionStart": [OTHER_HOOK],
              "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh"}]}]},
}


def make_bundle(path, hooks=HOOKS_JSON):
    (path / "hooks").mkdir(parents=True)
    (path / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    (path / "SKILL.md").write_text("---\nname: rlm-mem\ndescription: Memory that lasts. Use it always.\n---\nBody\n")
    return path


@pytest.fixture
def bundle(tmp_path):
    return make_bundle(tmp_path / "bundle dir")  # a space on purpose


@pytest.fixture
def project(tmp_path):
    (tmp_path / "proj" / ".claude").mkdir(parents=True)
    return tmp_path / "proj"


def write_settings(project, value=ORIGINAL):
    path = project / ".claude" / "settings.json"
    path.write_text(json.dumps(value, indent=4))
    return path


def read(path):
    return json.loads(path.read_text())


def our_groups(settings, event):
    return [g for g in settings["hooks"].get(event, []) if "scripts/hook.py" in g["hooks"][0]["command"]]


def test_bundle_hooks_substitutes_the_root_inside_its_quotes(bundle):
    hooks = bundle_hooks(bundle)
    command = hooks["SessionStart"][0]["hooks"][0]["command"]
    assert "${CLAUDE_PLUGIN_ROOT}" not in json.dumps(hooks)
    assert shlex.split(command) == [f"{bundle.resolve()}/.venv/bin/python", f"{bundle.resolve()}/scripts/hook.py",
                                    "session-start"]
    assert hooks["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    assert hooks["SessionStart"][0]["hooks"][0]["timeout"] == 10


@pytest.mark.parametrize("dirname", ['we"ird $HOME `x`', "it's here", "plain"])
@pytest.mark.parametrize("template", ['"${CLAUDE_PLUGIN_ROOT}/run" a', "'${CLAUDE_PLUGIN_ROOT}/run' a",
                                      "${CLAUDE_PLUGIN_ROOT}/run a"])
def test_substitution_survives_the_shell(tmp_path, dirname, template):
    root = tmp_path / dirname
    make_bundle(root, {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": template}]}]}})
    command = bundle_hooks(root)["Stop"][0]["hooks"][0]["command"]
    out = subprocess.run(["sh", "-c", f"printf '%s\\n' {command}"], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == [f"{root.resolve()}/run", "a"]


def test_install_merges_next_to_existing_settings(bundle, project):
    settings_path = write_settings(project)
    report = install(settings_path, bundle, skills_dir=None)
    after = read(settings_path)
    assert {k: v for k, v in after.items() if k != "hooks"} == {k: v for k, v in ORIGINAL.items() if k != "hooks"}
    assert after["hooks"]["SessionStart"][0] == OTHER_HOOK  # the other hook stays first and untouched
    assert after["hooks"]["PreToolUse"] == ORIGINAL["hooks"]["PreToolUse"]
    for event in ("SessionStart", "UserPromptSubmit", "SessionEnd"):
        assert our_groups(after, event) == bundle_hooks(bundle)[event]
    assert len(report.added) == 3 and report.changed
    assert report.backup and read(report.backup) == ORIGINAL
    assert report.backup.name.startswith("settings.json.bak-")
    manifest = read(project / ".claude" / "rlm-mem-install.json")
    assert set(manifest["settings.json"]["created_events"]) == {"UserPromptSubmit", "SessionEnd"}


def test_second_run_adds_nothing(bundle, project):
    settings_path = write_settings(project)
    install(settings_path, bundle, skills_dir=project / "skills")
    first = settings_path.read_bytes()
    backups = sorted(project.glob(".claude/*.bak-*"))
    manifest = (project / ".claude" / "rlm-mem-install.json").read_bytes()
    report = install(settings_path, bundle, skills_dir=project / "skills")
    assert not report.added and not report.removed and not report.changed
    assert len(report.unchanged) == 3 and "already installed" in report.summary()
    assert settings_path.read_bytes() == first
    assert sorted(project.glob(".claude/*.bak-*")) == backups  # no change, no new backup
    assert (project / ".claude" / "rlm-mem-install.json").read_bytes() == manifest


def test_uninstall_restores_the_original_json_value(bundle, project):
    settings_path = write_settings(project)
    install(settings_path, bundle, skills_dir=project / "skills", memory_dir=project / ".memory")
    install(settings_path, bundle, skills_dir=project / "skills", memory_dir=project / ".memory")
    report = uninstall(settings_path)
    assert read(settings_path) == ORIGINAL
    assert len(report.removed) == 3
    assert not (project / "skills" / "rlm-mem").exists() and not (project / "skills" / "rlm-mem").is_symlink()
    assert not (project / ".rlm-mem.json").exists()
    assert not (project / ".claude" / "rlm-mem-install.json").exists()


def test_install_creates_a_missing_settings_file_and_uninstall_removes_it(bundle, tmp_path):
    settings_path = tmp_path / "new" / ".claude" / "settings.local.json"
    report = install(settings_path, bundle, skills_dir=None)
    assert report.backup is None and set(read(settings_path)["hooks"]) == set(HOOKS_JSON["hooks"])
    uninstall(settings_path)
    assert not settings_path.exists()


def test_empty_hooks_object_is_kept(bundle, project):
    settings_path = write_settings(project, {"hooks": {}, "theme": "dark"})
    install(settings_path, bundle, skills_dir=None)
    uninstall(settings_path)
    assert read(settings_path) == {"hooks": {}, "theme": "dark"}


def test_changed_bundle_hooks_replace_the_old_groups(bundle, project):
    settings_path = write_settings(project)
    install(settings_path, bundle, skills_dir=None)
    newer = json.loads(json.dumps(HOOKS_JSON))
    newer["hooks"]["SessionStart"][0]["hooks"][0]["timeout"] = 20
    del newer["hooks"]["SessionEnd"]
    (bundle / "hooks" / "hooks.json").write_text(json.dumps(newer))
    report = install(settings_path, bundle, skills_dir=None)
    after = read(settings_path)
    assert our_groups(after, "SessionStart")[0]["hooks"][0]["timeout"] == 20
    assert len(our_groups(after, "SessionStart")) == 1
    assert "SessionEnd" not in after["hooks"]  # we created that event; it is gone with our hook
    assert len(report.removed) == 2 and len(report.added) == 1
    uninstall(settings_path)
    assert read(settings_path) == ORIGINAL


@pytest.mark.parametrize("content", ["{not json", '{"hooks": []}', "[1, 2]", '{"hooks": {"Stop": {}}}',
                                     '{"env": "x"}'])
def test_invalid_settings_are_refused_and_never_overwritten(bundle, project, content):
    settings_path = project / ".claude" / "settings.json"
    settings_path.write_text(content)
    with pytest.raises(InstallError, match="settings.json"):
        install(settings_path, bundle, skills_dir=project / "skills")
    assert settings_path.read_text() == content
    assert not list(project.glob(".claude/*.bak-*")) and not (project / "skills").exists()


def test_missing_or_broken_hooks_json_is_a_clear_error(tmp_path, project):
    with pytest.raises(InstallError, match="hooks.json"):
        install(write_settings(project), tmp_path / "nowhere", skills_dir=None)
    broken = tmp_path / "broken"
    (broken / "hooks").mkdir(parents=True)
    (broken / "hooks" / "hooks.json").write_text('{"hooks": [1]}')
    with pytest.raises(InstallError, match="hooks.json"):
        bundle_hooks(broken)


def test_skill_symlink_and_pointer_fallback(bundle, project, monkeypatch):
    skills = project / "my skills"
    settings_path = write_settings(project)
    install(settings_path, bundle, skills_dir=skills)
    link = skills / "rlm-mem"
    assert link.is_symlink() and link.resolve() == bundle.resolve()
    uninstall(settings_path)
    assert not link.exists() and not link.is_symlink()

    def no_symlinks(*args, **kwargs):
        raise OSError("symlinks are not allowed here")

    monkeypatch.setattr(os, "symlink", no_symlinks)
    report = install(settings_path, bundle, skills_dir=skills)
    text = (link / "SKILL.md").read_text()
    assert "pointer" in report.summary()
    assert text.startswith("---\nname: rlm-mem\ndescription: \"Memory that lasts. Use it always.\"\n---\n")
    assert str(bundle.resolve() / "SKILL.md") in text
    uninstall(settings_path)
    assert not link.exists() and read(settings_path) == ORIGINAL


def test_an_existing_skill_folder_is_left_alone(bundle, project):
    mine = project / "skills" / "rlm-mem"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("my own")
    settings_path = write_settings(project)
    report = install(settings_path, bundle, skills_dir=project / "skills")
    assert "left" in report.summary() and (mine / "SKILL.md").read_text() == "my own"
    uninstall(settings_path)
    assert (mine / "SKILL.md").read_text() == "my own"


def test_memory_in_the_project_is_recorded_relatively(bundle, project):
    (project / ".rlm-mem.json").write_text(json.dumps({"project": "team"}))
    settings_path = write_settings(project)
    install(settings_path, bundle, skills_dir=None, memory_dir=project / "team memory")
    assert read(project / ".rlm-mem.json") == {"project": "team", "memory_dir": "team memory"}
    assert "RLM_MEM_DIR" not in read(settings_path)["env"]
    uninstall(settings_path)
    assert read(project / ".rlm-mem.json") == {"project": "team"}
    assert read(settings_path) == ORIGINAL


def test_memory_outside_the_project_goes_to_env(bundle, project, tmp_path):
    settings_path = write_settings(project, {"theme": "dark"})
    install(settings_path, bundle, skills_dir=None, memory_dir=tmp_path / "shared mem")
    assert read(settings_path)["env"] == {"RLM_MEM_DIR": str((tmp_path / "shared mem").resolve())}
    uninstall(settings_path)
    assert read(settings_path) == {"theme": "dark"}


def test_a_foreign_memory_setting_is_not_overwritten(bundle, project, tmp_path):
    settings_path = write_settings(project, {"env": {"RLM_MEM_DIR": "/somewhere/else"}})
    with pytest.raises(InstallError, match="RLM_MEM_DIR"):
        install(settings_path, bundle, skills_dir=None, memory_dir=tmp_path / "m")
    assert read(settings_path) == {"env": {"RLM_MEM_DIR": "/somewhere/else"}}


def test_uninstall_leaves_hooks_edited_by_hand_and_other_hooks(bundle, project):
    settings_path = write_settings(project)
    install(settings_path, bundle, skills_dir=None)
    settings = read(settings_path)
    settings["hooks"]["SessionEnd"].append(OTHER_HOOK)  # the person added their own hook since
    settings_path.write_text(json.dumps(settings))
    uninstall(settings_path)
    after = read(settings_path)
    assert after["hooks"]["SessionEnd"] == [OTHER_HOOK]
    assert not our_groups(after, "SessionStart") and not our_groups(after, "UserPromptSubmit")


def test_uninstall_without_record_needs_the_bundle(bundle, project):
    settings_path = write_settings(project)
    with pytest.raises(InstallError):
        uninstall(settings_path)
    install(settings_path, bundle, skills_dir=None)
    (project / ".claude" / "rlm-mem-install.json").unlink()
    uninstall(settings_path, bundle)
    after = read(settings_path)
    assert all(not our_groups(after, e) for e in after["hooks"])
    assert after["hooks"]["SessionStart"] == [OTHER_HOOK]


def test_symlinked_settings_file_stays_a_symlink(bundle, project, tmp_path):
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text(json.dumps(ORIGINAL))
    link = project / ".claude" / "settings.json"
    link.symlink_to(real)
    install(link, bundle, skills_dir=None)
    assert link.is_symlink() and our_groups(read(real), "SessionStart")


def test_permissions_of_an_existing_settings_file_are_kept(bundle, project):
    settings_path = write_settings(project)
    settings_path.chmod(0o644)
    install(settings_path, bundle, skills_dir=None)
    assert settings_path.stat().st_mode & 0o777 == 0o644


def test_library_does_not_import_click():
    assert "click" not in inst.__dict__ and "import click" not in Path(inst.__file__).read_text(encoding="utf-8")


def test_moving_the_memory_folder_replaces_the_old_record(bundle, project, tmp_path):
    settings_path = write_settings(project, {"theme": "dark"})
    install(settings_path, bundle, skills_dir=None, memory_dir=tmp_path / "outside")
    install(settings_path, bundle, skills_dir=None, memory_dir=project / "inside")
    assert "env" not in read(settings_path) and read(project / ".rlm-mem.json") == {"memory_dir": "inside"}
    install(settings_path, bundle, skills_dir=None, memory_dir=tmp_path / "elsewhere")
    assert not (project / ".rlm-mem.json").exists()
    assert read(settings_path)["env"]["RLM_MEM_DIR"] == str((tmp_path / "elsewhere").resolve())
    uninstall(settings_path)
    assert read(settings_path) == {"theme": "dark"}
