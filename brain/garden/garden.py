"""Gardening (seed 001): keep memory true and small. `make_plan` says what would change; `run(apply=True)` does it.

Actions, in this order:
1. resolve: two active memories linked by `contradicts` → trust the newer one; the older is superseded by it with
   the note "User changed mind YYYY-MM-DD" (lifecycle.resolve_contradiction). A pinned older memory is left for a
   person to settle (listed under "review").
2. consolidate: more than five memories on one topic (near-duplicates or the same subject, judged by word overlap
   within a project) become one master memory (kind "consolidated") holding every distinct sentence they held;
   the master links `derived_from` them, each original gets `consolidated_into` the master and goes to archive/.
3. archive: memories whose salience fell under ARCHIVE_BELOW and that nobody wrote, used or restored for
   MIN_IDLE_DAYS go to archive/.

Never touched: pinned memories, memories whose deletion policy (seed 004) is manual_only or never (only
auto_prune, the default, is gardening's to archive or fold into a master), and the record kinds (RECORD_KINDS:
verbatim turns and session records). Those are the record of what was said and done, not a summary of it, so they
are neither merged into masters nor archived when they decay. Keeping an old turn live costs index space only: its
low salience already keeps it out of the session start and the CORE digest, while recall, which ranks by relevance
to a question, is what needs it ("what did we decide about the cache in March?"); archiving it would cut that
answer off for a small saving.

Nothing is deleted. Every change is in the audit log (the store's own create/update/archive lines, and one "garden"
line per run holding what it did); `rlm-mem restore ID` brings one chunk back and `undo(store, run_id)` reverts a
whole run. A restore counts as a touch, so the next run does not archive the chunk again at once; an original
restored from a master keeps its consolidated_into link and is left out of new clusters.
"""
import json
import re
import secrets
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

from brain.garden.schedule import garden_due, read_state, state_path  # noqa: F401  (garden.garden_due: CLI, tests)
from brain.index import access, search_index
from brain.recall.core import CORE_NAME, build_core, read_core_settings, write_core
from brain.recall.depth import summary_line
from brain.store import lifecycle
from brain.store.audit import audit, read_audit
from brain.store.chunk_store import prunable
from brain.store.episodes import append_episode
from brain.store.layout import StoreLayout
from brain.store.salience import ARCHIVE_BELOW, idle_days, importance_of, salience, state_of
from brain.store.sensitivity import most_private
from brain.util.errors import ChunkNotFound, RlmMemError, StoreBusy
from brain.util.files import atomic_write_json, ensure_dir, owner_lock, try_acquire
from brain.util.text import STOPWORDS, sentences
from brain.util.tokens import estimate_tokens

RECORD_KINDS = ("turn", "session")
NEVER_ARCHIVED = ("correction",)  # a person's correction stays live however long it goes unused
RESTORE_LOOKBACK_DAYS = 62
CONSOLIDATE_MIN = 6  # seed 001: "if >5 files cover the same topic, combine them"
# Dice overlap of significant words and tags between a memory and its cluster's first one (0.55 ≈ Jaccard 0.38):
# loose enough that "X. It runs Postgres 15." and "X. Backups run nightly at 02:00 UTC." meet, with at least
# MIN_SHARED words in common so that two short memories do not meet on one word.
TOPIC_SIMILARITY = 0.55
MIN_SHARED = 3
# A master's words cover its whole topic, so a memory joins it when most of the memory's own words are in it.
ANCHOR_SIMILARITY = 0.7
MAX_POSTING = 200  # a word shared by more memories than this is too common to propose a cluster
MIN_IDLE_DAYS = 30
# Each archive is one locked store write; a run does at most this many (the rest waits for the next run), so a
# detached run on a large store ends in bounded time and never holds writers up for long.
MAX_ARCHIVE_PER_RUN = 500
MAX_CONSOLIDATE_PER_RUN = 50
ARCHIVE_BATCH = 100  # dormant memories archived per write session (the budget is checked between batches)
# What one run may spend applying its plan (a detached run at session start; bench/run.py measures it at 100k):
# it stops between two whole steps and the next run resumes.
RUN_BUDGET_SECONDS = 30.0
MASTER_MAX_TOKENS = 760  # a chunk holds at most 800
TITLE_MAX = 80  # characters of a master's title (its first line)

_TOKEN = re.compile(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]|[a-z0-9]")
_MASTER_HEAD = re.compile(r"^.*\(consolidated from \d+ memories[^)]*\):$")
_BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+")


# ---------------------------------------------------------------- reading
def _now(now):
    now = now or datetime.now(timezone.utc)
    return now if now.tzinfo else now.replace(tzinfo=timezone.utc)


def _iso(dt: datetime) -> str:
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _restores(root, now: datetime) -> dict:
    """chunk id -> time of its latest restore (from the audit log): a restore counts as a use. Only the audit
    months that can still matter are read (a restore older than RESTORE_LOOKBACK_DAYS has been idle long enough
    for its chunk to be judged on its own again): the cost follows the calendar, not the size of the log."""
    out = {}
    folder = Path(root) / "audit"
    first = _iso(now - timedelta(days=RESTORE_LOOKBACK_DAYS))[:7]
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else ():
        if path.stem < first:
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if '"restore"' not in line:
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and entry.get("action") == "restore" and isinstance(entry.get("chunk_id"), str):
                out[entry["chunk_id"]] = max(out.get(entry["chunk_id"], ""), str(entry.get("time") or ""))
    return out


_ROW_COLUMNS = ("rowid", "id", "created", "type", "kind", "project", "confidence", "importance", "pinned", "status",
                "sensitivity", "tokens", "access_count", "last_accessed", "updated", "arrived", "tags")


def load_rows(root, now: datetime | None = None) -> tuple:
    """(rows, links): live chunks other than the record kinds (columns, not content: see _contents), with pending
    and restore touches applied; links as {(src, dst)} sets by type for contradicts, consolidated_into and
    derived_from."""
    now = _now(now)
    conn = search_index.connect(Path(root), readonly=True)
    if conn is None:
        return [], {"contradicts": set(), "consolidated_into": set(), "derived_from": set()}
    try:
        rows = [dict(zip(_ROW_COLUMNS, r)) for r in conn.execute(
            "SELECT %s FROM chunks WHERE kind NOT IN (%s)" % (", ".join(_ROW_COLUMNS),
                                                             ",".join("?" * len(RECORD_KINDS))), RECORD_KINDS)]
        links = {"contradicts": set(), "consolidated_into": set(), "derived_from": set()}
        for src, kind, dst in conn.execute(
                "SELECT src, type, dst FROM links WHERE type IN ('contradicts', 'consolidated_into', 'derived_from')"):
            links[kind].add((src, dst))
    finally:
        conn.close()
    pending, restored = access.pending_access(root), _restores(root, now)
    for row in rows:
        count, last = pending.get(row["id"], (0, None))
        row["access_count"] = int(row["access_count"] or 0) + count
        touches = [t for t in (row["last_accessed"], last, restored.get(row["id"])) if t]
        row["last_accessed"] = max(touches) if touches else None
        row["tags"] = (row["tags"] or "").split()
    rows.sort(key=lambda r: (r["created"], r["id"]))
    return rows, links


def _contents(root, rows) -> None:
    """Each row's content, from the search index (only the rows a plan reads words of)."""
    conn = search_index.connect(Path(root), readonly=True)
    try:
        by_rowid = {r["rowid"]: r for r in rows}
        ids = list(by_rowid)
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            for rowid, content in conn.execute(
                    f"SELECT rowid, content FROM chunks WHERE rowid IN ({','.join('?' * len(part))})", part):
                by_rowid[rowid]["content"] = content
    finally:
        conn.close()


def _epoch(root):
    """Which search index this is (a rebuilt one starts its rowids anew)."""
    conn = search_index.connect(Path(root), readonly=True)
    if conn is None:
        return None
    try:
        return search_index.generation(conn)[0]
    finally:
        conn.close()


def _topics(root, candidates: list, links: dict, changed: set) -> list:
    """Topics worth a master, biggest first: clusters of more than five memories (a master counts for those it
    holds) with at least one memory in `changed`; each as member dicts (_member_of_row)."""
    _contents(root, candidates)
    derived = Counter(src for src, _ in links["derived_from"])
    weight = {r["id"]: max(1, derived[r["id"]]) if r["kind"] == "consolidated" else 1 for r in candidates}
    by_id = {r["id"]: r for r in candidates}
    by_project = {}
    for row in candidates:
        by_project.setdefault(row["project"], []).append(
            (row["id"], topic_words(row["content"], row["tags"]), row["kind"] == "consolidated"))
    topics = []
    for items in by_project.values():
        for ids in clusters(items):
            # a master stands for the memories it holds: "more than five on one topic" counts them
            if len(ids) >= 2 and sum(weight[i] for i in ids) >= CONSOLIDATE_MIN and changed.intersection(ids):
                topics.append([_member_of_row(by_id[i], weight[i]) for i in ids])
    topics.sort(key=lambda members: -sum(m["weight"] for m in members))
    return topics


def idle_here(row: dict, now: datetime) -> float:
    """Days since the memory was last written in this store (made, revised, or `arrived` by import or capture
    long after its own date) or used, whichever is latest: what dormancy is measured by."""
    return idle_days(dict(row, created=max(row["created"], row.get("updated") or "", row.get("arrived") or "")), now)


# ---------------------------------------------------------------- topics and masters
def _fold(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word


def _raw_words(text: str) -> list:
    return [w for w in _TOKEN.findall(text.lower()) if w not in STOPWORDS and (len(w) > 2 or w.isdigit())]


def topic_words(text: str, tags=()) -> frozenset:
    """Significant words of a memory (plural folded) plus its tags as '#tag': what topic similarity compares."""
    return frozenset({_fold(w) for w in _raw_words(text)} | {"#" + t for t in tags})


def similarity(a: frozenset, b: frozenset) -> float:
    """Dice overlap of two word sets; 0 when they share fewer than MIN_SHARED words."""
    shared = len(a & b)
    return 2 * shared / (len(a) + len(b)) if shared >= MIN_SHARED else 0.0


def clusters(items: list) -> list:
    """Group (id, words, is_master) items around leaders: each item joins the most similar earlier leader or leads a
    new cluster. Masters come first so that new memories on their topic join them (similarity to a master is the
    share of the memory's words it covers, ≥ ANCHOR_SIMILARITY; to another memory, `similarity` ≥
    TOPIC_SIMILARITY). Comparing with leaders only keeps chains of slightly related memories from merging into one
    blob. Returns lists of ids, largest first."""
    items = sorted(items, key=lambda item: not item[2])  # stable: masters first, otherwise oldest first
    leaders, members, postings = [], {}, {}
    for idx, (cid, words, _) in enumerate(items):
        shared = Counter()
        for w in words:
            posting = postings.get(w)
            if posting and len(posting) <= MAX_POSTING:
                shared.update(posting)
        best, best_sim = None, 0.0
        for leader, _ in shared.most_common(8):
            lwords, is_master = items[leader][1], items[leader][2]
            if is_master:
                common = len(words & lwords)
                sim = common / len(words) if common >= MIN_SHARED else 0.0
                sim = sim if sim >= ANCHOR_SIMILARITY else 0.0
            else:
                sim = similarity(words, lwords)
                sim = sim if sim >= TOPIC_SIMILARITY else 0.0
            if sim > best_sim:
                best, best_sim = leader, sim
        if best is not None:
            members[best].append(cid)
        else:
            leaders.append(idx)
            members[idx] = [cid]
            for w in words:
                postings.setdefault(w, []).append(idx)
    return sorted((members[i] for i in leaders), key=len, reverse=True)


def _facts(content: str) -> list:
    out = []
    for line in content.splitlines():
        line = line.strip()
        if not line or _MASTER_HEAD.match(line):
            continue
        line = _BULLET.sub("", line)
        out += sentences(line)
    return out


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def distinct_facts(contents) -> list:
    """Every distinct sentence, first wording kept, in order. Only repeats (case, spacing and punctuation aside)
    are dropped: a sentence inside a longer one is kept too, since "Deploy on Fridays" is not said by "Deploy on
    Fridays is forbidden"; nothing that differs in a word (a port, a version) is lost."""
    facts, seen = [], set()
    for content in contents:
        for fact in _facts(content):
            key = _norm(fact)
            if key and key not in seen:
                seen.add(key)
                facts.append(fact)
    return facts


def _topic_label(members: list) -> str:
    """The members' topic in their own words: the sentence that holds most of the words most members share (a
    newer one among equals: it is the current wording), cut at a word near TITLE_MAX characters. A list of the
    shared words ("Prefer orms hot paths code") reads as noise where a person sees it first, in the start brief."""
    sets = [topic_words(m["content"]) for m in members]
    common = {w for w in set().union(*sets) if sum(w in s for s in sets) * 2 >= len(sets)}
    best, best_score = "", 0
    for member in members:  # oldest first: a later sentence wins ties
        for fact in _facts(member["content"]):
            score = len(topic_words(fact) & common)
            if score and score >= best_score:
                best, best_score = fact, score
    if not best:
        tags = [t for t, _ in Counter(t for m in members for t in m["tags"]).most_common(3)] or ["memories"]
        best = " ".join(tags)
    best = best.rstrip(" .;:,!?")
    if len(best) > TITLE_MAX:
        best = best[:TITLE_MAX].rsplit(" ", 1)[0].rstrip(" .;:,") + " ..."
    return best[:1].upper() + best[1:]


def master_spec(members: list) -> dict | None:
    """The master memory for `members` (dicts: id, content, created, tags, type, confidence, importance, kind,
    sensitivity, project), as create_chunk keyword arguments; None if it would not fit one chunk."""

    members = sorted(members, key=lambda m: (m["kind"] != "consolidated", m["created"], m["id"]))
    topic = _topic_label(members)
    facts = distinct_facts(m["content"] for m in members)
    days = sorted(m["created"][:10] for m in members)
    head = f"{topic} (consolidated from {sum(m['weight'] for m in members)} memories, {days[0]} to {days[-1]}):"
    content = "\n".join([head] + [f"- {f}" for f in facts])
    if estimate_tokens(content) > MASTER_MAX_TOKENS:
        return None
    types = Counter(m["type"] for m in members)
    tags = [t for t, _ in Counter(t for m in members for t in m["tags"]).most_common(20)]
    sensitivity = most_private(m.get("sensitivity") for m in members)
    metadata = {"kind": "consolidated", "title": topic[:300], "project": members[0].get("project"),
                "importance": round(max(m["importance"] for m in members), 3)}
    if sensitivity != "low":
        metadata["sensitivity"] = sensitivity
    ids = [m["id"] for m in members]
    # dated by its newest member: what it says is as current as that, and a master made today from last year's
    # memories must not stand first among the start brief's latest decisions (it arrives today: stamp_arrival)
    return {"content": content, "chunk_type": max(types, key=lambda t: (types[t], t == "decision")),
            "created": max(m["created"] for m in members), "tags": tags,
            "confidence": max(m["confidence"] for m in members), "source": "derived",
            "links": {"derived_from": ids}, "metadata": metadata, "key": "consolidate:" + "|".join(sorted(ids))}


def _member_of_row(row: dict, weight: int = 1) -> dict:
    return {"id": row["id"], "content": row["content"], "created": row["created"], "tags": list(row["tags"]),
            "type": row["type"], "confidence": float(row["confidence"]), "importance": importance_of(row),
            "kind": row["kind"], "sensitivity": row["sensitivity"], "project": row["project"], "weight": weight}


def _member_of_chunk(chunk) -> dict:
    md = chunk.metadata
    row = {"importance": md.get("importance"), "kind": chunk.kind}
    return {"id": chunk.id, "content": chunk.content, "created": chunk.created, "tags": list(chunk.tags),
            "type": chunk.type, "confidence": float(md["confidence"]), "importance": importance_of(row),
            "kind": chunk.kind, "sensitivity": md.get("sensitivity", "low"), "project": md.get("project"),
            "weight": max(1, len(chunk.links.get("derived_from") or [])) if chunk.kind == "consolidated" else 1}


def _split_to_fit(members: list) -> list:
    """Oldest first, as many members per master as one chunk holds; a group of one is left alone."""
    groups, current = [], []
    for member in members:
        if current and master_spec(current + [member]) is None:
            groups.append(current)
            current = []
        current.append(member)
    groups.append(current)
    return [g for g in groups if len(g) >= 2 and master_spec(g) is not None]


# ---------------------------------------------------------------- the plan
def make_plan(root, *, now: datetime | None = None, since: dict | None = None) -> dict:
    """What a gardening run would do now (reads the search index only; changes nothing).

    `since` ({"epoch", "rowid"}, what the last complete run saw: state/garden.json): topics are clustered only
    when a memory came or changed after it (search-index rows are rewritten with a new rowid), and only topics
    holding such a memory are consolidated; every other topic was weighed by an earlier run. Dormancy is judged
    on every memory (salience moves with the clock), from columns only."""

    now = _now(now)
    rows, links = load_rows(root, now)
    by_id = {r["id"]: r for r in rows}
    for row in rows:
        row["score"] = salience(row, now)
    states = Counter(state_of(r["score"]) for r in rows if not r["pinned"])
    epoch = _epoch(root)
    plan = {"run": f"garden-{now.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(2)}", "generated": _iso(now),
            "root": str(root), "counts": {"memories": len(rows), "pinned": sum(1 for r in rows if r["pinned"]),
                                          **{s: states.get(s, 0) for s in ("active", "fading", "dormant")}},
            "seen": {"epoch": epoch, "rowid": max((r["rowid"] for r in rows), default=0)},
            "resolve": [], "review": [], "consolidate": [], "archive": []}
    seen = (since or {}).get("rowid") if (since or {}).get("epoch") == epoch else None
    changed = {r["id"] for r in rows if seen is None or r["rowid"] > seen}

    busy = set()  # ids an earlier action of this plan already changes
    for a, b in sorted({tuple(sorted(p)) for p in links["contradicts"]}):
        first, second = by_id.get(a), by_id.get(b)
        if not first or not second or first["status"] != "active" or second["status"] != "active":
            continue
        a_says, b_says = (a, b) in links["contradicts"], (b, a) in links["contradicts"]
        if first["created"] != second["created"]:
            old, new = (first, second) if first["created"] < second["created"] else (second, first)
        elif a_says != b_says:  # stored in the same second: the one that says "I contradict" came later
            old, new = (second, first) if a_says else (first, second)
        else:
            plan["review"].append({"old": a, "new": b, "why": "same time: supersede one by hand"})
            continue
        if old["pinned"]:
            plan["review"].append({"old": old["id"], "new": new["id"], "why": "the older one is pinned"})
            continue
        if old["id"] in busy:
            continue
        plan["resolve"].append({"old": old["id"], "new": new["id"], "note": f"User changed mind {new['created'][:10]}"})
        busy.add(old["id"])

    restored_members = {src for src, _ in links["consolidated_into"]}
    candidates = [r for r in rows if r["status"] == "active" and not r["pinned"] and r["id"] not in busy
                  and r["id"] not in restored_members and r["score"] >= ARCHIVE_BELOW]
    topics = _topics(root, candidates, links, changed) if changed & {r["id"] for r in candidates} else []
    groups, left = [], 0
    for members in topics:  # the biggest topics first, as many as a run makes (each split to fit one chunk)
        if len(groups) >= MAX_CONSOLIDATE_PER_RUN:
            left += 1
            continue
        groups += _split_to_fit(members)
    plan["counts"]["consolidate_deferred"] = max(0, len(groups) - MAX_CONSOLIDATE_PER_RUN) + left
    layout = StoreLayout(root)
    groups = [g for g in ([m for m in group if prunable(layout.read_chunk(m["id"]))]
                          for group in groups[:MAX_CONSOLIDATE_PER_RUN]) if len(g) >= 2]
    for group in groups:
        spec = master_spec(group)
        plan["consolidate"].append({"topic": spec["metadata"]["title"], "members": [m["id"] for m in group],
                                    "type": spec["chunk_type"], "project": spec["metadata"]["project"],
                                    "content": spec["content"]})
        busy.update(m["id"] for m in group)

    dormant = [r for r in rows if not r["pinned"] and r["kind"] not in NEVER_ARCHIVED and r["id"] not in busy
               and r["score"] < ARCHIVE_BELOW and idle_here(r, now) >= MIN_IDLE_DAYS]
    dormant.sort(key=lambda r: (r["score"], r["created"]))  # the faintest first
    # Only what may be pruned (seed 004's deletion policy, in the chunk file): read one by one, as far as a run goes.
    chosen, looked = [], 0
    for row in dormant:
        if len(chosen) >= MAX_ARCHIVE_PER_RUN:
            break
        looked += 1
        if prunable(layout.read_chunk(row["id"])):
            chosen.append(row)
    plan["counts"]["archive_deferred"] = len(dormant) - looked
    _contents(root, chosen)
    for row in chosen:
        idle = idle_here(row, now)
        plan["archive"].append({"id": row["id"], "score": round(row["score"], 4), "idle_days": int(idle),
                                "status": row["status"],
                                "summary": summary_line({"content": row["content"], "metadata": {}}, 70)})
    return plan


# ---------------------------------------------------------------- applying
def _write_state(root, **changes) -> None:
    atomic_write_json(state_path(root), {**read_state(root), **changes})


def _garden_lock(root):
    lock = owner_lock(ensure_dir(Path(root) / "state") / "garden.lock", 0)
    if not try_acquire(lock):
        raise StoreBusy("another gardening run is in progress; try again when it ends")
    return lock


def run(store, *, apply: bool = False, now: datetime | None = None, budget: float | None = None) -> dict:
    """Make the plan; with `apply`, carry it out (one run at a time). Returns the plan, plus `applied` (what was
    done, by action) when applied.

    `budget`: seconds the run may spend (default RUN_BUDGET_SECONDS). Each step (a contradiction resolved, a
    master made and its originals archived, a batch of dormant memories archived) is whole; when the budget is
    spent the run stops between two steps, says so (`applied["paused"]`), and the next run (due at once) makes a
    fresh plan from the store as this one left it."""
    started = time.monotonic()
    if not apply:
        try:
            store.sync_derived()
        except RlmMemError:
            pass  # a read-only or busy store still gets a plan, from the index as it is
        return make_plan(store.root, now=now, since=read_state(store.root).get("seen"))
    lock = _garden_lock(store.root)
    try:
        _write_state(store.root, last_attempt=_iso(_now(now)))
        store.fold_access()  # counts in the files and the index, so what is recent is seen as recent
        store.sync_derived()
        plan = make_plan(store.root, now=now, since=read_state(store.root).get("seen"))
        deadline = started + (RUN_BUDGET_SECONDS if budget is None else budget)
        plan["applied"] = _apply(store, plan, deadline)
        left = plan["applied"]["paused"] or plan["counts"]["archive_deferred"] or \
            plan["counts"]["consolidate_deferred"]
        # what this run saw is done with only when nothing was left for later: then the next run looks at
        # what changes after it; otherwise it looks at the same again (what was left included)
        _write_state(store.root, last_run=_iso(_now(now)), last_run_id=plan["run"], resume=bool(left),
                     **({} if left else {"seen": plan["seen"]}))
    finally:
        lock.release()
    return plan


def _apply(store, plan: dict, deadline: float) -> dict:
    run_id, root = plan["run"], store.root
    done = {"resolved": [], "consolidated": [], "archived": [], "skipped": [], "paused": False}

    def out_of_time() -> bool:
        done["paused"] = done["paused"] or time.monotonic() >= deadline
        return done["paused"]

    for item in plan["resolve"]:
        if out_of_time():
            break
        try:
            old, new = lifecycle.resolve_contradiction(store, item["old"], item["new"])
            done["resolved"].append({"old": old, "new": new, "note": item["note"]})
        except RlmMemError as exc:
            done["skipped"].append({"action": "resolve", "ids": [item["old"], item["new"]], "why": str(exc)})
    for item in plan["consolidate"]:
        if out_of_time():
            break
        _consolidate(store, item, run_id, done)
    for start in range(0, len(plan["archive"]), ARCHIVE_BATCH):
        if out_of_time():
            break
        batch = plan["archive"][start:start + ARCHIVE_BATCH]
        reasons = {item["id"]: f"garden {run_id}: dormant (salience {item['score']}, idle {item['idle_days']} days)"
                   for item in batch}
        archived = set(store.archive_many([item["id"] for item in batch], reason=reasons, prunable_only=True,
                                          dormant=True))
        for item in batch:
            if item["id"] in archived:
                done["archived"].append(item["id"])
            else:
                done["skipped"].append({"action": "archive", "ids": [item["id"]], "why": "no longer in the store"})
    if done["resolved"] or done["consolidated"] or done["archived"]:
        audit(root, "garden", None, actor=store.actor, reason=f"garden run {run_id}", details={"run": run_id, **done})
        _log_episode(root, plan["generated"], run_id, done)
        refresh_core(root)
    return done


def _consolidate(store, item: dict, run_id: str, done: dict) -> None:
    """One master made and its originals archived (linked consolidated_into it): two write sessions."""
    chunks = [store.get_chunk(i, track=False) for i in item["members"]]
    members = [_member_of_chunk(c) for c in chunks if c is not None and c.status == "active" and not c.pinned
               and prunable(c.to_dict())]
    spec = master_spec(members) if len(members) >= 2 else None
    if spec is None:
        done["skipped"].append({"action": "consolidate", "ids": item["members"], "why": "members changed"})
        return
    reason = f"garden {run_id}: consolidated into a master"
    master = store.create_chunk(**spec, auto_link=False, reason=reason)
    audit(store.root, "consolidate", master.id, actor=store.actor, reason=f"garden {run_id}",
          details={"run": run_id, "members": [m["id"] for m in members]})
    store.archive_many([m["id"] for m in members], reason=f"garden {run_id}: consolidated into {master.id}",
                       link=("consolidated_into", master.id))
    done["consolidated"].append({"master": master.id, "members": [m["id"] for m in members],
                                 "topic": spec["metadata"]["title"]})


def _log_episode(root, when: str, run_id: str, done: dict) -> None:
    parts = [f"{len(done['consolidated'])} consolidations", f"{len(done['archived'])} archived",
             f"{len(done['resolved'])} contradictions resolved"]
    masters = ", ".join(c["master"] for c in done["consolidated"][:5])
    append_episode(root, when, f"Gardening run {run_id}", None, "garden", [],
                   "; ".join(parts) + (f" (masters: {masters})" if masters else "") +
                   f". Undo: rlm-mem garden --undo {run_id}")


def refresh_core(root) -> None:
    """Rewrite CORE.md when someone asked for one (`rlm-mem core --write` records how)."""

    if (Path(root) / CORE_NAME).is_file():
        settings = read_core_settings(root)
        write_core(root, build_core(root, **settings)["text"], **settings)


# ---------------------------------------------------------------- undo
def find_run(root, run_id: str) -> dict | None:
    for entry in reversed(read_audit(root, action="garden")):
        details = entry.get("details") or {}
        if details.get("run") == run_id:
            return details
    return None


def undo(store, run_id: str) -> dict:
    """Revert a gardening run: archived chunks come back, masters go to the archive and their originals return,
    superseded memories are active again. Audited as a "garden" line with {"undo": run_id}. Undo the latest runs
    first: a master that a later run folded into a newer master stays there until that run is undone."""

    details = find_run(store.root, run_id)
    if details is None:
        raise ChunkNotFound(f"no gardening run {run_id} in the audit log (see `rlm-mem garden --json` output)")
    why = f"undo garden {run_id}"
    restored, archived = [], []

    def bring_back(cid):
        if store.layout.is_archived(cid) and not store.layout.chunk_path(cid).exists():
            store.restore_chunk(cid, reason=why)
            restored.append(cid)

    for cid in details.get("archived", []):
        bring_back(cid)
    for item in details.get("consolidated", []):
        for cid in item["members"]:
            bring_back(cid)
            chunk = store.get_chunk(cid, track=False)
            if chunk is not None and item["master"] in chunk.links.get("consolidated_into", []):
                links = dict(chunk.links)
                links["consolidated_into"] = [t for t in links["consolidated_into"] if t != item["master"]]
                store.revise_chunk(cid, links=links, reason=why)
        if store.delete_chunk(item["master"], reason=why):
            archived.append(item["master"])
    for item in details.get("resolved", []):
        old, new = store.get_chunk(item["old"], track=False), store.get_chunk(item["new"], track=False)
        if old is not None:
            links = dict(old.links)
            links["superseded_by"] = [t for t in links.get("superseded_by") or [] if t != item["new"]]
            extra = {k: v for k, v in (old.metadata.get("extra") or {}).items() if k != "change_note"}
            store.revise_chunk(old.id, status=None, superseded_at=None, links=links, extra=extra or None, reason=why)
        if new is not None:
            links = dict(new.links)
            links["supersedes"] = [t for t in links.get("supersedes") or [] if t != item["old"]]
            store.revise_chunk(new.id, links=links, reason=why)
    result = {"undo": run_id, "restored": restored, "archived_masters": archived,
              "reactivated": [i["old"] for i in details.get("resolved", [])]}
    audit(store.root, "garden", None, actor=store.actor, reason=why, details=result)
    return result
