"""What is new in a session, so capture keeps only that: words and values of a statement, the assistant echoing
what rlm-mem recalled into the session, a memory that restates one already stored.

A restatement keeps every value of the memory it repeats (5433 is not 5434, staging.example.dev is not
api.example.dev) and most of its other words, a word counting as any word for the same idea (recall/lexicon:
"the billing database listens on port 5433" repeats "billing uses Postgres 16 on port 5433"); a value the stored
memory lacks makes the statement new. Stdlib
only: extract.py (which hooks may load) uses the word helpers.
"""
import re

from brain.cpython.fast import sqlite3
from brain.recall.lexicon import idea
from brain.util.text import STOPWORDS

_WORD = re.compile(r"[a-z0-9][a-z0-9_.-]*")
_VALUE_CHARS = frozenset("0123456789./:_")
# Words capture itself puts around what was said ("Decision (agreed): ...", "User prefers ...").
_FRAMING = frozenset("decision agreed correction corrects correcting user prefers likes would rather request "
                     "remember note".split())
ECHO_SHARE = 0.75  # of a statement's words found in one recalled line (with all of its values): an echo
RESTATED_SHARE = 0.8  # of a memory's words found in one stored memory (with all of its values): a restatement


def content_words(text: str) -> set:
    """The words of `text` that carry meaning (no stopwords, nothing under three characters unless it holds a
    digit: "41 passed" is not "9 passed", Postgres 16 is not 15), lower-cased."""
    return {w.rstrip(".:-") for w in _WORD.findall(text.lower())
            if (len(w) > 2 and w not in STOPWORDS) or any(ch.isdigit() for ch in w)}


def values(words: set) -> set:
    """The words that are values (numbers, versions, hosts, paths, identifiers): a restatement must keep them."""
    return {w for w in words if any(ch in _VALUE_CHARS for ch in w)}


def ideas(words: set) -> set:
    """Each word as the idea it stands for (postgres and database are one), values as they are."""
    return {idea(w) for w in words}


def _repeats(words: set, other: set, share: float) -> bool:
    words, other = ideas(words), ideas(other)
    return bool(words) and values(words) <= other and len(words & other) >= share * len(words)


class Recalled:
    """The lines rlm-mem injected into a session (ParsedTranscript.recalled): what an echo would repeat."""

    def __init__(self, lines=()):
        self.lines = [words for words in (content_words(line) for line in lines) if words]

    def echoes(self, text: str) -> bool:
        """Whether `text` says again what one recalled line said (two meaningful words at least)."""
        words = content_words(text) - _FRAMING
        return len(words) >= 2 and any(_repeats(words, line, ECHO_SHARE) for line in self.lines)


def _said(content: str) -> str:
    return content.split(' (correcting: "', 1)[0]  # a correction's quote of the wrong statement is not its claim


def restated(conn, content: str, project_id, limit: int = 20):
    """Id of an active typed memory (this project's, or the person's in any project) that `content` restates, or
    None. `conn`: index/search.db open for reading (None: nothing stored yet)."""
    if conn is None:
        return None
    words = content_words(_said(content)) - _FRAMING
    if len(words) < 2:
        return None
    query = " OR ".join(f'"{w}"' for w in sorted(words, key=len, reverse=True)[:8])
    where = "c.status = 'active' AND c.kind NOT IN ('turn', 'session')"
    args = [query]
    if project_id:
        where += " AND (c.project = ? OR c.project IS NULL OR c.scope IN ('user', 'global'))"
        args.append(project_id)
    try:  # bm25() scores only the rows the filter keeps (`ORDER BY rank` scored every match: 67 -> 35 ms at 100k)
        rows = conn.execute(f"SELECT c.id, c.content FROM fts JOIN chunks c ON c.rowid = fts.rowid "
                            f"WHERE fts MATCH ? AND {where} ORDER BY bm25(fts) LIMIT ?", (*args, limit)).fetchall()
    except sqlite3.Error:  # an index an older rlm-mem made, or a word FTS cannot take: nothing found, nothing lost
        return None
    for chunk_id, stored in rows:
        if _repeats(words, content_words(_said(stored)) - _FRAMING, RESTATED_SHARE):
            return chunk_id
    return None
