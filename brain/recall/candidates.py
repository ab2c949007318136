"""Finding the memories that may answer a prompt, before any weighing: each prompt word's BM25 matches (SQLite
FTS5, porter stemming) and its family's, the memories of the days, files and open work the prompt names, and
the rows themselves. Reads only index/search.db; every query is bounded (brain/recall/weights.py, the limits)."""
import math

from brain.cpython.fast import sqlite3
from brain.index.search_index import TOKENIZER
from brain.recall import weights
from brain.recall.lexicon import related
from brain.recall.prompt import stated_kinds

# A word's best matches. bm25() sorted by SQLite rather than FTS5's `ORDER BY rank`, which sorts through a query of
# its own: the same rows in the same order, 20-25% less time (13 prompt words at 10,000 memories: 32.5 -> 25 ms).
_RANKED = "SELECT rowid, -bm25(fts) AS score FROM fts WHERE fts MATCH ? ORDER BY score DESC LIMIT ?"
_SUFFIXES = ("ations", "ation", "ities", "ments", "ings", "ions", "ment", "ings", "ers", "ors", "ity", "ing", "ion",
             "ies", "er", "or", "es", "ed", "s")
_COLUMNS = ("rowid, id, created, type, kind, role, project, scope, conversation_id, confidence, importance, pinned, "
            "status, replaced_at, value_kinds, "
            "sensitivity, access_count, last_accessed, tags, files, when_note, when_spans, content")
_OLDER_COLUMNS = _COLUMNS.replace("when_note, when_spans", "'' AS when_note, '' AS when_spans").replace(
    "project, scope,", "project, NULL AS scope,").replace(
    "status, replaced_at, value_kinds, ", "status, NULL AS replaced_at, '' AS value_kinds, ")


class Found:
    """What the store holds of a prompt: rowid -> summed text score (`text`) and the prompt words each row holds
    (`matched`: a word, or (word, weight, "synonym"|"derived") for one held through its family); word -> IDF
    (`idf`; absent words weigh most); the words too common to search for (`common`) and those ranked over their
    newest matches (`capped`); rows found by the files, days and open work the prompt names; and `valued`, true
    when a prompt of common words asking for a kind of value found memories stating one."""

    __slots__ = ("text", "matched", "idf", "common", "capped", "valued", "file_rows", "dated", "open_work")


def find(conn, prompt, project, total: int) -> Found:
    """Every candidate of the prompt among `total` memories (another project's left out unless it is the
    person's own), in one order of queries."""
    found = Found()
    text, matched, idf, common, capped = text_scores(conn, prompt.words, total)
    found.valued = not text and common and _common_words_stating(conn, common, prompt.wants - {"todo"}, text, matched)
    idf.update(_family_scores(conn, prompt.words, total, text, matched, idf, common, capped))
    for rowid in _other_projects(conn, set(text) | set(matched), project):  # before the gate: what may show
        text.pop(rowid, None)
        matched.pop(rowid, None)
    found.text, found.matched, found.idf, found.common, found.capped = text, matched, idf, common, capped
    found.file_rows = file_rows(conn, prompt.files)
    found.dated = _dated_rows(conn, prompt.dates) if prompt.dates and common else set()
    found.open_work = _open_work_rows(conn, project) if "todo" in prompt.wants else []
    return found


# Kinds of memory someone chose to keep or capture distilled (not the verbatim turns, commits, session records).
CURATED = frozenset(("change", "consolidated", "correction", "decision", "learning", "preference", "request",
                     "memory"))


def keep_curated(conn, found) -> None:
    """Leave in `found` only the memories of a CURATED kind."""
    kept = set(rows_where(conn, set(found.text) | set(found.matched) | set(found.file_rows),
                          f"+kind IN ({','.join('?' * len(CURATED))})", sorted(CURATED)))
    found.text = {r: v for r, v in found.text.items() if r in kept}
    found.matched = {r: v for r, v in found.matched.items() if r in kept}
    found.file_rows = {r for r in found.file_rows if r in kept}
    found.dated, found.open_work, found.valued = set(), [], False  # (those were found among every kind)


def absent_idf(total: int) -> float:
    """The IDF of a word no memory holds: it weighs most."""
    return math.log(1 + (total + 0.5) / 0.5)


# ------------------------------------------------------------------------------------- the words themselves
def text_scores(conn, words, total):
    """rowid -> summed BM25 of the prompt's words, rowid -> words matched, word -> IDF (absent words weigh
    most), the prompt's words too common in the store to search for (they say what the store is about), and the
    words ranked over their newest matches only (on more than COMMON_MAX_ROWS memories; word -> its count)."""
    text, matched, idf, common, capped = {}, {}, {}, [], {}
    absent = absent_idf(total)
    window = _count_window(conn, total)
    for word in words:
        # Count first: counting matches is ~30x cheaper than ranking them (bm25() scores every match), and
        # a common word's ranking is thrown away (bench/run.py at 100k chunks: 1.5 ms instead of 60 ms a word).
        df = _match_count(conn, f'"{word}"', window)
        if df > weights.COMMON_SHARE * total and total >= weights.COMMON_MIN_ROWS:
            idf[word] = 0.0  # names of the people talking, "work" in a work log: present everywhere, tells nothing
            common.append(word)
            continue
        idf[word] = math.log(1 + (total - df + 0.5) / (df + 0.5)) if df else absent
        if df > weights.COMMON_MAX_ROWS:
            capped[word] = df  # a real word of a large store: scored below, over a bounded number of matches
            continue
        rows = conn.execute(_RANKED, (f'"{word}"', weights.TERM_ROWS)).fetchall() if df else []
        for rowid, score in rows:
            text[rowid] = text.get(rowid, 0.0) + score
            matched.setdefault(rowid, []).append(word)
    if capped:
        _capped_scores(conn, {word: _fts_idf(total, df) for word, df in capped.items()}, text, matched)
    return text, matched, idf, common, capped


def _count_window(conn, total: int):
    """(first rowid, the share of the store from it on) of the newest COUNT_WINDOW memories, in a store larger than
    that; else None. Rowids grow with each memory added, so the span from the smallest to the largest tells how
    densely they are used (two index seeks; counting the window's rows would read them all)."""
    if total <= weights.COUNT_WINDOW:
        return None
    # two queries: SQLite reads min() or max() alone off the table's ends, both at once by scanning every row
    first = conn.execute("SELECT min(rowid) FROM chunks").fetchone()[0]
    last = conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0]
    if first is None:
        return None
    start = max(first, last - (weights.COUNT_WINDOW * (last - first + 1)) // total + 1)
    return start, (last - start + 1) / (last - first + 1)


def _match_count(conn, match: str, window) -> int:
    """How many memories `match` finds. A store larger than COUNT_WINDOW: when the newest memories say the count
    would pass COMMON_MAX_ROWS, it is estimated from them (only a word ranked over its newest matches, or not at
    all, gets an estimate; its IDF moves little with it), since counting a word on 25,000 memories took 6 ms
    (bench/run.py, 100k); a rarer word, or one frequent only in older memories, is counted exactly."""
    if window is not None:
        start, share = window
        seen = conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ? AND rowid >= ?", (match, start)).fetchone()[0]
        if seen > weights.COMMON_MAX_ROWS * share:
            return round(seen / share)
    return conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (match,)).fetchone()[0]


def _capped_scores(conn, capped: dict, text, matched):
    """Add the words on more than COMMON_MAX_ROWS memories (word -> its BM25 IDF), each over its newest CAPPED_ROWS
    matches (a bounded piece of work whatever the store's size): a memory among the newest matches of several of
    them gets the sum of their scores (BM25 adds up over words), so a prompt whose words are all common in a large
    store still finds the memories holding most of them. Two or three such words are also searched together (AND),
    over the newest CAPPED_ROWS memories holding them all; a longer AND rarely matches anything."""
    summed = {}
    for word, weight in capped.items():
        for rowid, score in _newest(conn, f'"{word}"', weight):
            total, words = summed.get(rowid, (0.0, []))
            summed[rowid] = (total + score, words + [word])
    if 2 <= len(capped) <= 3:
        for rowid, score in _newest(conn, " AND ".join(f'"{w}"' for w in capped), sum(capped.values())):
            if score > summed.get(rowid, (0.0,))[0]:
                summed[rowid] = (score, list(capped))
    for rowid, (score, words) in summed.items():
        text[rowid] = text.get(rowid, 0.0) + score
        matched.setdefault(rowid, []).extend(words)


def _common_words_stating(conn, common: list, wanted: set, text: dict, matched: dict) -> bool:
    """A prompt all of whose words are common in the store but which asks for a kind of value ("which Go version
    are we on?" in a Go project, where "go" is on a third of the memories): the newest memories holding its words
    (as _capped_scores finds them) that state a value of that kind are its matches. True when there are any."""
    if not wanted:
        return False
    found, found_words = {}, {}
    _capped_scores(conn, dict.fromkeys(common, 1.0), found, found_words)
    for rowid in stating(conn, found, wanted):
        text[rowid] = found[rowid]
        matched[rowid] = found_words[rowid]
    return bool(text)


def stating(conn, rowids, wanted: set) -> list:
    """The rows among `rowids` that state a value of a kind in `wanted` (search.db value_kinds)."""
    if not rowids:
        return []
    wanted = stated_kinds(wanted)
    marks = ",".join("?" * len(rowids))
    return [rowid for rowid, kinds in conn.execute(
        f"SELECT rowid, value_kinds FROM chunks WHERE rowid IN ({marks})", list(rowids))
        if wanted.intersection(kinds.split())]


def _fts_idf(total: int, df: int) -> float:
    """FTS5's BM25 IDF of a phrase on `df` of `total` rows: log((N - n + 0.5) / (n + 0.5)), at least 1e-6."""
    return max(math.log((total - df + 0.5) / (df + 0.5)), 1e-6)


def _newest(conn, match: str, score: float) -> list:
    """(rowid, score) of the newest CAPPED_ROWS rows matching `match`, each scored `score`: the BM25 of a memory
    of average length holding the words once. bm25() would count every match of the phrase again for its IDF
    (1-3 ms a common word at 100,000 memories, bench/run.py), and the caller has counted them already."""
    return [(rowid, score) for (rowid,) in conn.execute(
        "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid DESC LIMIT ?", (match, weights.CAPPED_ROWS))]


# ------------------------------------------------------------------------------------- each word's family
def _root(word: str):
    """The stem a word's derivations share, for a prefix search ("formatter" -> "format"), or None when too
    short to tell words apart ("port*" would find portal and portion)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            root = word[:-len(suffix)]
            doubled = len(root) >= 5 and root[-1] == root[-2] and root[-1] not in "aeiousl"
            return root[:-1] if doubled else root  # "formatters" -> "format", like "formatting"
    return word if len(word) >= 5 and word.isalpha() else None


def _family_queries(word: str, root) -> list:
    """(FTS5 query, weight, kind) for a word's family: the lexicon's terms for the same idea ("synonym"), then
    the words sharing its root (_root(word); "derived": lint* for linter). Empty when it has neither."""
    terms = related(word) or (related(root) if root else ())
    queries = [(" OR ".join(f'"{term}"' for term in terms), weights.SYNONYM_WEIGHT, "synonym")] if terms else []
    if root:
        queries.append((f"{root}*", weights.DERIVED_WEIGHT, "derived"))
    return queries


def _family_scores(conn, words, total, text, matched, idf, common, capped) -> dict:
    """Add each word's family matches to rows that do not hold the word itself (at the family's weight; a row the
    synonyms found is not counted again for a derivation). Returns word -> the family's IDF for words the store
    holds only through their family. A word in `capped` (word -> its count; ranked over its newest matches) has
    its family ranked the same way, uncounted, each match scored as the word's own newest matches are: counting
    `(family) NOT "word"` reads the word's whole doclist (1.5-2 ms at 100,000 memories, bench/run.py) and bm25()
    counts each phrase's matches again (2-5 ms). Its newest matches tell how dense the family is among the newest
    memories: one denser than COMMON_SHARE is left out, as a counted family that common is."""
    found, absent = {}, absent_idf(total)
    roots = {word: _root(word) for word in words if word not in common}
    searched = [word for word, root in roots.items() if root]
    forms = _index_forms(conn, searched + [roots[word] for word in searched])
    for word, root in roots.items():
        store_holds_word = idf.get(word, absent) < absent - 1e-9
        for query, weight, kind in _family_queries(word, root):
            if (kind == "derived" and word in forms and root in forms
                    and not _holds_other_derivation(conn, forms[root], forms[word])):
                continue  # nothing but the word itself starts with its root: the search would find no row
            # Only rows without the word itself: the index stems words, so "model*" mostly finds what "models"
            # found, and ranking those again cost 1.5 ms a word at 10,000 memories (bench/run.py).
            if store_holds_word:
                query = f'({query}) NOT "{word}"'
            if word in capped:
                ranked, df = _newest(conn, query, _fts_idf(total, capped[word])), None
                if len(ranked) == weights.CAPPED_ROWS \
                        and len(ranked) > weights.COMMON_SHARE * (ranked[0][0] - ranked[-1][0] + 1):
                    continue  # "production" for "deploy" where most memories say it: it tells nothing
            else:
                df = conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (query,)).fetchone()[0]
                if not df or (df > weights.COMMON_SHARE * total and total >= weights.COMMON_MIN_ROWS) \
                        or df > weights.COMMON_MAX_ROWS:
                    continue
                ranked = _newest(conn, query, _fts_idf(total, df)) if df > weights.FAMILY_RANKED_ROWS \
                    else conn.execute(_RANKED, (query, weights.TERM_ROWS))
            for rowid, score in ranked:
                held = matched.get(rowid, ())
                if word not in held and not any(isinstance(h, tuple) and h[0] == word for h in held):
                    text[rowid] = text.get(rowid, 0.0) + weight * score
                    matched.setdefault(rowid, []).append((word, weight, kind))
            if df and idf.get(word, 0.0) >= absent - 1e-9 and word not in found:  # absent: the family speaks
                found[word] = math.log(1 + (total - df + 0.5) / (df + 0.5))
    return found


def _index_forms(conn, words) -> dict:
    """word -> the one term the full-text index keeps it under (FTS5's porter stem: "queries" -> "queri"), read
    off a scratch table in this connection's temporary schema (nothing is written to the store), where the
    index's vocabulary is also opened for _holds_other_derivation. Empty when SQLite cannot tell."""
    if not words:
        return {}
    try:
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.prompt_words USING fts5(word, tokenize='{TOKENIZER}')")
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.prompt_terms USING fts5vocab(temp, prompt_words, "
                     "instance)")
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.index_terms USING fts5vocab(main, fts, row)")
        conn.execute("DELETE FROM temp.prompt_words")
        conn.executemany("INSERT INTO temp.prompt_words(rowid, word) VALUES(?, ?)", enumerate(words))
        terms = {}
        for i, term in conn.execute("SELECT doc, term FROM temp.prompt_terms"):
            terms.setdefault(words[i], set()).add(term)
    except sqlite3.Error:
        return {}
    return {word: next(iter(found)) for word, found in terms.items() if len(found) == 1}


def _holds_other_derivation(conn, root: str, form: str) -> bool:
    """Whether the index holds a term starting with `root` other than `form`, both as the index keeps them (FTS5
    stems a prefix query's text too: `override*` searches overrid*). Read off the index's vocabulary in ranges
    that leave `form` out: counting `(root*) NOT "word"` reads both doclists whole (0.3-0.7 ms a word at 100,000
    memories, bench/run.py), and it nearly always finds nothing (the index keeps a word's derivations under its
    own stem)."""
    end = root[:-1] + chr(ord(root[-1]) + 1)  # the first string past every one starting with root
    if not form.startswith(root):
        ranges = [(root, end)]
    else:  # the vocabulary reads a term's doclist before it checks the bound: stop just short of `form`
        ranges = [(root, form[:-1] + chr(ord(form[-1]) - 1) + "\U0010ffff")] if form != root else []
        ranges.append((form + "\x01", end))
    try:  # temp.index_terms: made with the scratch tables of _index_forms, which gave `root` and `form`
        return any(conn.execute("SELECT 1 FROM temp.index_terms WHERE term >= ? AND term < ? LIMIT 1", bounds)
                   .fetchone() for bounds in ranges)
    except sqlite3.Error:
        return True  # cannot tell: search as before


# ---------------------------------------------------------------------- what the prompt names besides words
def _dated_rows(conn, spans) -> set:
    """Rows made on the days the prompt names (a day either side), whatever their words."""
    from datetime import timedelta  # the prompt named a date, so datetime is loaded already

    found = set()
    for first, last in spans:
        if first == "month":
            sql = "SELECT rowid FROM chunks WHERE substr(created, 6, 2) = ? ORDER BY created DESC LIMIT ?"
            args = (f"{last:02d}", weights.DATED_ROWS)
        else:
            sql = "SELECT rowid FROM chunks WHERE created >= ? AND created < ? ORDER BY created DESC LIMIT ?"
            args = ((first - timedelta(days=1)).isoformat(), (last + timedelta(days=2)).isoformat(),
                    weights.DATED_ROWS)
        found.update(rowid for (rowid,) in conn.execute(sql, args))
    return found


def _open_work_rows(conn, project) -> list:
    """Rowids of the project's latest memories saying what is left to do (follow-ups, pending TODOs, "next
    time ..."), newest first."""
    sql = "SELECT rowid FROM chunks WHERE ' ' || value_kinds || ' ' LIKE '% todo %' AND status = 'active'"
    args = []
    if project:
        sql += " AND project = ?"
        args.append(project)
    try:
        return [r for (r,) in conn.execute(sql + " ORDER BY created DESC LIMIT ?", (*args, weights.OPEN_WORK_ROWS))]
    except sqlite3.OperationalError:  # an index an older rlm-mem made (no value_kinds), until it is rebuilt
        return []


def file_rows(conn, names) -> set:
    """Rows whose metadata.files holds a path ending in one of `names` (a whole file name, not a suffix)."""
    found = set()
    for name in names:
        try:
            rows = conn.execute("SELECT c.rowid, c.files FROM file_names f JOIN chunks c ON c.id = f.id "
                                f"WHERE f.name = ? LIMIT {weights.FILE_ROWS}", (name,)).fetchall()
        except sqlite3.OperationalError:  # an index an older rlm-mem made (no file_names), until it is rebuilt
            pattern = "%" + name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            rows = conn.execute(f"SELECT rowid, files FROM chunks WHERE files LIKE ? ESCAPE '\\' "
                                f"LIMIT {weights.FILE_ROWS}", (pattern,)).fetchall()
        for rowid, paths in rows:
            if any(p == name or p.endswith("/" + name) for p in paths.split("\n")):
                found.add(rowid)
    return found


# ------------------------------------------------------------------------------------------- the rows
def _other_projects(conn, rowids, project) -> list:
    """The rows among `rowids` that belong to another project and are not the person's own (scope user/global).
    Two index seeks tell first whether the store holds another project at all (most stores hold one)."""
    if not project or not rowids or conn.execute("SELECT 1 FROM chunks WHERE project < ? OR project > ? LIMIT 1",
                                                 (project, project)).fetchone() is None:
        return []
    try:
        return rows_where(conn, rowids, "project IS NOT NULL AND project != ? AND (scope IS NULL OR scope NOT IN "
                                        "('user', 'global'))", (project,))
    except sqlite3.OperationalError:  # an index an older rlm-mem made (no scope), until it is rebuilt
        return rows_where(conn, rowids, "project IS NOT NULL AND project != ?", (project,))


def rows_where(conn, rowids, condition: str, args=()) -> list:
    """The rows among `rowids` whose chunk meets the SQL `condition` (its `?` bound to `args`), read by rowid
    ROWID_BATCH at a time."""
    rowids, out = list(rowids), []
    for start in range(0, len(rowids), weights.ROWID_BATCH):
        part = rowids[start:start + weights.ROWID_BATCH]
        out += [r for (r,) in conn.execute(
            f"SELECT rowid FROM chunks WHERE rowid IN ({','.join('?' * len(part))}) AND {condition}", (*part, *args))]
    return out


def fetch(conn, rowids) -> dict:
    """rowid -> the row's search.db columns as a dict (those an older index lacks given empty)."""
    rows, cursor, batch = {}, conn.cursor(), weights.ROWID_BATCH
    cursor.row_factory = None  # tuples zipped with the column names: dict() of a sqlite3.Row costs twice as much
    for start in range(0, len(rowids), batch):
        part = rowids[start:start + batch]
        marks = ",".join("?" * len(part))
        try:
            cursor.execute(f"SELECT {_COLUMNS} FROM chunks WHERE rowid IN ({marks})", part)
        except sqlite3.OperationalError:  # an index an older rlm-mem made, until the worker rebuilds it
            cursor.execute(f"SELECT {_OLDER_COLUMNS} FROM chunks WHERE rowid IN ({marks})", part)
        names = [column[0] for column in cursor.description]
        for values in cursor.fetchall():
            rows[values[0]] = dict(zip(names, values))
    return rows


def value_changes(conn, project) -> list:
    """(old, new, at, id) of the project's value changes (search.db, from capture), newest first."""
    if not project:
        return []
    try:
        return conn.execute("SELECT old, new, at, id FROM changes WHERE project IS ? AND old IS NOT NULL "
                            f"ORDER BY at DESC LIMIT {weights.CHANGES_READ}", (project,)).fetchall()
    except sqlite3.OperationalError:  # an index an older rlm-mem made, until the worker rebuilds it
        return []
