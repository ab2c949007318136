"""Weighing the candidates: a turn also scores by the turns around it, memories found by a day, a file or open
work start at a share of the best text score, and then everything but text relevance counts as one factor per
memory (kind, confidence, salience, status, speaker, dates, the kind of value asked for, tags, project, length).
A memory stating a value changed since is marked and ranked lower, and brings the change that replaced it."""
from brain.recall import weights
from brain.recall.candidates import fetch
from brain.recall.prompt import STEM_CHARS
from brain.store.salience import salience
from brain.store.sensitivity import allowed
from brain.util.text import holds_value, speaker_label, value_span
from brain.util.text import words as word_runs

HIDDEN_STATUS = ("retracted",)  # withdrawn as wrong: never shown
SHARED_SCOPES = ("user", "global")  # metadata.scope of memories recalled in every project
_CLAUSE_ENDS = (", ", "; ", ". ", "! ", "? ", ": ", " (", ") ", "\n")
_TURNS = "SELECT {part}, created, rowid FROM chunks WHERE conversation_id=? AND +kind='turn' AND "
# One query for the turns before a conversation's first hit, between its first and last, and after its last
# (each arm ordered and limited on its own; the rows are put in order here): 16 conversations a prompt, three
# statements each, cost ~1 ms of the prompt hook.
_TURN_RUN = (
    "SELECT * FROM (" + _TURNS.format(part=0) + "(created, rowid) < (?, ?) ORDER BY created DESC, rowid DESC LIMIT ?)"
    " UNION ALL SELECT * FROM (" + _TURNS.format(part=1) + "(created, rowid) >= (?, ?) AND (created, rowid) <= (?, ?)"
    " ORDER BY created, rowid LIMIT ?)"
    " UNION ALL SELECT * FROM (" + _TURNS.format(part=2) + "(created, rowid) > (?, ?) ORDER BY created, rowid LIMIT ?)")


def by_share_held(text: dict, share: dict) -> dict:
    """Each text score times COVERAGE_BASE + the share of the prompt's weight its memory holds (gate.Coverage)."""
    return {rowid: score * (weights.COVERAGE_BASE + share.get(rowid, 0.0)) for rowid, score in text.items()}


def starting_scores(conn, found, prompt) -> dict:
    """rowid -> score before weighing: text scores spread to neighbouring turns, then the memories of the days,
    files and open work the prompt names, each starting at its share of the best text score."""
    scores = _with_context(conn, found.text, weights.WHY_KERNEL if prompt.why else weights.KERNEL)
    top_text = max(found.text.values(), default=1.0)
    for rowid in found.dated:
        scores.setdefault(rowid, weights.DATED_SHARE * top_text)
    for rowid in found.file_rows:
        scores[rowid] = max(scores.get(rowid, 0.0), weights.FILE_SHARE * top_text)
    for newer, rowid in enumerate(found.open_work):  # "what's left to do?": the latest open work first
        scores[rowid] = max(scores.get(rowid, 0.0), weights.OPEN_WORK_SHARE ** newer * top_text)
    return scores


class Weighing:
    """Turns candidates into (score, row, why), leaving out what may not show: a retracted memory, one above the
    sensitivity allowed, another project's unless it is the person's own (scope user or global)."""

    def __init__(self, conn, prompt, project, now, max_sensitivity, found, changes):
        self.conn, self.prompt, self.project, self.now, self.found = conn, prompt, project, now, found
        self.changes = changes
        self.visible = set(allowed(max_sensitivity))

    def weigh(self, rowids, scores, reason=None) -> list:
        """Each of `rowids` that may show, its score in `scores` times its weight. `reason`: why these were
        brought ("change"), instead of their text."""
        conn, prompt, project, now, changes = self.conn, self.prompt, self.project, self.now, self.changes
        text, dated, file_rows, visible = self.found.text, self.found.dated, self.found.file_rows, self.visible
        rows, out = fetch(conn, rowids), []
        for rowid in rowids:
            row = rows.get(rowid)
            if row is None or row["status"] in HIDDEN_STATUS or row["sensitivity"] not in visible:
                continue
            if project and row["project"] not in (None, project) and row["scope"] not in SHARED_SCOPES:
                continue  # another project's memory: only when every project is asked for (project=None)
            why = [reason] if reason else ["text"] if rowid in text else []
            if not reason and scores[rowid] > text.get(rowid, 0.0) * weights.CONTEXT_MARGIN and rowid not in dated:
                why.append("context")
            score = scores[rowid]
            if rowid in file_rows:
                score *= weights.FILE_BOOST
                why.append("file")
            score *= _weight(row, prompt, project, now, why) * length_factor(len(row["content"]))
            row["stale"] = _stale_value(row, changes, prompt.stems) if changes and row["status"] == "active" else None
            if row["stale"]:  # marked; not ranked lower when a change brought it (the why names the old value)
                if not reason:
                    score *= weights.STALE_VALUE_WEIGHT
                why.append("replaced value")
            out.append((score, row, why))
        return out

    def with_changes(self, ranked, scores) -> list:
        """`ranked` with the memories that made the changes behind the replaced values it shows (and the turns
        asking for them): a replaced value shown brings the change that replaced it."""
        changed = _changes_behind(self.conn, ranked, scores, self.changes, self.prompt) if self.changes else {}
        if changed:
            at = {row["rowid"]: i for i, (_, row, _) in enumerate(ranked)}
            for found in self.weigh(list(changed), changed, "change"):
                i = at.get(found[1]["rowid"])
                if i is None:
                    ranked.append(found)
                elif found[0] > ranked[i][0]:
                    ranked[i] = (found[0], ranked[i][1], ranked[i][2] + ["change"])
        return ranked


# -------------------------------------------------------------------------------- neighbouring turns
def _with_context(conn, text: dict, kernel: dict) -> dict:
    """Text scores spread to the turns around each of the best hits (same conversation, in order) by `kernel`
    (KERNEL, or WHY_KERNEL for a "why"); other memories keep their own score."""
    top = sorted(text, key=text.get, reverse=True)[:weights.HITS_FOR_CONTEXT]
    if not top:
        return dict(text)
    reach = max(kernel)
    marks = ",".join("?" * len(top))
    # "+kind", "+conversation_id": look the hits up by rowid. Without the plus signs SQLite walks the kind index
    # over every turn of the store (15-25 ms a prompt at 100k memories, bench/run.py; 1-2 ms by rowid).
    hits = conn.execute(f"SELECT rowid, conversation_id, created FROM chunks WHERE rowid IN ({marks}) "
                        "AND +kind='turn' AND +conversation_id IS NOT NULL", top).fetchall()
    spread = {}
    by_conversation = {}
    for rowid, conv, created in hits:
        by_conversation.setdefault(conv, []).append((created, rowid))
    for conv, conv_hits in by_conversation.items():
        # One run of turns covers every hit of a conversation and its neighbours: three queries per conversation
        # instead of two per hit (40 hits cost ~4 ms in one-by-one queries at 10k memories).
        order = _turn_run(conv, sorted(conv_hits), reach, conn)
        for created, rowid in conv_hits:
            at, score = order[rowid], text[rowid]
            seq = order["_seq"]
            for distance in range(1, reach + 1):
                if at - distance >= 0:  # a turn whose next-but-(distance-1) turn matched
                    other = seq[at - distance]
                    spread[other] = spread.get(other, 0.0) + kernel[distance] * score
                if at + distance < len(seq):  # a reply (distance 1) to a turn that matched
                    other = seq[at + distance]
                    spread[other] = spread.get(other, 0.0) + kernel[-distance] * score
    scores = dict(text)
    for rowid, extra in spread.items():
        scores[rowid] = scores.get(rowid, 0.0) + extra
    return scores


def _turn_run(conv, hits, reach, conn) -> dict:
    """rowid -> position in the conversation's turns (in order) for every hit and its `reach` neighbours."""
    first, last = hits[0], hits[-1]
    rows = conn.execute(_TURN_RUN, (conv, *first, reach, conv, *first, *last, weights.MAX_RUN + 1,
                                    conv, *last, reach)).fetchall()
    if sum(1 for part, _, _ in rows if part == 1) > weights.MAX_RUN:  # hits far apart in a very long conversation
        seq = []
        for created, rowid in hits:
            seq += _turn_run(conv, [(created, rowid)], reach, conn)["_seq"]
        seq = list(dict.fromkeys(seq))
        return _positions(seq)
    return _positions([rowid for _, _, rowid in sorted(rows, key=lambda row: (row[1], row[2]))])


def _positions(seq) -> dict:
    out = {rowid: i for i, rowid in enumerate(seq)}
    out["_seq"] = seq
    return out


# ------------------------------------------------------------------------------------ one memory's weight
def _weight(row, prompt, project, now, why) -> float:
    """Everything but text relevance, as one factor (weights.py says why each counts as it does)."""
    weight = weights.KIND_WEIGHT.get(row["kind"], 1.0) * weights.TYPE_WEIGHT.get(row["type"], 1.0)
    confidence = row["confidence"] if row["confidence"] is not None else weights.DEFAULT_CONFIDENCE
    weight *= weights.CONFIDENCE_BASE + weights.CONFIDENCE_SLOPE * float(confidence)
    weight *= 1.0 + weights.SALIENCE_SLOPE * min(1.0, _salience(row, now))
    if row["status"] == "contested":
        weight *= weights.CONTESTED_WEIGHT
    elif row["status"] == "superseded":
        weight *= weights.SUPERSEDED_WEIGHT
    label = speaker_label(row["content"])[0] if prompt.names else None
    speaker = label.split(" ", 1)[0] if label else None
    if speaker and speaker.lower() in prompt.names:
        weight *= weights.SPEAKER_BOOST
        why.append("speaker")
    if prompt.dates and _about_dates(row, prompt.dates):
        weight *= weights.DATE_BOOST
        why.append("date")
    if prompt.wants and not prompt.stated_kinds.isdisjoint(row["value_kinds"].split()):
        weight *= weights.VALUE_KIND_BOOST
        why.append("value")
    if row["tags"]:
        shared = len(set(row["tags"].split()) & prompt.lower_words)
        if shared:
            weight *= weights.TAG_BOOST ** min(shared, weights.TAG_BOOST_MAX_TAGS)
            why.append("tag")
    if project:
        if row["scope"] in SHARED_SCOPES and row["project"] != project:
            why.append(row["scope"])  # the person's own, said in another project: as much theirs here
        elif row["project"] is None:
            weight *= weights.GLOBAL_WEIGHT
    return weight


def _salience(row, now) -> float:
    # An old, never used turn: salience has decayed to nothing (and it costs time to say so). Stored times are ISO,
    # so comparing the day as a string tells whether it is recent.
    if not (row["pinned"] or row["access_count"] or row["kind"] != "turn" or row["created"][:10] >= now.recent_from):
        return 0.0
    return salience(row, now.epoch)


def _about_dates(row, spans) -> bool:
    from brain.util.timeref import (  # re and datetime: dated prompts only
        day_of,
        overlaps,
        stored_spans,
    )

    day = day_of(row["created"])
    if day is None:
        return False
    if overlaps(spans, day, day):
        return True
    return any(overlaps(spans, first, last, 0) for first, last in stored_spans(row["when_spans"]))


def length_factor(length: int) -> float:
    """BM25's length normalisation moved from FTS5's b to LENGTH_B for a memory longer than a paragraph."""
    ratio = length / weights.PARAGRAPH_CHARS
    return ((1 - weights.FTS_B) + weights.FTS_B * ratio) / ((1 - weights.LENGTH_B) + weights.LENGTH_B * ratio) \
        if ratio > 1 else 1.0


# ------------------------------------------------------------------------------------- replaced values
def _stale_value(row, changes, stems=frozenset()):
    """(old, new, at, id of the memory that made the change) of a change made after this row that replaced a value
    the row states, or None: the newest one the prompt is about (a prompt word beside the old value), else the
    newest. A turn can state several values changed since; its mark names the one asked about."""
    first = None
    for old, new, at, changed_by in changes:
        if at > row["created"] and changed_by != row["id"] and holds_value(row["content"], old) \
                and not holds_value(row["content"], new):
            if not stems or _asked_about(row["content"], old, stems):
                return old, new, at, changed_by
            first = first or (old, new, at, changed_by)
    return first


def _asked_about(text: str, value: str, stems: set) -> bool:
    """Whether a prompt word (by its first STEM_CHARS letters) is the value itself or within NEAR_VALUE_WORDS
    words of the value's first mention in `text`, in the same clause."""
    span = value_span(text, value)  # "3 attempts" is also written "3 times"
    if span is None:
        return False
    lowered, (at, end) = text.lower(), span
    before, after = lowered[max(0, at - 200):at], lowered[end:end + 200]
    before = before[max(before.rfind(mark) for mark in _CLAUSE_ENDS) + 1:]
    after = after[:min((i for i in (after.find(mark) for mark in _CLAUSE_ENDS) if i >= 0), default=len(after))]
    near = word_runs(before)[-weights.NEAR_VALUE_WORDS:] + word_runs(value.lower()) \
        + word_runs(after)[:weights.NEAR_VALUE_WORDS]
    return any(word[:STEM_CHARS] in stems for word in near)


def _changes_behind(conn, ranked, scores, changes, prompt) -> dict:
    """rowid -> score of the memories that made the changes behind the replaced values in `ranked` that the
    prompt is about (a prompt word next to the old value: "port" in "listens on port 3000"), each scored as the
    best memory it made stale was (before its own weights), with the turn before each change (the request; for a
    "why" question the CHANGE_REASON_TURNS before it, where the reason was talked through): "why did we change
    the port?" is answered next to the change, and an old value shown brings the current one."""
    best_of, stems = {}, prompt.stems
    stale = sorted((r for r in ranked if r[1]["stale"]), key=lambda r: r[0], reverse=True)[:weights.CHANGE_ROWS]
    for _, row, _ in stale:  # the best few: the others will not be shown (and each costs a pass over `changes`)
        for old, new, at, changed_by in changes:
            if at > row["created"] and changed_by != row["id"] and _asked_about(row["content"], old, stems) \
                    and not holds_value(row["content"], new):
                best_of[changed_by] = max(best_of.get(changed_by, 0.0), scores[row["rowid"]])
    if not best_of:
        return {}
    marks = ",".join("?" * len(best_of))
    reasons = weights.CHANGE_REASON_TURNS
    turn_weights = reasons if "why" in prompt.lower_words else reasons[:1]
    out = {}
    for rowid, chunk_id, conv, created in conn.execute(
            f"SELECT rowid, id, conversation_id, created FROM chunks WHERE id IN ({marks})", list(best_of)):
        out[rowid] = max(out.get(rowid, 0.0), best_of[chunk_id])
        before = conn.execute("SELECT rowid FROM chunks WHERE conversation_id=? AND +kind='turn' AND "
                              "(created, rowid) < (?, ?) ORDER BY created DESC, rowid DESC LIMIT ?",
                              (conv, created, rowid, len(turn_weights))).fetchall() if conv else []
        for (turn,), weight in zip(before, turn_weights):
            out[turn] = max(out.get(turn, 0.0), weight * best_of[chunk_id])
    return out
