"""Settings merge: install next to other hooks, the file's own formatting kept, idempotence, a backup and a record
outside the project, byte-identical uninstall with nothing left behind, refusal, odd paths (issue 3, issue 14)."""
import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from brain.setup import install as inst
from brain.setup.install import InstallError, bundle_hooks, install, records_dir, uninstall

PY = '"${CLAUDE_PLUGIN_ROOT}/scripts/run-python" -I -S'
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
    assert shlex.split(command) == [f"{bundle.resolve()}/scripts/run-python", "-I", "-S",
                                    f"{bundle.resolve()}/scripts/hook.py", "session-start"]
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
    same = ("hooks", "permissions")
    assert {k: v for k, v in after.items() if k not in same} == {k: v for k, v in ORIGINAL.items() if k not in same}
    assert after["permissions"]["allow"] == ["Bash(git status)", "Skill(rlm-mem)"]  # the skill pre-approved
    assert after["hooks"]["SessionStart"][0] == OTHER_HOOK  # the other hook stays first and untouched
    assert after["hooks"]["PreToolUse"] == ORIGINAL["hooks"]["PreToolUse"]
    for event in ("SessionStart", "UserPromptSubmit", "SessionEnd"):
        assert our_groups(after, event) == bundle_hooks(bundle)[event]
    assert len(report.added) == 3 and report.changed
    assert report.backup and read(report.backup) == ORIGINAL
    assert not report.backup.is_relative_to(project) and report.backup.parent == records_dir()
    assert sorted(p.name for p in (project / ".claude").iterdir()) == ["settings.json"]  # no backup, no record


def test_second_run_adds_nothing(bundle, project):
    settings_path = write_settings(project)
    install(settings_path, bundle, skills_dir=project / "skills")
    first = settings_path.read_bytes()
    records = {p.name: p.read_bytes() for p in records_dir().iterdir()}
    report = install(settings_path, bundle, skills_dir=project / "skills")
    assert not report.added and not report.removed and not report.changed
    assert len(report.unchanged) == 3 and "already installed" in report.summary()
    assert settings_path.read_bytes() == first
    assert {p.name: p.read_bytes() for p in records_dir().iterdir()} == records  # no new backup, same record


def test_uninstall_gives_the_file_back_byte_for_byte_and_leaves_nothing(bundle, project):
    settings_path = write_settings(project)
    before = settings_path.read_bytes()
    install(settings_path, bundle, skills_dir=project / "skills", memory_dir=project / ".memory")
    install(settings_path, bundle, skills_dir=project / "skills", memory_dir=project / ".memory")
    uninstall(settings_path)
    assert settings_path.read_bytes() == before
    assert not (project / "skills").exists()  # install made the folder: it goes with the link
    assert not (project / ".rlm-mem.json").exists()
    assert list(records_dir().iterdir()) == []  # record and backup gone too


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
    assert not records_dir().exists() and not (project / "skills").exists()


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
    assert text.startswith("---\nname: rlm-mem\ndescription: \"Memory that lasts. Use it always.\"\n")
    assert str(bundle.resolve() / "SKILL.md") in text and f'`"{bundle.resolve()}/bin/rlm-mem"`' in text
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
    for record in records_dir().iterdir():
        record.unlink()
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


@pytest.mark.parametrize("text", [
    '{\n\t"model": "opus",\n\t"hooks": {\n\t\t"SessionStart": [\n\t\t\t{"hooks": [{"type": "command", "command": "x"}]}'
    '\n\t\t]\n\t}\n}\n',
    '{"model": "opus", "permissions": {"allow": []}}',
    '{\r\n    "permissions": {\r\n        "allow": [\r\n            "Bash(ls)"\r\n        ]\r\n    }\r\n}\r\n',
    "{}", "  \n", "",
])
def test_the_files_own_formatting_is_kept_and_uninstall_is_byte_identical(bundle, project, text):
    settings_path = project / ".claude" / "settings.local.json"
    settings_path.write_bytes(text.encode())
    install(settings_path, bundle, skills_dir=project / ".claude" / "skills")
    after = settings_path.read_bytes().decode()
    if "\n" in text.strip():  # each of the file's lines is still there, in order; only lines were added
        lines = iter(after.splitlines())
        assert all(any(line.rstrip(",") == kept.rstrip(",") for kept in lines) for line in text.splitlines()), after
    elif text.strip() not in ("", "{}"):
        assert "\n" not in after.strip()  # a one-line file stays one line
    assert ("\r\n" in after) == ("\r\n" in text)  # the file's line ends
    assert set(read(settings_path)["hooks"]) >= set(HOOKS_JSON["hooks"])
    uninstall(settings_path)
    assert settings_path.read_bytes().decode() == text
    assert not (project / ".claude" / "skills").exists()


def test_uninstall_after_claude_code_rewrote_the_file_keeps_what_it_added(bundle, project):
    settings_path = write_settings(project)
    install(settings_path, bundle, skills_dir=None)
    settings = read(settings_path)
    settings["permissions"]["allow"].append("Bash(npm test:*)")  # the person said "always allow" since
    settings_path.write_text(json.dumps(settings, indent=2))  # as Claude Code writes it
    uninstall(settings_path)
    assert read(settings_path) == dict(ORIGINAL, permissions={"allow": ["Bash(git status)", "Bash(npm test:*)"]})


def cli(*args, env):
    rlm = inst.Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rlm-mem"
    return subprocess.run([str(rlm), *args], capture_output=True, text=True, env=env, timeout=120)


def test_project_install_writes_only_local_files_and_uninstall_leaves_nothing(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    subprocess.run(["git", "init", "-q", str(app)], check=True)
    (app / ".claude").mkdir()
    committed = app / ".claude" / "settings.json"
    committed.write_text('{"model": "opus"}\n')
    exclude = app / ".git" / "info" / "exclude"
    before = {p: p.read_bytes() for p in (committed, exclude)}
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"} | {"HOME": str(tmp_path / "home")}
    done = cli("install", "--project", str(app), env=env)
    assert done.returncode == 0, done.stderr
    local = read(app / ".claude" / "settings.local.json")
    assert "SessionStart" in local["hooks"] and local["permissions"]["allow"] == ["Skill(rlm-mem)", "mcp__rlm-mem"]
    claude_json = tmp_path / "home" / ".claude.json"  # Claude Code's "local" scope: this project on this machine
    server = read(claude_json)["projects"][str(app.resolve())]["mcpServers"]["rlm-mem"]
    assert server["command"].endswith("/bin/rlm-mem") and server["args"] == ["mcp"]
    assert committed.read_bytes() == before[committed]  # nothing machine-specific in the committed file
    status = subprocess.run(["git", "-C", str(app), "status", "--porcelain", "--untracked-files=all"],
                            capture_output=True, text=True, check=True).stdout
    assert status.splitlines() == ["?? .claude/settings.json"], status  # settings.local.json and the skill: ignored
    assert cli("uninstall", "--project", str(app), env=env).returncode == 0
    assert {p: p.read_bytes() for p in (committed, exclude)} == before
    assert not claude_json.exists()  # install made it, and only our entry was in it
    assert sorted(p.name for p in (app / ".claude").iterdir()) == ["settings.json"]


# --- the MCP server in Claude Code's ~/.claude.json (issue 35) -------------------------------------------------

@pytest.fixture
def claude_json(tmp_path):
    path = tmp_path / "home" / ".claude.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"numStartups": 3, "projects": {"/elsewhere": {"allowedTools": []}}}, indent=2))
    return path


def test_a_project_install_registers_the_mcp_server_for_that_project_only(bundle, project, claude_json):
    settings_path = write_settings(project)
    before = claude_json.read_bytes()
    install(settings_path, bundle, skills_dir=None, project=project, mcp_config=claude_json)
    state = read(claude_json)
    assert state["projects"][str(project.resolve())]["mcpServers"] == {"rlm-mem": {
        "type": "stdio", "command": str(bundle.resolve() / "bin" / "rlm-mem"), "args": ["mcp"]}}
    assert state["numStartups"] == 3 and state["projects"]["/elsewhere"] == {"allowedTools": []}
    assert "mcpServers" not in state  # not for every project
    assert read(settings_path)["permissions"]["allow"] == ["Bash(git status)", "Skill(rlm-mem)", "mcp__rlm-mem"]
    again = claude_json.read_bytes()
    assert not install(settings_path, bundle, skills_dir=None, project=project, mcp_config=claude_json).changed
    assert claude_json.read_bytes() == again
    uninstall(settings_path)
    assert claude_json.read_bytes() == before
    assert "mcp__rlm-mem" not in settings_path.read_text()


def test_uninstall_keeps_what_claude_code_wrote_into_its_file_since(bundle, project, claude_json):
    settings_path = write_settings(project)
    install(settings_path, bundle, skills_dir=None, project=project, mcp_config=claude_json)
    state = read(claude_json)  # Claude Code rewrites the file: a counter, and the project's own entries
    state["numStartups"] = 4
    state["projects"][str(project.resolve())]["hasTrustDialogAccepted"] = True
    claude_json.write_text(json.dumps(state, indent=2))
    uninstall(settings_path)
    after = read(claude_json)
    assert after["numStartups"] == 4
    assert after["projects"][str(project.resolve())] == {"hasTrustDialogAccepted": True}


def test_a_user_install_registers_it_for_every_project_and_a_moved_bundle_replaces_it(tmp_path, claude_json):
    settings_path = tmp_path / "claude-config" / "settings.json"
    first, second = make_bundle(tmp_path / "one"), make_bundle(tmp_path / "two")
    install(settings_path, first, skills_dir=None, mcp_config=claude_json)
    assert read(claude_json)["mcpServers"]["rlm-mem"]["command"] == str(first.resolve() / "bin" / "rlm-mem")
    install(settings_path, second, skills_dir=None, mcp_config=claude_json)
    assert read(claude_json)["mcpServers"] == {"rlm-mem": inst.mcp_server(second.resolve())}
    uninstall(settings_path)
    assert "mcpServers" not in read(claude_json)


def test_an_mcp_server_of_that_name_someone_else_registered_is_left_alone(bundle, project, claude_json):
    theirs = {"command": "/opt/other/memory-server"}
    state = read(claude_json)
    state["projects"][str(project.resolve())] = {"mcpServers": {"rlm-mem": theirs}}
    claude_json.write_text(json.dumps(state))
    settings_path = write_settings(project)
    report = install(settings_path, bundle, skills_dir=None, project=project, mcp_config=claude_json)
    assert "left the MCP server 'rlm-mem'" in report.summary()
    assert "mcp__rlm-mem" not in read(settings_path)["permissions"]["allow"]  # their tools are not ours to approve
    uninstall(settings_path)
    assert read(claude_json)["projects"][str(project.resolve())]["mcpServers"]["rlm-mem"] == theirs


def test_a_symlinked_claude_json_is_edited_through_the_link(bundle, project, claude_json, tmp_path):
    real = tmp_path / "dotfiles" / "claude.json"
    real.parent.mkdir()
    claude_json.rename(real)
    claude_json.symlink_to(real)  # a dotfiles manager's link
    settings_path = write_settings(project)
    install(settings_path, bundle, skills_dir=None, project=project, mcp_config=claude_json)
    assert claude_json.is_symlink() and "rlm-mem" in read(real)["projects"][str(project.resolve())]["mcpServers"]
    uninstall(settings_path)
    assert claude_json.is_symlink() and "mcpServers" not in json.dumps(read(real))


@pytest.mark.parametrize("content", ["{not json", '{"projects": []}', '{"mcpServers": "x"}'])
def test_a_claude_json_that_cannot_be_edited_refuses_the_install_before_anything_is_written(bundle, project,
                                                                                            claude_json, content):
    claude_json.write_text(content)
    settings_path = write_settings(project)
    before = settings_path.read_bytes()
    with pytest.raises(InstallError):
        install(settings_path, bundle, skills_dir=None, project=project, mcp_config=claude_json)
    assert settings_path.read_bytes() == before and claude_json.read_text() == content
