"""A corpus of synthetic secrets pushed through every way a string reaches the memory folder, and every stored byte
searched for them.

A corpus is a folder (tests/fixtures/secrets/ by default) holding:
- positives.txt: `kind<TAB>text with «secret»` (or `family/format<TAB>…`), one case a line, "\\n" for a newline;
- alone.txt (optional): `kind<TAB>token`, a secret as it is stored alone (a tag, an id...);
- lookalikes.txt: text that looks a little like a secret and must be kept as written.

`run_paths(tmp, corpus)` writes each case through each write path of PATHS (and each token of alone.txt through
ALONE_PATHS), each path into a memory folder of its own, as a person, a hook or an import would; `leaked(...)` then
reads every byte that folder holds (chunk files, JSON indexes, search.db and its WAL, audit/, episodes/, state/,
file names) and every other text the path produced (the command line's output, a hook's stderr, the candidates
fallback) and says which cases leaked there: the secret whole, or a piece of it (twelve characters of a token,
half the words of a phrase: a secret cut before it was redacted). tests/test_trust.py asserts there is none on the
project's corpus; bench/trust.py --only redaction prints the table per path. The code under test is this bundle,
or the one RLM_MEM_CODE names (bench/trust.py --code: main's, for a before-and-after). Every value is synthetic.
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

BUNDLE = Path(__file__).resolve().parents[2]
CODE = Path(os.environ.get("RLM_MEM_CODE") or BUNDLE)  # the rlm-mem whose redaction is measured
FIXTURES = BUNDLE / "tests" / "fixtures" / "secrets"
PYTHON = CODE / ".venv" / "bin" / "python"
RLM = [str(PYTHON), str(CODE / "scripts" / "rlm_mem.py")]
MIN_SECRET = 6  # shorter secrets ("abc") could be found by chance in unrelated text
PIECE = 12  # a token's characters that, found in a row, count as a piece of it leaked


# ---------------------------------------------------------------- the corpus
_ESCAPE = re.compile(r"\\([\\nt])")


def decode(field: str) -> str:
    """A corpus field's escapes, read left to right: \\n a newline, \\t a tab, \\\\ one backslash (any other
    backslash is itself)."""
    return _ESCAPE.sub(lambda m: {"n": "\n", "t": "\t", "\\": "\\"}[m.group(1)], field)


def _lines(path: Path) -> list:
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [decode(line) for line in lines if line.strip() and not line.startswith("#")]


def corpus(name, folder=FIXTURES):
    return _lines(Path(folder) / name)


def cases(folder=FIXTURES, name="positives.txt", one_per_kind=False) -> list:
    """[(kind, text with the secret, [the secret parts])] of a positives file."""
    out, kinds = [], set()
    for line in corpus(name, folder):
        kind, marked = line.split("\t", 1)
        if one_per_kind and kind in kinds:
            continue
        kinds.add(kind)
        secrets = [s for s in re.findall("«([^»]*)»", marked) if len(s) >= MIN_SECRET]
        out.append((kind, marked.replace("«", "").replace("»", ""), secrets))
    return out


def positives(one_per_kind: bool = False, folder=FIXTURES):
    """[(text with the secret, [the secret parts])] (only the first line of each kind when `one_per_kind`)."""
    return [(text, secrets) for _, text, secrets in cases(folder, one_per_kind=one_per_kind)]


def alone_cases(folder=FIXTURES, one_per_kind=False) -> list:
    """[(kind, token, [token])] of alone.txt: each token is itself the secret."""
    out, kinds = [], set()
    for line in corpus("alone.txt", folder):
        kind, token = line.split("\t", 1)
        if one_per_kind and kind in kinds:
            continue
        kinds.add(kind)
        out.append((kind, token.strip(), [token.strip()] if len(token.strip()) >= MIN_SECRET else []))
    return out


def lookalikes(folder=FIXTURES) -> list:
    """The look-alike texts (a line may be `kind<TAB>text`)."""
    return [line.split("\t", 1)[1] if "\t" in line else line for line in corpus("lookalikes.txt", folder)]


def _cli(root, *args, stdin=None):
    """The command line in-process (click's runner): what a person types, without an interpreter start each."""
    from click.testing import CliRunner

    from brain.cli.main import cli

    return CliRunner().invoke(cli, ["--dir", str(root), *args], input=stdin)


def _one_line(text):
    return " ".join(text.split())


def _words_within(text, limit):
    """The line's words up to `limit` characters: cut where a word ends, as a person would shorten it."""
    out = ""
    for word in _one_line(text).split():
        if len(out) + len(word) + 1 > limit:
            break
        out = f"{out} {word}" if out else word
    return out or _one_line(text)[:limit]


def _tag(text):
    """The line as one tag when it can be one (a tag holds at most 64 characters and no comma)."""
    one = _one_line(text)
    return one if len(one) <= 64 and "," not in one else None


# ---------------------------------------------------------------- write paths for text holding a secret
def content_cli(root, tmp, texts):
    """remember (the text as content), then update --content."""
    outputs, ids = [], []
    for text in texts:
        p = _cli(root, "remember", "--json", stdin=f"Config note:\n{text}")
        outputs.append(p.output)
        ids.append(json.loads(p.stdout)[0]["id"] if p.exit_code == 0 else None)
    for text, cid in zip(texts, ids):
        if cid:
            outputs.append(_cli(root, "update", cid, "--content", f"Updated:\n{text}").output)
    return outputs


def content_import(root, tmp, texts):
    """Every import format with the text as a memory's body."""
    folder = tmp / f"import-content-{root.name}"
    for sub in ("markdown", "legacy", "cognitive/graph/general", "cm"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    records, blocks, index = [], [], ["# Memory index", ""]
    for i, text in enumerate(texts):
        records.append({"content": f"imported {i}:\n{text}"})
        (folder / "markdown" / f"note{i}.md").write_text(_frontmatter({"type": "note"}, f"body {i}: {text}"))
        (folder / "legacy" / f"legacy{i}.md").write_text(f"# Legacy note {i}\n**Created:** 2026-02-08 14:30\n---\n"
                                                         f"legacy body {i}: {text}\n")
        (folder / "cognitive/graph/general" / f"cog{i}.md").write_text(
            _frontmatter({"id": f"cog-{i}", "type": "solution", "title": f"note {i}"}, f"cognitive body {i}: {text}"))
        (folder / "cm" / f"topic{i}.md").write_text(_frontmatter({"name": f"topic {i}", "type": "reference"},
                                                                 f"topic body {i}: {text}"))
        index.append(f"- [topic {i}](topic{i}.md)")
        blocks.append(f"{i + 1}. candidate_note_{i}.md — category: present — tags: [x]\n   ---\n"
                      f"   {_one_line(text)}\n")
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (folder / "cm" / "MEMORY.md").write_text("\n".join(index) + "\n")
    (folder / "block.txt").write_text("## System Notes\n\n[MEMORY_CANDIDATES]\n" + "\n".join(blocks))
    return _import_all(root, folder)


def _import_all(root, folder):
    outputs = []
    for fmt, path in (("jsonl", folder / "records.jsonl"), ("markdown", folder / "markdown"),
                      ("legacy", folder / "legacy"), ("cognitive", folder / "cognitive"),
                      ("claude-memory", folder / "cm"), ("candidates", folder / "block.txt")):
        if path.exists():
            p = _cli(root, "import", "--format", fmt, str(path))
            assert p.exception is None or isinstance(p.exception, SystemExit), p.exception
            outputs.append(p.output)
    return outputs


def _frontmatter(meta: dict, body: str) -> str:
    return "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=10_000) + "---\n\n" + body + "\n"


def metadata_fields(root, tmp, texts):
    """The text in every field a caller or an importer sets besides content: titles, project name, files,
    provenance, metadata.extra at any depth and its keys (library); frontmatter titles and fields, legacy titles
    and file names, claude-memory's index lines, candidates' names (imports)."""
    from brain.scripts import ChunkStore

    store = ChunkStore(root, actor="trust-test")
    specs = [{"content": f"Library note {i}.", "metadata": {
        "title": text, "project_name": _words_within(text, 200), "files": [text],
        "provenance": {"kind": "import", "ref": text, "file": text},
        "extra": {"deep": [{"deeper": {"deepest": [text]}}], _words_within(text, 80): 1}}, "key": f"library:{i}"}
        for i, text in enumerate(texts)]
    store.create_many(specs, reason="trust corpus", on_error=lambda i, exc: None, bulk=True)
    folder = tmp / f"import-meta-{root.name}"
    for sub in ("markdown", "legacy", "cognitive/graph/general", "cm"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    records, blocks, index = [], [], ["# Memory index", ""]
    for i, text in enumerate(texts):
        one = _one_line(text)
        records.append({"content": f"record {i}", "metadata": {"title": text, "files": [text],
                                                                "provenance": {"ref": text},
                                                                "custom": {"nested": [text, {"again": text}]}}})
        records.append({"id": f"chunk-2026-03-01-{i:08x}", "content": f"restored {i}", "tokens": 20, "type": "note",
                        "tags": [], "links": {k: [] for k in ("context_of", "follows", "related_to", "supports",
                                                              "contradicts")}, "metadata": {
                            "created": "2026-03-01T10:00:00Z", "conversation_id": None, "source": "import",
                            "confidence": 0.8, "access_count": 0, "last_accessed": None, "title": text,
                            "extra": {"x": [text]}}})
        (folder / "markdown" / f"note{i}.md").write_text(_frontmatter({"type": "note", "title": one,
                                                                        "metadata": {"extra": {"why": text}}}, "body"))
        name = f"{i} {one}.md" if "/" not in one and len(one.encode()) < 200 else f"legacy{i}.md"
        (folder / "legacy" / name).write_text(f"# {one}\n**Created:** 2026-02-08 14:30\n**Category:** {one}\n---\n"
                                              f"legacy body {i}\n")
        (folder / "cognitive/graph/general" / f"cog{i}.md").write_text(_frontmatter(
            {"id": f"cog-{i}", "type": "solution", "title": one, "importance": 0.5, "steps": [text], "owner": text},
            f"cognitive body {i}"))
        (folder / "cm" / f"topic{i}.md").write_text(_frontmatter({"name": one, "description": one,
                                                                  "type": "reference"}, f"topic body {i}"))
        index.append(f"- note {i}: {one}")
        tag = _tag(text) or "x"
        blocks.append(f"{i + 1}. candidate_note_{i}.md — category: present — tags: [{tag}]\n   ---\n   {one}\n")
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (folder / "cm" / "MEMORY.md").write_text("\n".join(index) + "\n")
    (folder / "block.txt").write_text("## System Notes\n\n[MEMORY_CANDIDATES]\n" + "\n".join(blocks))
    return _import_all(root, folder)


def tags(root, tmp, texts):
    """The text as a tag (when it fits in one), on remember and on update."""
    outputs = []
    for text in texts:
        tag = _tag(text)
        if tag is None:
            continue
        p = _cli(root, "remember", "--json", "--tags", tag, stdin=f"A tagged note {len(outputs)}.")  # (distinct)
        outputs.append(p.output)
        if p.exit_code == 0:
            outputs.append(_cli(root, "update", json.loads(p.stdout)[0]["id"], "--tags", f"x,{tag}").output)
    return outputs


def conversation_ids(root, tmp, texts):
    """The text (its words up to 200 characters) as the conversation a memory is filed under."""
    return [_cli(root, "remember", "--conversation", _words_within(text, 200), stdin=f"A filed note {i}.").output
            for i, text in enumerate(texts)]  # (distinct content: the same content is the same memory)


def audit_reasons(root, tmp, texts):
    """update --reason and forget --reason."""
    outputs = []
    for i, text in enumerate(texts):
        p = _cli(root, "remember", "--json", stdin=f"Note {i} to change.")
        if p.exit_code != 0:
            continue
        cid = json.loads(p.stdout)[0]["id"]
        outputs.append(_cli(root, "update", cid, "--content", f"Note {i}, changed.", "--reason", text).output)
        outputs.append(_cli(root, "forget", cid, "--reason", text).output)
    return outputs


def _capture(root, tmp, name, turns, project=None, failed=None):
    """Capture a transcript of `turns` (demo.write_transcript's form) with the real worker; a tool result starting
    with `failed` is marked as an error."""
    sys.path.insert(0, str(BUNDLE / "scripts"))
    from demo import write_transcript

    project = project or tmp / f"project-{name}"
    project.mkdir(exist_ok=True)
    transcript = tmp / f"{name}.jsonl"
    write_transcript(transcript, name, project, turns)
    if failed:
        lines = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
        for line in lines:
            content = line["message"]["content"]
            for block in content if isinstance(content, list) else ():
                if block.get("type") == "tool_result" and str(block.get("content")).startswith(failed):
                    block["is_error"] = True
        transcript.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    p = subprocess.run(RLM + ["--dir", str(root), "ingest", str(transcript)], capture_output=True, text=True,
                       timeout=600)  # the worker as hooks start it: its own process
    assert p.returncode == 0, p.stderr
    return [p.stdout, p.stderr]


def capture_user(root, tmp, texts):
    return _capture(root, tmp, f"user-{root.name}", [t for text in texts for t in (
        ("user", f"Remember that the config is:\n{text}"), ("assistant", "Noted."))])


def capture_assistant(root, tmp, texts):
    return _capture(root, tmp, f"assistant-{root.name}", [t for text in texts for t in (
        ("user", "What did you find in the config?"), ("assistant", f"I saw this:\n{text}"))])


def capture_bash(root, tmp, texts):
    return _capture(root, tmp, f"bash-{root.name}", [t for i, text in enumerate(texts) for t in (
        ("user", f"Run step {i}."), ("assistant", "Running it.", [("Bash", {"command": _one_line(text)}, "ok")]))])


def capture_tool_results(root, tmp, texts):
    """A command whose error output holds the text, then the same command succeeding: a learning is kept."""
    turns = []
    for i, text in enumerate(texts):
        command = f"./scripts/deploy.sh step{i}"
        turns += [("user", f"Deploy step {i}."),
                  ("assistant", "Deploying.", [("Bash", {"command": command},
                                                f"Exit code 1\nError: deploy failed: {_one_line(text)}")]),
                  ("assistant", "Retrying after the fix.", [("Bash", {"command": command}, "deployed")])]
    return _capture(root, tmp, f"results-{root.name}", turns, failed="Exit code 1")


def capture_edits(root, tmp, texts):
    """An edit adding the text as a line, and a small file written whole with it."""
    return _capture(root, tmp, f"edits-{root.name}", [t for i, text in enumerate(texts) for t in (
        ("user", f"Set the value {i}."),
        ("assistant", "Done.", [("Edit", {"file_path": "app/settings.py", "old_string": "KEY = None",
                                          "new_string": _words_within(text, 150)}, "ok"),
                                ("Write", {"file_path": f"app/.env.{i}", "content": _words_within(text, 150)},
                                 "ok")]))])


def hooks(root, tmp, texts):
    """Hooks: Stop and SessionEnd queue a session whose id and transcript name hold a secret; SessionStart keeps a
    brief; a slider command moves the HUD. Returns the hooks' stderr (it must be clean too)."""
    sys.path.insert(0, str(BUNDLE / "tests"))
    sys.path.insert(0, str(BUNDLE / "scripts"))
    from demo import write_transcript
    from harness.claude_code import fire

    token = next((s for t in texts for s in re.findall(r"(?<![A-Za-z0-9])sk_live_[A-Za-z0-9]{10,}", t)),
                 "sk_live_FAKE0DKRYfmt07ELSZgnu18F")
    project = tmp / f"hook-project-{root.name}"
    project.mkdir(exist_ok=True)
    transcript = tmp / f"{token}.jsonl"
    write_transcript(transcript, token, project, [("user", text) for text in texts[:10]])
    env = dict(os.environ, RLM_MEM_DIR=str(root), RLM_MEM_BACKGROUND="0")
    base = {"session_id": token, "transcript_path": str(transcript), "cwd": str(project)}
    stderr = []
    for event, extra in (("SessionStart", {"source": "startup"}), ("UserPromptSubmit", {"prompt": "Set Humor to 70%"}),
                         ("UserPromptSubmit", {"prompt": texts[0]}), ("Stop", {}), ("SessionEnd", {"reason": "exit"})):
        stderr += [r.stderr for r in fire(event, dict(base, **extra), env=env, bundle_root=CODE)]
    return stderr


def candidates_fallback(root, tmp, texts):
    """SessionEnd with memory unwritable: the MEMORY_CANDIDATES block on stderr and in the fallback file."""
    sys.path.insert(0, str(BUNDLE / "tests"))
    sys.path.insert(0, str(BUNDLE / "scripts"))
    from demo import write_transcript
    from harness.claude_code import fire

    blocker = tmp / f"blocker-{root.name}"
    blocker.write_text("a file where the memory folder should be")
    project = tmp / f"fallback-project-{root.name}"
    project.mkdir(exist_ok=True)
    transcript = tmp / f"fallback-{root.name}.jsonl"
    write_transcript(transcript, "fallback", project, [("user", f"Remember that {_one_line(text)}") for text in texts])
    state = tmp / f"xdg-fallback-{root.name}"
    env = dict(os.environ, RLM_MEM_DIR=str(blocker / "memory"), XDG_STATE_HOME=str(state), RLM_MEM_HOOK_TIMEOUT="60")
    run = fire("SessionEnd", {"session_id": "fallback", "transcript_path": str(transcript), "cwd": str(project),
                              "reason": "exit"}, env=env, bundle_root=CODE)[0]
    kept = "".join(p.read_text(encoding="utf-8") for p in state.rglob("*.md"))
    return [run.stderr, kept]


# ---------------------------------------------------------------- write paths for a token stored alone
def alone_tags(root, tmp, tokens):
    """The token as a tag (a longer one is refused: the refusal is searched too)."""
    return [_cli(root, "remember", "--tags", token, stdin=f"A tagged note {i}.").output
            for i, token in enumerate(tokens)]


def alone_conversation_ids(root, tmp, tokens):
    return [_cli(root, "remember", "--conversation", token, stdin=f"A filed note {i}.").output
            for i, token in enumerate(tokens)]


def alone_metadata_ids(root, tmp, tokens):
    """The token as ids in metadata: provenance.ref, extra.id and extra.request_id (library), a record's
    conversation id and metadata (jsonl import)."""
    from brain.scripts import ChunkStore

    store = ChunkStore(root, actor="trust-test")
    store.create_many([{"content": f"Library note {i}.", "key": f"alone:{i}", "metadata": {
        "provenance": {"kind": "import", "ref": token}, "extra": {"id": token, "request_id": token, token: i}}}
        for i, token in enumerate(tokens)], reason="trust corpus", on_error=lambda i, exc: None, bulk=True)
    folder = tmp / f"import-alone-{root.name}"
    folder.mkdir(exist_ok=True)
    (folder / "records.jsonl").write_text("".join(json.dumps({
        "content": f"record {i}", "conversation_id": token, "metadata": {"extra": {"id": token}}}) + "\n"
        for i, token in enumerate(tokens)), encoding="utf-8")
    return [_cli(root, "import", "--format", "jsonl", str(folder / "records.jsonl")).output]


QUOTED_ARGUMENT_FORMS = ("printf '%s' '{}' | pbcopy", './scripts/check-credentials.sh --env staging "{}"',
                         "curl -s https://api.example.com/v1/ping -H 'Accept: application/json' -d 'key={}'")
SECRET_STORE_FORMS = ("gh secret set API_KEY --body '{}'", "echo '{}' | docker login -u ci --password-stdin ghcr.io",
                      "aws ssm put-parameter --name /app/api-key --type SecureString --value '{}'",
                      "vault kv put secret/app api='{}'",
                      "kubectl create secret generic app --from-literal=credential='{}'",
                      "printf '%s' '{}' | wrangler secret put API_KEY")


def alone_quoted_arguments(root, tmp, tokens):
    """The token as a quoted argument of a Bash command (captured)."""
    return capture_bash(root, tmp, [QUOTED_ARGUMENT_FORMS[i % len(QUOTED_ARGUMENT_FORMS)].format(token)
                                    for i, token in enumerate(tokens)])


def alone_secret_stores(root, tmp, tokens):
    """The token written to a secret store or piped into a login by a Bash command (captured)."""
    return capture_bash(root, tmp, [SECRET_STORE_FORMS[i % len(SECRET_STORE_FORMS)].format(token)
                                    for i, token in enumerate(tokens)])


# (path, field, writer): each row gets a memory folder of its own, so a leak names its path.
PATHS = (
    ("remember, update", "content", content_cli),
    ("import (6 formats)", "content", content_import),
    ("library and imports", "titles, metadata at any depth, file names", metadata_fields),
    ("remember, update", "tags", tags),
    ("remember", "conversation id", conversation_ids),
    ("update, forget", "audit reason", audit_reasons),
    ("capture", "user words", capture_user),
    ("capture", "assistant words", capture_assistant),
    ("capture", "Bash command", capture_bash),
    ("capture", "tool result (error fixed later)", capture_tool_results),
    ("capture", "edit's line, small file", capture_edits),
    ("hooks", "session id, queue, brief, HUD, stderr", hooks),
    ("SessionEnd, memory unwritable", "candidates on stderr and in the fallback file", candidates_fallback),
)
ALONE_PATHS = (
    ("alone", "tag", alone_tags),
    ("alone", "conversation id", alone_conversation_ids),
    ("alone", "ids in metadata", alone_metadata_ids),
    ("alone", "quoted command argument", alone_quoted_arguments),
    ("alone", "value given to a secret store or login", alone_secret_stores),
)


def run_paths(tmp: Path, folder=FIXTURES, *, one_per_kind=False, only=None) -> list:
    """Every path of PATHS (the positives) and ALONE_PATHS (alone.txt's tokens), each into its own memory folder.
    [(path, field, [(kind, secrets)], memory folder, other texts)]: what each row wrote and where to look."""
    rows = []
    positive = cases(folder, one_per_kind=one_per_kind)
    alone = alone_cases(folder, one_per_kind=one_per_kind)
    for i, (path, field, write) in enumerate(PATHS + ALONE_PATHS):
        if only and not any(o in f"{path} {field}" for o in only):
            continue
        items = positive if i < len(PATHS) else alone
        if not items:
            continue
        root = tmp / f"memory-{i:02d}"
        texts = [text for _, text, _ in items]
        if write is tags:  # only the lines that fit in a tag are written as one
            items = [item for item in items if _tag(item[1]) is not None]
        written = [(kind, secrets, text) for kind, text, secrets in items]
        others = write(root, tmp, texts) or []
        rows.append((path, field, written, root, others))
    return rows


def write_everywhere(tmp: Path, cases=None) -> list:
    """The positives (all of them unless `cases` says) through every path of PATHS. [(memory folder, {(path,
    field): cases written}, other texts that must be clean)]."""
    cases = positives() if cases is None else cases
    texts = [text for text, _ in cases]
    out = []
    for i, (path, field, write) in enumerate(PATHS):
        root = tmp / f"memory-{i:02d}"
        others = write(root, tmp, texts) or []
        out.append((root, {(path, field): len(texts)}, others))
    return out


# ---------------------------------------------------------------- searching what was stored
def stored_bytes(root: Path) -> dict:
    """Every file under the memory folder (search.db and its WAL included, read as raw bytes) and every name."""
    out = {}
    if not root.exists():
        return out
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        out[f"name:{rel}"] = rel.encode("utf-8")
        if path.is_file() and not path.is_symlink():
            out[rel] = path.read_bytes()
    return out


def _pieces(secret: str) -> list:
    """What counts as the secret found: itself, or (a secret longer than a piece) any PIECE characters of a token
    in a row, or half the words of a phrase in a row."""
    words = secret.split()
    if len(words) > 1:
        half = (len(words) + 1) // 2
        return [secret] + [" ".join(words[i:i + half]) for i in range(len(words) - half + 1)]
    if len(secret) < PIECE + 4:
        return [secret]
    return [secret] + [secret[i:i + PIECE] for i in range(0, len(secret) - PIECE + 1, 2)]


def _haystack(root: Path, texts) -> tuple:
    stored = stored_bytes(root)
    stored.update({f"text {i}": t.encode("utf-8") for i, t in enumerate(texts)})
    names = list(stored)
    joined = "\0".join(data.decode("utf-8", "replace").lower() for data in stored.values())
    return joined, stored, names


def found(secret, joined: str, public: str = "") -> bool:
    """Whether `secret`, or a piece of it, is in `joined` (lower-cased). A piece that the case's own words outside
    the secret also hold (`public`, lower-cased: "LS0tLS1CRUdJ", base64 of "-----BEGIN", beside a certificate) is
    no evidence."""
    for piece in _pieces(secret):
        if piece is not secret and piece.lower() in public:
            continue
        forms = {piece.lower(), json.dumps(piece)[1:-1].lower(), " ".join(piece.split()).lower()}
        if any(form in joined for form in forms):
            return True
    return False


def public_text(text, secrets) -> str:
    """The case's text without its secrets, lower-cased."""
    for secret in secrets:
        text = text.replace(secret, "\0")
    return text.lower()


def leaked(root: Path, texts, items) -> list:
    """The kinds of `items` ([(kind, secrets[, the case's text])]) whose secret (or a piece of it) is stored under
    `root` or in `texts`."""
    joined, _, _ = _haystack(root, texts)
    # the words of every case outside its secrets: a piece they hold ("me@example.com" in an otpauth URI and in a
    # .netrc line) is no evidence that a secret leaked
    public = "\0".join(public_text(text[0], secrets) for _, secrets, *text in items if text)
    return [kind for kind, secrets, *_ in items if any(found(s, joined, public) for s in secrets)]


def leaks(root: Path, texts=(), cases=None) -> list:
    """(secret, where) for each secret of the corpus (or of `cases`) found in the memory folder or in `texts`."""
    _, stored, _ = _haystack(root, texts)
    out = []
    for _, secrets in positives() if cases is None else cases:
        for secret in secrets:
            for where, data in stored.items():
                if found(secret, data.decode("utf-8", "replace").lower()):
                    out.append((secret, where))
    return out


# ---------------------------------------------------------------- look-alikes
def lookalikes_changed(tmp: Path, folder=FIXTURES) -> dict:
    """{field: [look-alike lines not kept as written]} for content (remember), capture's user words and Bash
    commands, tags, conversation ids and metadata (library: title, extra)."""
    from brain.scripts import ChunkStore

    lines = lookalikes(folder)
    out = {}
    root = tmp / "lookalikes-content"
    for text in lines:
        _cli(root, "remember", stdin=f"Kept as is: {text}")
    stored = " ".join(" ".join(c["content"].split()) for c in ChunkStore(root).layout.iter_chunks())
    out["content (remember)"] = [t for t in lines if _one_line(t) not in stored]
    for field, write in (("capture: user words", capture_user), ("capture: Bash command", capture_bash)):
        root = tmp / f"lookalikes-{field.split()[-1]}-{len(out)}"
        write(root, tmp, lines)
        stored = " ".join(" ".join(c["content"].split()) for c in ChunkStore(root).layout.iter_chunks())
        # (a command is kept in a summary of 120 characters: its first words are what must be as written)
        out[field] = [t for t in lines if _words_within(t, 60) not in stored]
    root = tmp / "lookalikes-fields"
    store = ChunkStore(root, actor="trust-test")
    taggable = [t for t in lines if _tag(t) is not None]
    store.create_many([{"content": f"Look-alike {i}.", "tags": [_tag(t)], "conversation_id": _words_within(t, 200),
                        "metadata": {"title": t, "extra": {"id": t}}, "key": f"look:{i}"}
                       for i, t in enumerate(taggable)], on_error=lambda i, exc: None)
    chunks = {c["content"]: c for c in store.layout.iter_chunks()}
    kept = [chunks.get(f"Look-alike {i}.") for i in range(len(taggable))]
    out["tags"] = [t for t, c in zip(taggable, kept) if not c or c["tags"] != [" ".join(_tag(t).lower().split())]]
    out["conversation id"] = [t for t, c in zip(taggable, kept)
                              if not c or c["metadata"].get("conversation_id") != _words_within(t, 200)]
    out["metadata (title, extra)"] = [t for t, c in zip(taggable, kept) if not c or c["metadata"].get("title") != t
                                      or c["metadata"]["extra"].get("id") != t]
    return out
