"""`--format auto`: tell a source's format from its layout and its first lines."""
from pathlib import Path

from brain.interop import candidate_block, claude_memory, cognitive, legacy, markdown
from brain.interop.records import SourceError, md_files, read_text, split_frontmatter

SAMPLE = 20  # files looked at in a folder


def detect_format(path) -> str | None:
    """The format name for a file or folder ("-" is stdin: a candidates block), or None when it cannot tell."""
    if str(path) == "-":
        return "candidates"
    path = Path(path)
    if path.is_dir():
        return _detect_folder(path)
    if path.suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if path.name == claude_memory.INDEX:
        return "claude-memory"
    try:
        return _detect_text(read_text(path))
    except SourceError:
        return None


def _detect_folder(folder: Path) -> str | None:
    if (folder / claude_memory.INDEX).is_file():
        return "claude-memory"
    if (folder / "graph").is_dir():
        return "cognitive"
    if any(p.suffix in (".jsonl", ".ndjson") for p in folder.iterdir()) and not md_files(folder):
        return "jsonl"
    votes = {}
    for path in md_files(folder, skip=cognitive.SKIP)[:SAMPLE]:
        fmt = detect_format(path)
        if fmt and fmt != "candidates":  # a folder of memory files is never one candidates block
            votes[fmt] = votes.get(fmt, 0) + 1
    return max(votes, key=votes.get) if votes else None


def _detect_text(text: str) -> str | None:
    if text.lstrip().startswith("{"):
        return "jsonl"
    if text.lstrip().startswith("---"):
        try:
            meta, _ = split_frontmatter(text)
        except SourceError:
            meta = {}
        if markdown.looks_like(meta):
            return "markdown"
        if cognitive.looks_like(meta):
            return "cognitive"
        if claude_memory.looks_like(meta):
            return "claude-memory"
        if markdown.looks_like_partial(meta):
            return "markdown"
    if legacy.looks_like(text):
        return "legacy"
    if candidate_block.looks_like(text):
        return "candidates"
    return None
