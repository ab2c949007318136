"""An installed plugin has no set-up step (issue 14): its packages are installed once into the cache folder, its
hooks tell the commands Claude runs where the plugin's data folder is, and nothing is written inside the bundle."""
import hashlib
import json
import os
import subprocess
import sys
import tomllib

from harness.claude_code import BUNDLE_ROOT, fire
from harness.real_claude import bundle_copy, files_under

from brain.context import dependencies
from brain.setup.provision import requirements


def test_the_requirements_tag_follows_pyproject():
    with open(BUNDLE_ROOT / "pyproject.toml", "rb") as fh:
        declared = tomllib.load(fh)["project"]["dependencies"]
    assert requirements(BUNDLE_ROOT) == declared
    assert dependencies.REQUIREMENTS_TAG == hashlib.sha1("\n".join(declared).encode()).hexdigest()[:8], \
        "pyproject.toml's dependencies changed: set REQUIREMENTS_TAG in brain/context/dependencies.py to the new hash"


def test_a_copy_without_set_up_that_cannot_install_says_so_and_writes_nothing_inside(tmp_path):
    copy = bundle_copy(tmp_path / "plugin")
    before = files_under(copy, skip={".git"})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RLM_MEM_", "PYTHON", "PIP_", "XDG_"))}
    env.update(HOME=str(tmp_path / "home"), PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_FIND_LINKS="",
               RLM_MEM_PLUGIN_DATA=str(tmp_path / "data"))
    python = os.path.join(sys.base_prefix, "bin", "python3")  # an interpreter without the set-up's packages
    done = subprocess.run([python, "-I", str(copy / "scripts" / "rlm_mem.py"), "where"], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 1 and done.stderr.splitlines()[-1].startswith(
        "Error: could not install rlm-mem's Python packages"), done.stderr
    cache = tmp_path / "home" / ".cache" / "rlm-mem"
    assert [p.name for p in cache.iterdir() if p.name.startswith("python3.")] == \
        [f"python{dependencies.VERSION}-{dependencies.REQUIREMENTS_TAG}.failed"]  # no half-installed folder
    assert files_under(copy, skip={".git"}) == before  # not even bytecode
    worker = subprocess.run([python, "-I", str(copy / "scripts" / "rlm_mem.py"), "--dir", str(tmp_path / "m"),
                             "ingest", "--background"], capture_output=True, text=True, env=env, timeout=120)
    assert worker.returncode == 1 and "failed a moment ago" in worker.stderr  # no pip again on every turn


def test_session_start_hands_the_plugins_data_folder_to_claudes_bash_tool(tmp_path):
    data = tmp_path / "plugin's data"
    env_file = tmp_path / "sessionstart-hook-0.sh"
    env = dict(os.environ, CLAUDE_PLUGIN_DATA=str(data), CLAUDE_ENV_FILE=str(env_file))
    env.pop("RLM_MEM_DIR")
    run = fire("SessionStart", {"session_id": "s", "cwd": str(tmp_path), "source": "startup"}, env=env)[0]
    assert run.returncode == 0 and run.stderr == ""
    shown = subprocess.run(["sh", "-c", f'. "{env_file}"; printf %s "$RLM_MEM_PLUGIN_DATA"'], capture_output=True,
                           text=True, check=True).stdout
    assert shown == str(data)
    where = subprocess.run([str(BUNDLE_ROOT / "bin" / "rlm-mem"), "where", "--json"], capture_output=True, text=True,
                           env={k: v for k, v in env.items() if not k.startswith("CLAUDE_")} | {
                               "RLM_MEM_PLUGIN_DATA": shown}, timeout=120)
    assert json.loads(where.stdout)["root"] == str(data / "memory")


def test_outside_a_plugin_nothing_is_exported(tmp_path):
    env_file = tmp_path / "sessionstart-hook-0.sh"
    env = dict(os.environ, CLAUDE_ENV_FILE=str(env_file))
    assert fire("SessionStart", {"session_id": "s", "cwd": str(tmp_path), "source": "startup"},
                env=env)[0].returncode == 0
    assert not env_file.exists()
