"""Where memory lives (issue 3, issue 14): --dir, RLM_MEM_DIR, a project that keeps memory in the repository, the
plugin data folder (as the hooks and as the commands Claude runs see it), the person's own data folder — in that
order, and never inside the bundle."""
import json
import os

from brain.context.location import default_root
from brain.context.resolve import resolve

BUNDLE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def resolve_memory_root(explicit=None, *, env, cwd=None):
    context = resolve(cwd, explicit_root=explicit, env=env)
    return context.root, context.reason


def test_order_of_precedence(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / ".rlm-mem.json").write_text(json.dumps({"memory_dir": ".rlm-mem"}))
    plugin = {"CLAUDE_PLUGIN_DATA": str(tmp_path / "plugin-data")}
    assert resolve_memory_root(tmp_path / "x", env={"RLM_MEM_DIR": "/elsewhere"})[0] == str(tmp_path / "x")
    assert resolve_memory_root(env={"RLM_MEM_DIR": "/elsewhere", **plugin}, cwd=repo)[0] == "/elsewhere"
    root, why = resolve_memory_root(env=plugin, cwd=repo / "src")
    assert root == os.path.realpath(repo / ".rlm-mem") and ".rlm-mem.json" in why
    root, why = resolve_memory_root(env=plugin, cwd=tmp_path)
    assert root == str(tmp_path / "plugin-data" / "memory") and "plugin" in why


def test_the_commands_claude_runs_find_the_plugins_folder(tmp_path):
    root, why = resolve_memory_root(env={"RLM_MEM_PLUGIN_DATA": str(tmp_path / "data")}, cwd=tmp_path)
    assert root == str(tmp_path / "data" / "memory") and "RLM_MEM_PLUGIN_DATA" in why


def test_the_default_is_the_persons_data_folder_never_the_bundle(tmp_path):
    root, why = resolve_memory_root(env={"XDG_DATA_HOME": str(tmp_path / "xdg")}, cwd=tmp_path)
    assert root == str(tmp_path / "xdg" / "rlm-mem" / "memory") and "default" in why
    root, _ = resolve_memory_root(env={}, cwd=tmp_path)
    assert root == os.path.join(os.path.expanduser("~"), ".local", "share", "rlm-mem", "memory")
    assert not root.startswith(BUNDLE_ROOT)


def test_a_project_config_cannot_point_memory_outside_the_project(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".rlm-mem.json").write_text(json.dumps({"memory_dir": "../../elsewhere"}))
    root, why = resolve_memory_root(env={}, cwd=repo)
    assert root == default_root({}) and "elsewhere" not in root
