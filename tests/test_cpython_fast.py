"""brain/cpython/fast.py: each private C module it uses has its public module as fallback, and both give the
same results. Each case runs in a fresh interpreter in which the private modules are missing."""
import json
import subprocess
import sys

import pytest
from harness.claude_code import BUNDLE_ROOT

CHECK = """
sys.path.insert(0, {bundle!r})
from brain.cpython import fast
from brain.util import fastjson
from brain.util.fasthash import sha256
from brain.cpython.fast import sqlite3
import hashlib, json  # after: they load the C modules the fast module was to go without

value = {{"é": [1, 2.5, None, True, 'a"b'], "n": {{"deep": []}}}}
assert fastjson.dumps(value) == json.dumps(value, ensure_ascii=False)
assert fastjson.loads(fastjson.dumps(value)) == value == fastjson.loads(fastjson.dumps(value).encode())
for bad in ("", "{{", "[1] 2"):
    try:
        fastjson.loads(bad)
    except ValueError:
        pass
    else:
        raise AssertionError(bad)
assert sha256(b"rlm-mem").hexdigest() == hashlib.sha256(b"rlm-mem").hexdigest()
conn = sqlite3.connect(":memory:")
conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
conn.execute("INSERT INTO t VALUES ('listening on ports')")
assert conn.execute("SELECT count(*) FROM t WHERE t MATCH 'port'").fetchone() == (1,)
assert issubclass(sqlite3.OperationalError, sqlite3.Error)
assert fast.signal.SIGALRM and callable(fast.signal.setitimer)
print(json.dumps({{"json": "_json" if fast.json_scan else "json", "sqlite": sqlite3.__name__,
                  "sha256": sha256.__module__, "signal": fast.signal.__name__}}))
"""
# `import NAME` fails when brain/cpython/fast.py itself asks for NAME (the public modules, which import the same
# C modules, still load): as on an interpreter without them.
BLOCK = """
import sys

class Missing:
    def find_spec(self, name, path=None, target=None):
        frame = sys._getframe(1)
        while frame and frame.f_globals.get("__name__", "").startswith(("importlib", "_frozen_importlib")):
            frame = frame.f_back
        if name in {names!r} and frame and frame.f_globals.get("__name__") == "brain.cpython.fast":
            raise ImportError(name)
        return None

sys.meta_path.insert(0, Missing())
for name in {names!r}:
    sys.modules.pop(name, None)  # loaded at start-up (_signal): asked again
"""


def run(blocked=()) -> dict:
    """Which module served each piece, in a fresh interpreter where the `blocked` modules are missing."""
    code = BLOCK.format(names=list(blocked)) + CHECK.format(bundle=str(BUNDLE_ROOT))
    p = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_the_private_modules_are_used_where_they_exist():
    sha = "_sha2" if sys.version_info >= (3, 12) else "_sha256"
    assert run() == {"json": "_json", "sqlite": "_sqlite3", "sha256": sha, "signal": "_signal"}


@pytest.mark.parametrize("blocked, piece, public", [
    (("_json",), "json", "json"), (("_functools",), "sqlite", "sqlite3"), (("_sha256", "_sha2"), "sha256", "_hashlib"),
    (("_signal",), "signal", "signal")])
def test_each_private_module_missing_gives_its_public_module_the_same_results(blocked, piece, public):
    served = run(blocked)
    assert served[piece] == public and served == dict(run(), **{piece: public})
