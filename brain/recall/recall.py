"""Recall: the memories that answer a prompt, best first, within a token budget. No network, no model.

Reads only index/search.db, in four steps, each in its own module:
1. Candidates (candidates.py): BM25 (SQLite FTS5, porter stemming) of each prompt word, summed, and of each
   word's family at a lower weight (its derivations and the lexicon's terms for the same idea); words too common
   in the store to discriminate are left out. Memories of the days, files and open work the prompt names.
   Another project's memory never (`project=None` ranks every project alike), the person's own (scope user or
   global) in every project.
   A prompt the person typed that gives work ("fix the failing test") rather than asks is answered only by
   curated memories (decisions, changes, preferences, corrections, learnings), never the record of turns.
2. The gate (gate.py): is anything worth injecting? When no memory covers enough of the prompt's distinctive
   words in any of the ways gate.reason_to_inject lists, nothing is returned.
3. Weighing (scoring.py): a text score weighted by the share of the prompt its memory holds; a turn also scores
   by the turns around it (an answer often shares no word with the prompt but follows a turn that does); then
   who (a turn by a person the prompt names), when (a date the prompt names), what (corrections, requests,
   decisions and preferences over verbatim turns; confidence; salience: pinned, often used, recent), the kind of
   value asked for, files, tags and length. Superseded or retracted
   memories never lead; a replaced value is marked and brings the change that replaced it.
4. The budget (render.py): items fill the token budget best first, each at most once, shown with their id,
   a kind mark and what their relative dates mean; a turn's tool calls whole for the best item only.
Every number these steps use is in weights.py, with why it has its value.
"""
from brain.cpython.fast import sqlite3
from brain.index.access import record_access
from brain.index.search_index import chunk_count, connect
from brain.recall import candidates, gate, weights
from brain.recall.prompt import Clock, Prompt
from brain.recall.render import RecallResult, fill
from brain.store.sensitivity import check_level

DEFAULT_BUDGET_TOKENS = weights.DEFAULT_BUDGET_TOKENS
_LEFT_OPEN = []  # connections of a process about to leave (recall's `exiting`)


def recall(root, query: str, *, project=None, limit=None, budget_tokens=None, depth="full",
           max_sensitivity="medium", files=(), now=None, track=True, exiting=False, chunk_type=None,
           since=None, typed=False) -> RecallResult:
    """The memories under `root` that answer `query`, best first within `budget_tokens` (see the module doc).
    `chunk_type`, `since` (a normalized timestamp): only memories of that type, or made since then, are ranked.
    `now`: a datetime (naive means UTC) or epoch seconds; the current time by default. `exiting`: the process
    leaves through os._exit right after (the prompt hook), so the read-only index is left open: closing it
    (unmapping it, freeing its page cache) cost ~0.8 ms of the hook at 100,000 memories (bench/run.py). `typed`:
    `query` is what the person typed to Claude (the prompt hook), not a search of memory: work it gives ("fix the
    failing test") is answered only by curated memories (Prompt.gives_work)."""
    if depth != "full":  # the prompt hook's depth; another is checked against the list, loaded only for it
        from brain.recall.depth import DEPTHS  # the depths' own module: the prompt hook's "full" needs none of it

        if depth not in DEPTHS:
            raise ValueError(f"unknown depth; use one of {', '.join(DEPTHS)}")
    check_level(max_sensitivity)
    budget = weights.DEFAULT_BUDGET_TOKENS if budget_tokens is None else max(0, int(budget_tokens))
    limit = weights.DEFAULT_LIMIT if limit is None else max(0, int(limit))
    now = Clock(now)
    empty = RecallResult(query, [], budget, depth)
    if not isinstance(query, str) or not query.strip() or budget <= 0 or limit <= 0:
        return empty
    try:
        conn = connect(root, readonly=True, mapped=True)
    except sqlite3.Error:
        return empty
    if conn is None:
        return empty
    try:
        conn.row_factory = sqlite3.Row
        prompt = Prompt(query, tuple(files or ()), now, typed)
        ranked, considered = rank(conn, prompt, project, max_sensitivity, now,
                                  candidates.value_changes(conn, project), Only(chunk_type, since))
        # A prompt that only touches the store (a word or two of it) gets a short context: if it asked about
        # memory, the best few items hold the answer; if it did not, little is in the way.
        if prompt.weak:
            budget, cut = min(budget, weights.WEAK_BUDGET_TOKENS), weights.WEAK_RELATIVE_CUT
        else:
            cut = weights.RELATIVE_CUT
        items = fill(ranked, budget, limit, depth, conn, prompt.words, cut)
    except sqlite3.Error:  # a damaged or half-migrated index: recall nothing rather than fail the prompt
        return empty
    finally:
        if exiting:
            _LEFT_OPEN.append(conn)  # referenced, or freeing the object would close it all the same
        else:
            conn.close()
    if track and items:
        try:
            record_access(root, [item.id for item in items])
        except OSError:
            pass  # a read-only store can still be recalled from
    return RecallResult(query, items, budget, depth, considered)


def rank(conn, prompt, project, max_sensitivity, now, changes=(), only=None):
    """(scored candidates best first, how many were considered). Each candidate: (score, row, why); `only`: the
    filter (Only) candidates pass before they are ranked."""
    total = chunk_count(conn)  # a kept count: count(*) costs 3 ms at 100k chunks (bench/run.py)
    if not total:
        return [], 0
    found = candidates.find(conn, prompt, project, total)
    if prompt.gives_work:  # work to do: what the person chose to keep about such work, not the record of it
        candidates.keep_curated(conn, found)
    cover = gate.Coverage(found, total)
    if gate.reason_to_inject(conn, found, cover, prompt.wants) is None:
        return [], 0
    from brain.recall import scoring  # past the gate only: most prompts stop there (~0.3 ms of the prompt hook)

    prompt.weak = prompt.gives_work or (cover.best < weights.STRONG_SHARE
                                        and not (found.file_rows or found.open_work or found.dated
                                                 or prompt.asks_history))
    found.text = scoring.by_share_held(found.text, cover.share)
    scores = scoring.starting_scores(conn, found, prompt)
    if only:
        scores = only.kept(conn, scores, prompt.words)
    best = sorted(scores, key=scores.get, reverse=True)[:weights.MAX_CANDIDATES]
    weighing = scoring.Weighing(conn, prompt, project, now, max_sensitivity, found, changes)
    ranked = weighing.with_changes(weighing.weigh(best, scores), scores)
    if only:
        ranked = [r for r in ranked if only.matches(r[1])]  # a change a replaced value brought
    if prompt.gives_work:
        ranked = [r for r in ranked if r[1]["kind"] in candidates.CURATED]
    ranked.sort(key=lambda r: (r[0], r[1]["created"]), reverse=True)
    floor = ranked[0][0] * weights.RELATIVE_MIN if ranked else 0.0
    return [r for r in ranked if r[0] >= floor], len(scores)


class Only:
    """A filtered recall's filter: a type, a first moment. Applied to the candidates before ranking, so a match
    ranked below the top of the whole store is still found, and each prompt word's best rows in the filtered part
    are read too (a word's TERM_ROWS best over the whole store may hold none of them)."""

    def __init__(self, chunk_type=None, since=None):
        self.chunk_type, self.since = chunk_type, since
        where = [c for c, v in (("type = ?", chunk_type), ("created >= ?", since)) if v]
        self.where, self.args = " AND ".join(where), [v for v in (chunk_type, since) if v]

    def __bool__(self) -> bool:
        return bool(self.where)

    def matches(self, row) -> bool:
        return (not self.chunk_type or row["type"] == self.chunk_type) and \
            (not self.since or row["created"] >= self.since)

    def kept(self, conn, scores: dict, words) -> dict:
        kept = {r: scores[r] for r in candidates.rows_where(conn, scores, self.where, self.args)}
        if words:
            match = " OR ".join(f'"{word}"' for word in words)
            for rowid, score in conn.execute(
                    f"SELECT rowid, -bm25(fts) AS score FROM fts WHERE fts MATCH ? AND rowid IN "
                    f"(SELECT rowid FROM chunks WHERE {self.where}) ORDER BY score DESC LIMIT ?",
                    (match, *self.args, weights.TERM_ROWS)):
                kept.setdefault(rowid, score)
        return kept
