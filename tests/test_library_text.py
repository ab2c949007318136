"""The library is general: no file under brain/ names a benchmark history (bench/coding/), so no rule, docstring
or comment is written for one history's words. Its examples are made up."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BRAIN = ROOT / "brain"
# The histories of bench/coding/, those written so far and any added there later (NAME.yaml).
KNOWN_HISTORIES = {"ledger", "trailmap", "harbor", "quarry", "lantern", "saltbox", "gullwing", "kestrel", "pinecone",
                   "heron", "wren", "hearth"}
# Public lists that were not written for a history and happen to hold a name: BIP-39's English words (a wallet
# phrase is known by them) and a vendor whose token format the redaction knows. Only these words in these files.
PUBLIC_DATA = {("brain/safety/bip39.py", "harbor"), ("brain/safety/families.py", "pinecone")}


def history_names() -> set:
    found = {path.stem for path in (ROOT / "bench" / "coding").glob("*.yaml")}
    return KNOWN_HISTORIES | {name for name in found if name.isalpha()}


def history_pattern():
    """A history's name as a whole word, in any case."""
    return re.compile(r"\b(" + "|".join(sorted(history_names())) + r")\b", re.IGNORECASE)


def library_files():
    """Every text file of the library: its sources and the files it ships (no bytecode, no memory store)."""
    for path in sorted(BRAIN.rglob("*")):
        parts = path.relative_to(BRAIN).parts
        if path.is_file() and "__pycache__" not in parts and parts[0] != "memory":
            try:
                yield path, path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue


def test_the_history_names_are_found():
    names = history_names()
    assert {path.stem for path in (ROOT / "bench" / "coding").glob("*.yaml")} >= {"ledger", "wren"}
    assert len(names) >= 12


def test_no_library_file_names_a_benchmark_history():
    pattern = history_pattern()
    files = list(library_files())
    assert len(files) > 100  # the walk reached the library
    found = [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 1}: {match.group(0)}"
             for path, text in files for match in pattern.finditer(text)
             if (path.relative_to(ROOT).as_posix(), match.group(0).lower()) not in PUBLIC_DATA]
    assert not found, "\n".join(found)


def test_the_check_catches_a_name_in_any_case_as_a_whole_word_only():
    pattern = history_pattern()
    assert pattern.search('topic = "Pinecone.reminders"') and pattern.search("# as in WREN's config")
    assert not pattern.search("ledgers") and not pattern.search("heronry") and not pattern.search("wrench")
