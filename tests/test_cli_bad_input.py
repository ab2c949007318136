"""Bad input to the store commands: `Error: ...`, a non-zero exit, no traceback, and nothing written."""
import hashlib
import os
import sqlite3

import pytest
from click.testing import CliRunner

from brain.cli.main import cli
from brain.store.build import MAX_TAGS
from brain.store.chunk_store import MAX_CONTENT_CHARS, ChunkStore

MISSING = "chunk-2026-01-01-deadbeef"
BAD_IDS = [
    "not-an-id",
    "../../etc/passwd",
    "chunks/2026-01/../../../etc/passwd",
    "/etc/passwd",
    "chunk-2026-13-45-zzzzzzzz",
    "chunk-2026-02-30-deadbeef",  # the pattern fits, the date does not exist
    "chunk-2026-01-01-DEADBEEF",
    "chunk-2026-01-01-deadbeef.json",
    "chunk-2026-01-01-deadbeef\n",
    "chunk-2026-01-01-dead\x00beef",
    "",
    "chunk-" + "9" * 5000,
]


@pytest.fixture
def store(tmp_path):
    s = ChunkStore(tmp_path / "mem")
    s.live = s.create_chunk("The staging database listens on port 5433", tags=["db"]).id
    s.gone = s.create_chunk("An archived thought", tags=["old"]).id
    s.delete_chunk(s.gone)
    return s


def snapshot(root):
    """Every file under the store with a digest of its bytes. Taking the lock is not a write, and the search index
    is compared by what it holds (SQLite may rewrite a page header without changing a row)."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name != ".store.lock" and not path.name.startswith("search.db"):
            out[path.relative_to(root).as_posix()] = hashlib.sha1(path.read_bytes()).hexdigest()
    db = root / "index" / "search.db"
    if db.exists():
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            out["search.db rows"] = [conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
                                     for table in ("chunks", "links", "meta")]
        finally:
            conn.close()
    return out


def run(root, *args, stdin=None):
    return CliRunner().invoke(cli, ["--dir", str(root), *args], input=stdin)


def refused(result, code=None):
    assert result.exit_code != 0, result.output
    if code is not None:
        assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)  # not a crash
    assert "Error" in result.output
    assert "Traceback" not in result.output
    return result.output


def id_commands(cid, other):
    return [
        ["get", cid],
        ["get", cid, "--archived"],
        ["update", cid, "--content", "new words"],
        ["update", cid, "--confidence", "0.5"],
        ["forget", cid],
        ["forget", cid, "--permanent"],
        ["restore", cid],
        ["link", cid, other, "--type", "supports"],
        ["link", other, cid, "--type", "contradicts"],
        ["remember", "replaces something", "--supersedes", cid],
        ["supersede", cid, "what holds now"],
    ] + [[name, cid] for name in ("pin", "unpin") if name in cli.list_commands(None)]


@pytest.mark.parametrize("bad", BAD_IDS, ids=lambda s: repr(s)[:30])
def test_bad_ids_refused_on_a_fresh_folder_without_creating_it(tmp_path, bad):
    root = tmp_path / "fresh"
    for args in id_commands(bad, MISSING):
        out = refused(run(root, *args), code=1)
        assert "invalid chunk id" in out, (args, out)
        assert not root.exists(), args


@pytest.mark.parametrize("bad", BAD_IDS, ids=lambda s: repr(s)[:30])
def test_bad_ids_refused_on_a_store_and_nothing_written(store, bad):
    before = snapshot(store.root)
    for args in id_commands(bad, store.live):
        out = refused(run(store.root, *args), code=1)
        assert "invalid chunk id" in out, (args, out)
    assert snapshot(store.root) == before


def test_missing_chunks_refused_and_nothing_written(store):
    before = snapshot(store.root)
    for args in id_commands(MISSING, store.live):
        out = refused(run(store.root, *args), code=1)
        assert MISSING in out, (args, out)
    refused(run(store.root, "restore", store.live), code=1)  # live, not archived
    refused(run(store.root, "update", store.gone, "--content", "x"), code=1)  # archived: restore first
    refused(run(store.root, "link", store.live, store.live, "--type", "supports"), code=1)
    refused(run(store.root, "link", store.gone, store.live, "--type", "supports"), code=1)
    assert snapshot(store.root) == before


def test_traversal_never_reaches_outside(tmp_path):
    secret = tmp_path / "etc" / "passwd"
    secret.parent.mkdir()
    secret.write_text("root:x:0:0")
    root = tmp_path / "a" / "b"
    root.mkdir(parents=True)
    out = refused(run(root, "get", "../../etc/passwd"))
    assert "root:x" not in out
    refused(run(root, "forget", "../../etc/passwd", "--permanent"))
    assert secret.read_text() == "root:x:0:0"


@pytest.mark.parametrize("args, code, words", [
    (["remember", ""], 2, "content is empty"),
    (["remember", "   \n\t "], 2, "content is empty"),
    (["remember", "x", "--confidence", "1.5"], 2, "between 0 and 1"),
    (["remember", "x", "--confidence", "-0.1"], 2, "between 0 and 1"),
    (["remember", "x", "--confidence", "nan"], 2, "between 0 and 1"),
    (["remember", "x", "--confidence", "high"], 2, "confidence"),
    (["remember", "x", "--type", "opinion"], 2, "opinion"),
    (["remember", "x", "--tags", "t" * 65], 1, "longer than 64"),
    (["remember", "x", "--tags", ",".join(f"tag{i}" for i in range(MAX_TAGS + 1))], 1, f"at most {MAX_TAGS}"),
    (["remember", "x", "--tags", "huge" * 100_000], 1, "longer than 64"),
    (["remember", "x", "--conversation", "c" * 5000], 1, "conversation"),
    (["remember", "w " * (MAX_CONTENT_CHARS // 2 + 1)], 1, "limit"),
    (["update", "{live}", "--content", ""], 2, "content is empty"),
    (["update", "{live}", "--content", "word " * 5000], 1, "at most 800"),
    (["update", "{live}", "--confidence", "2"], 2, "between 0 and 1"),
    (["update", "{live}", "--type", "opinion"], 2, "opinion"),
    (["update", "{live}", "--tags", "t" * 65], 1, "longer than 64"),
    (["update", "{live}"], 2, "nothing to change"),
    (["link", "{live}", MISSING, "--type", "loves"], 2, "loves"),
    (["list", "--since", "yesterday-ish"], 2, "--since: not an ISO date"),  # the option and why, not the value
    (["list", "--until", "2026-99-99"], 2, "--until: not an ISO date"),
    (["list", "--type", "opinion"], 2, "opinion"),
    (["list", "--limit", "0"], 2, "limit"),
    (["list", "--tags", "t" * 65], 1, "longer than 64"),
    (["get", "{live}", "--depth", "everything"], 2, "everything"),
    (["supersede", "{live}", ""], 2, "content is empty"),
    (["supersede", "{live}", "x", "--type", "opinion"], 2, "opinion"),
])
def test_bad_arguments_refused(store, args, code, words):
    before = snapshot(store.root)
    args = [a.replace("{live}", store.live) for a in args]
    out = refused(run(store.root, *args), code=code)
    assert words.lower() in out.lower()
    assert snapshot(store.root) == before


def test_empty_stdin_refused(store):
    before = snapshot(store.root)
    refused(run(store.root, "remember", stdin=""), code=2)
    refused(run(store.root, "update", store.live, "--content", "-", stdin="  \n"), code=2)
    assert snapshot(store.root) == before


def test_long_content_is_chunked_not_refused(store):
    text = "\n\n".join(f"Paragraph {i} explains one more detail of the deployment pipeline. " * 12
                       for i in range(40))
    result = run(store.root, "remember", "-", stdin=text)
    assert result.exit_code == 0, result.output
    ids = result.stdout.split()
    assert len(ids) > 3
    stored = [store.get_chunk(cid, track=False) for cid in ids]
    assert all(c is not None and c.tokens <= 800 for c in stored)
    joined = " ".join(c.content for c in stored)
    assert joined.count("Paragraph") == 40 * 12 and all(f"Paragraph {i} " in joined for i in range(40))


def test_dir_that_is_a_file(tmp_path):
    target = tmp_path / "memory.txt"
    target.write_text("not a folder")
    for args in (["remember", "x"], ["list"], ["get", MISSING], ["stats"], ["reindex"], ["doctor"]):
        refused(CliRunner().invoke(cli, ["--dir", str(target), *args]))
    assert target.read_text() == "not a folder"


def test_dir_below_a_file_is_unwritable(tmp_path):
    (tmp_path / "plain").write_text("x")
    root = tmp_path / "plain" / "mem"
    for args in (["remember", "keep this"], ["reindex"], ["forget", MISSING], ["update", MISSING, "--content", "x"]):
        out = refused(run(root, *args), code=1)
        assert "mem" in out


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write into a read-only folder")
def test_read_only_dir_is_unwritable(tmp_path):
    root = tmp_path / "ro"
    root.mkdir()
    os.chmod(root, 0o500)
    try:
        refused(run(root, "remember", "keep this"), code=1)
        assert list(root.iterdir()) == []
    finally:
        os.chmod(root, 0o700)


@pytest.mark.parametrize("command", ["ingest", "import"])
def test_missing_input_files_refused(store, tmp_path, command):
    if command not in cli.list_commands(None):
        pytest.skip(f"no `{command}` command in this build")
    before = snapshot(store.root)
    out = refused(run(store.root, command, str(tmp_path / "no-such-file.jsonl")))
    assert "no-such-file" in out
    assert {k: v for k, v in snapshot(store.root).items() if not k.startswith(("state/", "index/"))} == \
        {k: v for k, v in before.items() if not k.startswith(("state/", "index/"))}
