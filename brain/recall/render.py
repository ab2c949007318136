"""Filling the token budget with the ranked memories and rendering them: best first, each at most once (text
contained in a chosen item is not repeated), shown with its id (which starts with its date), a kind mark and,
after the text, what its relative dates mean. A memory too long for its place is shown as the sentences around
the prompt's words; a turn's tool calls are shown whole for the best memory only, after it only those naming a
prompt word."""
from brain.recall import weights
from brain.recall.prompt import STEM_CHARS
from brain.util.text import TOOLS_LINE, sentences, tool_calls, without_label
from brain.util.text import words as word_runs
from brain.util.tokens import estimate_tokens

CHARS_PER_TOKEN = 4  # brain/util/tokens.py's estimate, used here to tell whether a memory fits before rendering it
ITEM_LINE_TOKENS = 8  # an item line's id, marks and spacing
EXCERPT_MARGIN_TOKENS = 20  # what an excerpt's gap marks and its line may add


class RecallItem:
    """One recalled memory: what ranking saw and the text shown."""

    __slots__ = ("id", "created", "type", "kind", "score", "text", "conversation_id", "project", "status", "tags",
                 "why", "_row")

    def __init__(self, row: dict, score: float, text: str, why: list):
        self.id, self.created, self.type, self.kind = row["id"], row["created"], row["type"], row["kind"]
        self.conversation_id, self.project, self.status = row["conversation_id"], row["project"], row["status"]
        self.tags = row["tags"].split() if row["tags"] else []
        self.score, self.text, self.why, self._row = score, text, why, row

    def line(self, compact: bool = True) -> str:
        """One line. Compact: the id's hex tail only; the day (the rest of the id) heads the group it is in."""
        marks = [] if self.kind == "turn" else [self.kind if self.kind != "memory" else self.type]
        stale = self._row.get("stale")
        if stale:  # a value this turn states was changed later: say which, since when, and what holds now
            marks.append(f"{stale[0]} replaced {stale[2][:10]} by {stale[1]}")
        if self.status == "superseded":  # history, not what holds now: say since when and what holds instead
            when = (self._row.get("replaced_at") or "")[:10]
            by = self._row.get("replaced_by")
            marks.append("replaced" + (f" {when}" if when else "") + (f" by {by[-8:]}" if by else ""))
        elif self.status != "active":
            marks.append(self.status)
        ref = self.id[-8:] if compact else self.id
        return f"- [{ref}{' ' + ', '.join(marks) if marks else ''}] {self.text}"

    @property
    def day(self) -> str:
        return self.id[6:16]  # the id's date: chunk-YYYY-MM-DD-hex

    def to_dict(self) -> dict:
        return {"id": self.id, "created": self.created, "type": self.type, "kind": self.kind,
                "score": round(self.score, 4), "text": self.text, "conversation_id": self.conversation_id,
                "project": self.project, "status": self.status, "tags": self.tags, "why": self.why}


class RecallResult:
    # The compact form needs a legend; it is given once per session (the session-start brief, SKILL.md) rather
    # than in every prompt's injection, where it cost ~20 tokens each time.
    LEGEND = "Recalled items stand under the day they were made: [hex] = chunk-DAY-hex (`rlm-mem get hex`)."

    def __init__(self, query: str, items: list, budget_tokens: int, depth: str, candidates: int = 0):
        self.query, self.items, self.budget_tokens, self.depth = query, items, budget_tokens, depth
        self.candidates = candidates

    def render(self) -> str:
        """The plain text block to inject ("" when nothing was recalled)."""
        return self.render_lines(compact=True)

    def render_lines(self, compact: bool = True) -> str:
        """Compact (for injected context): each item's id shortened to its hex tail under a line giving its day,
        about 20 characters less per item, which the budget spends on more memory. Full ids otherwise."""
        if not self.items:
            return ""
        if not compact:
            return "\n".join(["Best first:"] + [i.line(False) for i in _reading_order(self.items)])
        lines, day = [], None
        for item in _reading_order(self.items):
            if item.day != day:
                day = item.day
                lines.append(day)
            lines.append(item.line())
        return "\n".join(lines)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.render())

    def to_dict(self) -> dict:
        return {"query": self.query, "depth": self.depth, "budget_tokens": self.budget_tokens,
                "tokens": self.tokens, "candidates": self.candidates, "items": [i.to_dict() for i in self.items]}


def fill(ranked, budget, limit, depth, conn, words, cut=None) -> list:
    """Best first into the token budget, down to `cut` (a share of the best score; RELATIVE_CUT by default); text
    already shown (or contained in something shown) is skipped."""
    used = 0
    items, shown = [], []
    floor = (weights.RELATIVE_CUT if cut is None else cut) * ranked[0][0] if ranked else 0.0
    repeat = weights.REPEAT_MIN_CHARS
    for score, row, why in ranked[:weights.FILL_SCAN]:
        if len(items) >= limit or budget - used < weights.ROOM_MIN_TOKENS or score < floor:
            break
        max_chars = weights.MAX_ITEM_CHARS
        length = len(row["content"]) if depth == "complete" else min(len(row["content"]), max_chars)
        room, fit = budget - used, max_chars
        if depth != "summary" and length // CHARS_PER_TOKEN + ITEM_LINE_TOKENS > room:
            if items or depth != "full" or room < weights.EXCERPT_MIN_TOKENS:
                continue  # cannot fit: skip before rendering it
            fit = (room - EXCERPT_MARGIN_TOKENS) * CHARS_PER_TOKEN  # the best memory's sentences, rather than none
        key = _plain(row["content"] if row["kind"] == "turn" else without_label(row["content"]))
        if not key or any(key == other or (len(key) >= repeat and key in other) for other in shown):
            continue
        if row["status"] == "superseded" and "replaced_by" not in row:
            by = conn.execute("SELECT dst FROM links WHERE src=? AND type='superseded_by' ORDER BY dst DESC LIMIT 1",
                              (row["id"],)).fetchone()
            row["replaced_by"] = by[0] if by else None
        item = RecallItem(row, score, _shown_text(row, depth, conn, words, fit, best=not items), why)
        day_line = 0 if any(i.day == item.day for i in items) else weights.DAY_LINE_TOKENS
        cost = estimate_tokens(item.line()) + day_line
        replaced = [i for i, other in enumerate(shown) if len(other) >= repeat and other in key]  # says it and more
        refund = sum(estimate_tokens(items[i].line()) for i in replaced)
        if used - refund + cost > budget:
            continue
        for i in reversed(replaced):
            del items[i], shown[i]
        items.append(item)
        shown.append(key)
        used += cost - refund
    return items


def _plain(text: str) -> str:
    return " ".join(word_runs(text.lower()))


def _shown_text(row, depth, conn, words=(), limit: int | None = None, best: bool = True) -> str:
    chunk = {"id": row["id"], "content": row["content"], "type": row["type"],
             "metadata": {k: row[k] for k in ("created", "kind", "project", "conversation_id", "confidence",
                                              "status", "sensitivity") if row.get(k) is not None},
             "tags": row["tags"].split() if row["tags"] else []}
    if depth == "summary":
        from brain.recall.depth import summary_line  # summary and outcome only: the prompt hook shows "full"

        text = summary_line(chunk)
    elif depth == "outcome":
        from brain.recall.depth import outcome_text  # summary and outcome only: the prompt hook shows "full"

        text = outcome_text(chunk)
    else:
        text = " ".join(row["content"].split())
        limit = weights.MAX_ITEM_CHARS if limit is None else limit
        if depth == "full":
            text = _full_text(text, words, limit, best)
    if depth != "summary":
        text += row["when_note"]  # " (yesterday = 2023-05-07 (Sun))", resolved when the memory was indexed
    if depth == "complete":
        links = conn.execute("SELECT type, dst FROM links WHERE src=? ORDER BY type, dst", (row["id"],)).fetchall()
        fields = [f"created {row['created']}", f"type {row['type']}", f"kind {row['kind']}",
                  f"confidence {row['confidence']}"]
        fields += [f"{k} {row[k]}" for k in ("role", "project", "conversation_id", "sensitivity") if row.get(k)]
        if row["tags"]:
            fields.append("tags " + ", ".join(row["tags"].split()))
        if row["files"]:
            fields.append("files " + ", ".join(row["files"].split("\n")))
        fields += [f"{t} {d}" for t, d in links]
        text += " {" + "; ".join(fields) + "}"
    return text


def _full_text(text: str, words, limit: int, best: bool) -> str:
    """A memory as the full depth shows it: what it says (the sentences around the prompt's words when longer than
    `limit`), then its tool calls: all of them for the best memory, else only those naming a prompt word. The calls
    were a quarter of what a coding prompt was given, and the answer is rarely in a call no prompt word names."""
    said, calls = tool_calls(text)
    if len(said) > limit:
        said = _excerpt(said, words, limit)
    if calls and not best:
        # a word's first letters, a plural's without its "s": "tests" names "make test"
        stems = [(w[:-1] if w.endswith("s") and len(w) > 3 else w)[:STEM_CHARS] for w in words]
        calls = [call for call in calls if any(stem in call.lower() for stem in stems)]
    return f"{said} {TOOLS_LINE}{'; '.join(calls)}".lstrip() if calls else said


def _excerpt(text: str, words, limit: int) -> str:
    """The sentences of a long memory that hold the prompt's words, with the sentence either side of each (in
    their order, gaps marked …), within `limit` characters; `rlm-mem get ID` shows the rest."""
    parts = sentences(text)
    stems = [w[:STEM_CHARS] for w in words]  # "deploying" meets "deploy", without a stemmer
    hits = [sum(stem in p.lower() for stem in stems) for p in parts]
    wanted = sorted((i for i in range(len(parts)) if hits[i]), key=lambda i: (-hits[i], i))
    wanted += [j for i in list(wanted) for j in (i - 1, i + 1) if 0 <= j < len(parts)]
    chosen, size = set(), 0
    for i in wanted:
        if i not in chosen and size + len(parts[i]) + 2 <= limit:
            chosen.add(i)
            size += len(parts[i]) + 2
    if not chosen:
        return text[: limit // 2].rsplit(" ", 1)[0] + " …"
    out, previous = [], -1
    for i in sorted(chosen):
        if i != previous + 1:
            out.append("…")
        out.append(parts[i])
        previous = i
    if previous != len(parts) - 1:
        out.append("…")
    return " ".join(out)


def _reading_order(items) -> list:
    """Best first, but turns of one conversation that were chosen together read in their own order."""
    groups, where = [], {}
    for item in items:
        key = item.conversation_id if item.kind == "turn" and item.conversation_id else id(item)
        if key in where:
            groups[where[key]].append(item)
        else:
            where[key] = len(groups)
            groups.append([item])
    return [item for group in groups for item in sorted(group, key=lambda i: i.created)]
