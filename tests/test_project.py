"""Project identity from real git repositories, worktrees and submodules; overrides; the off switch."""
import json
import os
import subprocess
from pathlib import Path

import pytest

from brain.context import project
from brain.context.project import (
    ProjectConfigError,
    memory_disabled,
    project_id,
    set_memory_enabled,
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    monkeypatch.delenv("RLM_MEM_PROJECT", raising=False)
    monkeypatch.delenv("RLM_MEM_DISABLE", raising=False)


def git(cwd, *args):
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "my repo"  # a space on purpose
    (path / "src" / "deep").mkdir(parents=True)
    git(path, "init", "-q")
    git(path, "commit", "-q", "--allow-empty", "-m", "init")
    return path


def test_repo_root_and_subfolders_share_one_id(repo):
    top = project_id(repo)
    assert top.source == "git" and top.name == "my repo" and Path(top.root) == repo.resolve()
    assert project_id(repo / "src" / "deep") == top
    assert project_id(str(repo / "src")) == top
    assert top.id.startswith("my-repo-") and len(top.id) == len("my-repo-") + 10
    assert project_id(repo).id == top.id  # stable


def test_worktrees_share_the_main_repository_id(repo, tmp_path):
    worktree = tmp_path / "elsewhere" / "feature-wt"
    git(repo, "worktree", "add", "-q", str(worktree), "-b", "feature")
    assert (worktree / ".git").is_file()  # a gitdir file, not a folder
    info = project_id(worktree)
    assert info.id == project_id(repo).id and info.name == "my repo"
    assert Path(info.root) == worktree.resolve()  # the working tree the session is in
    (worktree / "sub").mkdir()
    assert project_id(worktree / "sub").id == info.id


def test_submodule_is_its_own_project(repo, tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q")
    git(lib, "commit", "-q", "--allow-empty", "-m", "lib")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    sub = project_id(repo / "vendor" / "lib")
    assert sub.name == "lib" and sub.id != project_id(repo).id and sub.source == "git"
    assert Path(sub.root) == (repo / "vendor" / "lib").resolve()


def test_different_repositories_differ(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name / "app").mkdir(parents=True)
        git(tmp_path / name / "app", "init", "-q")
    assert project_id(tmp_path / "a" / "app").id != project_id(tmp_path / "b" / "app").id
    assert project_id(tmp_path / "a" / "app").name == project_id(tmp_path / "b" / "app").name == "app"


def test_symlinked_path_gives_the_same_id(repo, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(repo, target_is_directory=True)
    assert project_id(link / "src").id == project_id(repo).id


def test_outside_git_the_folder_is_the_project(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    info = project_id(folder)
    assert info.source == "cwd" and info.name == "notes" and Path(info.root) == folder.resolve()
    assert info.id.startswith("notes-")
    assert project_id(folder / "missing").root is None  # a folder that does not exist


def test_override_precedence(repo, monkeypatch):
    (repo / ".rlm-mem.json").write_text(json.dumps({"project": "Team Memory"}))
    from_config = project_id(repo / "src")
    assert (from_config.id, from_config.name, from_config.source) == ("team-memory", "Team Memory", "config")
    monkeypatch.setenv("RLM_MEM_PROJECT", "From Env")
    assert project_id(repo).source == "env" and project_id(repo).id == "from-env"
    info = project_id(repo, override="Explicit/Name!")
    assert (info.id, info.name, info.source) == ("explicit-name", "Explicit/Name!", "override")
    assert Path(info.root) == repo.resolve()


def test_damaged_config_falls_back_to_git_identity(repo):
    (repo / ".rlm-mem.json").write_text("{broken")
    assert project_id(repo).source == "git"


def test_off_switch(repo, monkeypatch):
    assert memory_disabled(repo) is False
    path = set_memory_enabled(repo, False)
    assert Path(path) == repo / ".rlm-mem.json" and memory_disabled(repo) is True
    set_memory_enabled(repo, True)
    assert memory_disabled(repo) is False
    monkeypatch.setenv("RLM_MEM_DISABLE", "1")
    assert memory_disabled(repo) is True and memory_disabled(None) is True
    monkeypatch.setenv("RLM_MEM_DISABLE", "0")
    assert memory_disabled(repo) is False


def test_set_memory_enabled_keeps_other_keys_and_refuses_damaged_files(repo):
    (repo / ".rlm-mem.json").write_text(json.dumps({"project": "x", "memory_dir": ".memory"}))
    set_memory_enabled(repo, False)
    assert json.loads((repo / ".rlm-mem.json").read_text()) == {"project": "x", "memory_dir": ".memory",
                                                                 "enabled": False}
    (repo / ".rlm-mem.json").write_text("{oops")
    assert memory_disabled(repo) is True  # fails closed
    with pytest.raises(ProjectConfigError):
        set_memory_enabled(repo, True)
    assert (repo / ".rlm-mem.json").read_text() == "{oops"  # never overwritten


def test_non_boolean_enabled_is_not_a_switch(repo):
    (repo / ".rlm-mem.json").write_text(json.dumps({"enabled": "no"}))
    assert memory_disabled(repo) is False  # only a JSON false switches it off
    (repo / ".rlm-mem.json").write_text(json.dumps(["enabled", False]))
    assert memory_disabled(repo) is True  # not an object: unreadable, fails closed


def test_hot_path_runs_no_subprocess(repo, monkeypatch):
    def no_subprocess(*args, **kwargs):
        raise AssertionError("project_id must not start a process")

    monkeypatch.setattr(subprocess, "Popen", no_subprocess)
    assert project_id(repo / "src" / "deep") == project_id(repo)


def test_module_imports_only_stdlib():
    import ast
    import sys

    tree = ast.parse(Path(project.__file__).read_text(encoding="utf-8"))
    top = {alias.name.split(".")[0] for node in tree.body if isinstance(node, ast.Import) for alias in node.names}
    top |= {node.module.split(".")[0] for node in tree.body if isinstance(node, ast.ImportFrom) and node.level == 0}
    assert top - {"brain"} <= set(sys.stdlib_module_names)
    assert {node.module for node in tree.body if isinstance(node, ast.ImportFrom) and node.module.startswith("brain")} \
        <= {"brain.cpython.fast", "brain.util", "brain.util.errors", "brain.util.fasthash", "brain.util.fastjson",
            "brain.util.files", "brain.util.tuple_type"}
