"""Seed 002's chapters: consecutive sessions of a project on one topic, each a narrative unit with a title, an
extractive summary, the learnings made in it (error -> fix) and its time range. No model: a session joins the
chapter before it when they share files, branch or topic words and are not too far apart in time.

Derived and incremental. index/narrative.json keeps each project's chapters (and its wisdom, wisdom.py) with the
search index's epoch, the highest rowid it has read and how many session records and learnings there were: a
pass reads only those indexed since. A new session record later than the project's last chapter joins it or
starts the next one; one that arrived out of order (a backfill) makes that project's chapters again. A record or
learning changed, retracted or gone (a rewrite gives it a new rowid: the counts no longer add up), a new epoch (a
`reindex`), or a missing or damaged file makes them all again; a permanent delete removes the file (it quotes
what it read). Run by the capture worker after capture and by the
commands and pages that show them, never by a hook.
"""
import hashlib
import os
from collections import Counter

from brain.index.search_index import connect, generation
from brain.narrative import wisdom as wisdom_of
from brain.narrative.sessions import TRUNKS, file_name, first_words, last_words, session_views, top_words
from brain.store.chunk_store import NARRATIVE
from brain.util.files import atomic_write_json, read_json
from brain.cpython.fast import sqlite3
from brain.util.text import clip
from brain.util.timestamps import epoch_seconds

CACHE_NAME = NARRATIVE  # in index/ (a permanent delete removes it: it quotes session records)
FORMAT = 2  # 2: a chapter's session learnings keep their session
JOIN_SCORE = 0.5  # what a session must share with a chapter to join it (see _affinity)
FILE_WEIGHT = 1.5  # a file worked on in both says more than a shared word
GAP_DAYS = 7  # sessions further apart than this need more in common to be one chapter
GAP_PENALTY = 0.4
CHAPTER_WORDS = 30  # topic words a chapter keeps to compare the next session with
CHAPTER_FILES = 100
SUMMARY_CHARS = 700
MAX_LEARNINGS = 10


def cache_path(root) -> str:
    return os.path.join(os.fspath(root), "index", CACHE_NAME)


# ---------------------------------------------------------------- grouping
def _affinity(chapter: dict, view) -> float:
    """How much a session has in common with a chapter: the share of its files the chapter worked on (by name),
    the overlap of topic words (Dice), the branch (the same feature branch joins; two different ones are two
    lines of work, whatever else they share), less a penalty for a long gap."""
    ours, its = chapter.get("branch"), view.branch
    if ours and its and ours != its and ours.lower() not in TRUNKS and its.lower() not in TRUNKS:
        return float("-inf")
    theirs = {file_name(f) for f in chapter["files"]}
    mine = {file_name(f) for f in view.files}
    score = FILE_WEIGHT * (len(theirs & mine) / len(mine) if mine else 0.0)
    a, b = set(chapter["topics"]), set(top_words(view.words))
    score += 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0
    if ours and its and ours.lower() not in TRUNKS and ours == its:
        score += 1.0
    gap = (epoch_seconds(view.started) or 0) - (epoch_seconds(chapter["end"]) or 0)
    if gap > GAP_DAYS * 86400:
        score -= GAP_PENALTY
    return score


def _new_chapter(view) -> dict:
    digest = hashlib.sha1(view.id.encode("utf-8")).hexdigest()[:8]
    return {"id": f"chapter-{view.started[:10]}-{digest}", "project": view.project, "origin": "auto",
            "start": view.started, "end": view.ended, "sessions": [], "conversations": [], "files": [],
            "branch": view.branch, "topics": [], "word_counts": {}, "goals": [], "outcomes": [],
            "session_learnings": [], "learnings": []}


def _add(chapter: dict, view) -> None:
    chapter["sessions"].append(view.id)
    if view.conversation and view.conversation not in chapter["conversations"]:
        chapter["conversations"].append(view.conversation)
    chapter["end"] = max(chapter["end"], view.ended)
    chapter["files"] = list(dict.fromkeys(chapter["files"] + list(view.files)))[:CHAPTER_FILES]
    if view.branch and (not chapter["branch"] or chapter["branch"].lower() in TRUNKS):
        chapter["branch"] = view.branch
    counts = Counter(chapter["word_counts"]) + view.words
    chapter["word_counts"] = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:CHAPTER_WORDS * 2])
    chapter["topics"] = top_words(counts, CHAPTER_WORDS)
    chapter["goals"].append(first_words(view.goal, 200) if view.goal else "")
    chapter["outcomes"].append(last_words(view.outcome, 200) if view.outcome else "")
    chapter["session_learnings"] += [[view.conversation, view.started, text] for text in view.learnings]


def group(views, chapters=None) -> list:
    """Sessions (oldest first) into chapters: each joins the last chapter when its affinity reaches JOIN_SCORE,
    else starts a new one. `chapters`: earlier chapters to continue (changed in place)."""
    chapters = [] if chapters is None else chapters
    for view in views:
        if not chapters or _affinity(chapters[-1], view) < JOIN_SCORE:
            chapters.append(_new_chapter(view))
        _add(chapters[-1], view)
    return chapters


# ---------------------------------------------------------------- what a chapter says
def _summary(chapter: dict) -> str:
    """Extractive: what the first session set out to do, what each later one asked, how the last one ended,
    within SUMMARY_CHARS (the middle gives way first)."""
    goals, outcomes = chapter["goals"], chapter["outcomes"]
    first = goals[0] if goals else ""
    last = outcomes[-1] if outcomes else ""
    middle = [g for g in goals[1:] if g and g != first]
    parts = [first] + middle + ([f"Ended: {last}"] if last else [])
    text = " ".join(p.rstrip(".") + "." for p in parts if p)
    while len(text) > SUMMARY_CHARS and middle:
        middle.pop()
        text = " ".join(p.rstrip(".") + "." for p in [first] + middle + ([f"Ended: {last}"] if last else []) if p)
    return clip(text, SUMMARY_CHARS)


def _learnings(conn, chapter: dict) -> list:
    """The chapter's learnings (error -> fix), one per error of each session, oldest first."""
    rows = sorted(wisdom_of.learning_rows(conn, chapter), key=lambda r: r[3] or "")
    return list(dict.fromkeys(clip(text, 300) for _, _, text, _ in rows))[:MAX_LEARNINGS]


def _finish(conn, chapter: dict) -> dict:
    chapter["title"] = clip(chapter["goals"][0], 80) if chapter["goals"] and chapter["goals"][0] else \
        ", ".join(chapter["topics"][:4]) or "Untitled chapter"
    chapter["summary"] = _summary(chapter)
    chapter["learnings"] = _learnings(conn, chapter)
    return chapter


def public(chapter: dict) -> dict:
    """A chapter as shown (`rlm-mem chapters --json`, the page, a tool): without what is kept only to join the
    next session."""
    return {k: v for k, v in chapter.items() if k not in ("word_counts", "goals", "outcomes", "session_learnings")}


# ---------------------------------------------------------------- the derived file
def _empty(epoch) -> dict:
    return {"format": FORMAT, "epoch": epoch, "rowid": 0, "projects": {}}


def _key(project) -> str:
    return project if project is not None else ""


def _load(root, epoch) -> dict:
    try:
        cache = read_json(cache_path(root))
    except (OSError, ValueError):
        return _empty(epoch)
    if not isinstance(cache, dict) or cache.get("format") != FORMAT or cache.get("epoch") != epoch \
            or not isinstance(cache.get("projects"), dict) or not isinstance(cache.get("rowid"), int):
        return _empty(epoch)
    return cache


def refresh(root, *, rebuild: bool = False) -> dict:
    """Bring index/narrative.json up to date with the store (incrementally unless `rebuild`) and return it:
    {"projects": {project or "": {"chapters": [...], "wisdom": {...}}}, ...}. Reads search.db and the new
    session records' files; writes only when something changed. Nothing to read: an empty result."""
    conn = connect(root, readonly=True)
    if conn is None:
        return _empty(None)
    try:
        conn.execute("BEGIN")  # one snapshot for everything read below
        epoch, _ = generation(conn)
        cache = _empty(epoch) if rebuild else _load(root, epoch)
        top = conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0] or 0
        counts = _counts(conn, 0)
        if [top, counts] == [cache["rowid"], cache.get("counts")] and os.path.exists(cache_path(root)):
            return cache
        if counts != [n + m for n, m in zip(cache.get("counts") or [-1, -1], _counts(conn, cache["rowid"]))]:
            cache = _empty(epoch)  # a record or learning left (archived, deleted) or changed: all made again
        changed = _take_new(root, conn, cache)
        for key in changed:
            entry = cache["projects"][key]
            entry["wisdom"] = wisdom_of.project_wisdom(conn, None if key == "" else key, entry["chapters"])
        cache["rowid"], cache["counts"] = top, counts
    except sqlite3.DatabaseError:
        return _empty(None)  # a damaged or half-built index: the next pass, after the worker's rebuild
    finally:
        conn.close()
    try:
        atomic_write_json(cache_path(root), cache, indent=None, fsync=False)
    except OSError:
        pass  # derived: a read-only store still shows chapters, computed each time
    return cache


def _counts(conn, after_rowid: int) -> list:
    """[session records, learnings] indexed after `after_rowid`."""
    return [conn.execute("SELECT count(*) FROM chunks WHERE kind=? AND rowid > ?", (kind, after_rowid)).fetchone()[0]
            for kind in ("session", "learning")]


def _take_new(root, conn, cache: dict) -> set:
    """Add what was indexed after cache["rowid"]; returns the project keys whose chapters changed."""
    changed = set()
    by_project = {}
    for _, view in session_views(root, conn, None, after_rowid=cache["rowid"]):
        by_project.setdefault(_key(view.project), []).append(view)
    for key, views in by_project.items():
        entry = cache["projects"].setdefault(key, {"chapters": [], "wisdom": {}})
        chapters = entry["chapters"]
        last_start = chapters[-1]["start"] if chapters else ""
        if any(v.started < last_start for v in views):  # arrived out of order (a backfill): the project again
            views = [v for _, v in session_views(root, conn, None if key == "" else key)]
            chapters = []
        arrived = {v.id for v in views}
        entry["chapters"] = [_finish(conn, c) if c["sessions"][-1] in arrived else c for c in group(views, chapters)]
        changed.add(key)
    # learnings stored after their session's record (a capture that ended before the record): refresh their chapter
    rows = conn.execute("SELECT DISTINCT conversation_id, project FROM chunks WHERE kind='learning' AND rowid > ?",
                        (cache["rowid"],)).fetchall()
    for conversation, project in rows:
        entry = cache["projects"].get(_key(project))
        for chapter in entry["chapters"] if entry else ():
            if conversation in chapter["conversations"]:
                _finish(conn, chapter)
                changed.add(_key(project))
    # wisdom weighs decisions and conventions too: any new one of a project changes it
    for (project,) in conn.execute("SELECT DISTINCT project FROM chunks WHERE rowid > ? AND kind IN "
                                   "('decision', 'preference', 'correction')", (cache["rowid"],)).fetchall():
        if _key(project) in cache["projects"]:
            changed.add(_key(project))
    return changed


def chapters(root, project=None) -> list:
    """The chapters of `project` (its id; None: every project's), oldest first, brought up to date first."""
    projects = refresh(root)["projects"]
    keys = list(projects) if project is None else [_key(project)]
    found = [public(c) for key in keys for c in (projects.get(key) or {}).get("chapters", [])]
    return sorted(found, key=lambda c: (c["start"], c["id"]))


def wisdom(root, project=None) -> dict:
    """The wisdom of `project` (its id; None: memories without a project), brought up to date first."""
    entry = refresh(root)["projects"].get(_key(project)) or {}
    return entry.get("wisdom") or wisdom_of.empty(project)
