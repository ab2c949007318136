"""Where memory lives (issue 3): --dir, RLM_MEM_DIR, a project that keeps memory in the repository, the plugin
data folder, the bundle's own brain/memory — in that order."""
import json
import os

from brain.context.location import BUNDLE_MEMORY, POINTER
from brain.context.resolve import resolve


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


def test_bundle_default_and_plugin_pointer(tmp_path):
    had = POINTER.exists() if hasattr(POINTER, "exists") else os.path.exists(POINTER)
    assert not had, "a pointer left by a plugin run would change the default"
    root, why = resolve_memory_root(env={}, cwd=tmp_path)
    assert root == BUNDLE_MEMORY and "brain/memory" in why


def test_a_project_config_cannot_point_memory_outside_the_project(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".rlm-mem.json").write_text(json.dumps({"memory_dir": "../../elsewhere"}))
    root, why = resolve_memory_root(env={}, cwd=repo)
    assert root == BUNDLE_MEMORY and "elsewhere" not in root
