"""What holds now, for the session-start brief: the latest value changes of a project, each in its memory's words.

Capture records a change when a later memory replaces a value an earlier one stated (search.db `changes`: old,
new, when, the memory that made it). A session starts better knowing the latest of those ("maxReplicas: 8", "the
CronJob runs at 04:30") than finding them among older statements of the old values. Each change is quoted as the
sentence of its memory that states the new value (the memory's words, not a claim of ours), with the old value
and the day. A change a tool call made has a memory of its own, "KEY = NEW (was OLD) in PATH", derived from the
turn (capture/tools): that memory is quoted, and named, instead of the turn, so that the brief, recall's marks
and the supersede links all point at the same memory. A change a later one replaced again (the same setting, or a
later change from the value it set) is left out: the later one is shown. Stdlib only: it runs when SessionStart
computes a brief.
"""
from brain.util.text import SWITCHES, clip, holds_value, sentences, words

CURRENT_MAX = 16  # changes shown, newest first
CHANGES_READ = 200  # newest changes looked at
LINE_CHARS = 160  # a change's sentence is clipped to this


def _setting(value: str):
    """The setting a value names ("maxReplicas" of "maxReplicas = 8"), or None for a bare value."""
    name, equals, _ = value.partition(" = ")
    return name.lower() if equals else None


def _same_kind(old: str, new: str) -> bool:
    """Whether two values are of one kind as far as digits go: "timeouts" into "212 ms" is no change of a value."""
    return any(ch.isdigit() for ch in old) == any(ch.isdigit() for ch in new)


def _stating(content: str, values) -> str:
    """The sentences of `content` that state one of `values`, in order: those naming a setting with its value
    ("maxReplicas: 8", often only in the edit its tool summary names) if any, else any of them, else a setting's
    value alone ("the topic is billing.invoices.v2"). When none does ("Set." over an edit), the first sentence
    and the first later one holding a number of the new values (the edit's "RETENTION_DAYS = 14" for 14 days)."""
    parts = sentences(content)
    named = [value for value in values if " = " in value]
    bare = [value.partition(" = ")[2] for value in named]
    plain = SWITCHES  # "true" alone is found in any sentence
    for group in (named, values, [value for value in bare if len(value) >= 4 and value.lower() not in plain]):
        chosen = [part for part in parts if any(holds_value(part, value) for value in group)]
        if chosen:
            return " ".join(chosen)
    numbers = [word for value in values for word in words(value) if word.isdigit() and len(word) >= 2]  # not "2"
    beside = next((part for part in parts[1:] if any(holds_value(part, number) for number in numbers)), None)
    return " ".join(parts[:1] + ([beside] if beside else []))


def current_values(conn, project, allowed, skip_ids=()) -> list:
    """[{"id", "at", "text", "was", "now"}] of the project's latest value changes (`now`: the new values when the
    text does not state them) (see the module doc), newest first:
    one per memory that made changes, active and within the `allowed` sensitivities, not in `skip_ids`."""
    if not project:
        return []
    marks = ",".join("?" * len(allowed))
    rows = conn.execute(
        "SELECT c.old, c.new, c.at, c.id, k.content FROM changes c JOIN chunks k ON k.id = c.id "
        f"WHERE c.project IS ? AND c.old IS NOT NULL AND k.status = 'active' AND k.sensitivity IN ({marks}) "
        "ORDER BY c.at DESC, c.rowid DESC LIMIT ?", (project, *allowed, CHANGES_READ)).fetchall()
    later_olds, settings = [], set()  # what the newer changes replaced, and the settings they set
    by_memory, order = {}, []
    for old, new, at, chunk_id, content in rows:
        setting = _setting(new)
        replaced_since = (setting in settings) if setting else any(holds_value(o, new) for o in later_olds)
        later_olds.append(old)
        if setting:
            settings.add(setting)
        if replaced_since or (not setting and not _same_kind(old, new)) or chunk_id in skip_ids:
            continue
        if chunk_id not in by_memory:
            by_memory[chunk_id] = {"id": chunk_id, "at": at, "content": content, "new": [], "was": []}
            order.append(chunk_id)
        entry = by_memory[chunk_id]
        entry["new"].append(new)
        if old not in entry["was"]:
            entry["was"].append(old)
    out = []
    recorded = _change_memories(conn, order[:CURRENT_MAX], allowed)
    for chunk_id in order[:CURRENT_MAX]:
        entry = by_memory[chunk_id]
        stating = [(mid, content) for mid, content in recorded.get(chunk_id, ())
                   if any(holds_value(content, value) for value in entry["new"])]
        if stating:  # the change's own memory says it all: the key, the value, the one it replaced
            out.append({"id": stating[0][0], "at": entry["at"], "text": clip("; ".join(c for _, c in stating),
                                                                             LINE_CHARS), "was": [], "now": []})
            continue
        text = clip(_stating(entry["content"], entry["new"]), LINE_CHARS)
        # "Done." over an edit: the quote does not say the value, so the line gives it
        now = [] if any(holds_value(text, value) for value in entry["new"]) else entry["new"]
        out.append({"id": chunk_id, "at": entry["at"], "text": text, "was": entry["was"], "now": now})
    return out


def _change_memories(conn, turn_ids, allowed) -> dict:
    """turn id -> [(id, content)] of the active change memories derived from it (capture/tools/records)."""
    if not turn_ids:
        return {}
    marks, kinds = ",".join("?" * len(turn_ids)), ",".join("?" * len(allowed))
    out = {}
    for turn_id, chunk_id, content in conn.execute(
            f"SELECT l.dst, k.id, k.content FROM links l JOIN chunks k ON k.id = l.src WHERE l.type = 'derived_from' "
            f"AND l.dst IN ({marks}) AND k.kind = 'change' AND k.status = 'active' AND k.sensitivity IN ({kinds}) "
            "ORDER BY k.rowid", (*turn_ids, *allowed)):
        out.setdefault(turn_id, []).append((chunk_id, content))
    return out
