"""A session's commits given the values they changed, and completed todos that only repeat other memories.

The judge of typed memories found two kinds failing most (bench/README.md, "Typed memories"): a commit whose
subject names a change without its value ("lower concurrency", "bump aws provider"), and a completed todo
restating what a commit or a change of the same session already says. Both are read from what the tools did, not
from the words used:
- A commit whose subject states none of the new values that the session's tool calls set since its previous
  commit is given them: "Committed: lower concurrency [worker.concurrency = 4 (was 8)]". The subject says why, the
  change what; read alone later, the memory says both.
- A completed todo is no memory of its own when one commit or change of the session holds its values (numbers,
  versions, names with a dot or a dash) and half its words: the session record keeps the list of what was done.
"""
from dataclasses import replace

from brain.capture.novelty import content_words, values
from brain.capture.rules.tool_events import commit_message
from brain.util.text import clip, holds_value

COMMIT_VALUES = 3  # changes named in one commit's memory at most: a rewrite of a whole file changes dozens
KEY_CHARS = 40  # a longer key path is named by its last part (`concurrency` of `worker.deploy.env.concurrency`)
MAX_CONTENT = 500


def _is(candidate, tag: str) -> bool:
    return candidate.kind == "milestone" and tag in candidate.tags


def _key(key: str) -> str:
    return key if len(key) <= KEY_CHARS else key.replace("[", ".").replace("]", "").rsplit(".", 1)[-1]


def commits_with_values(candidates, changes, turns) -> list:
    """`candidates` with each commit that states none of its changes' new values given them (module doc). Every
    `git commit` the session ran bounds what the next one holds, also one whose command line failed after it (a
    commit then a push that failed) or that made no memory."""
    order = {turn.uuid: at for at, turn in enumerate(turns) if turn.uuid}
    at_of = [((order[change.turn.uuid], change.call or 0) if change.turn.uuid in order else None, change)
             for change in changes]
    commits = [(at, call) for at, turn in enumerate(turns) for call, use in enumerate(turn.tool_uses)
               if use.command and commit_message(use.command)]  # (turn, tool call): a turn may hold two commits
    out = []
    for candidate in candidates:
        if not _is(candidate, "git") or candidate.source_uuid not in order:
            out.append(candidate)
            continue
        at = (order[candidate.source_uuid], candidate.call or 0)
        previous = max((c for c in commits if c < at), default=(-1, 0))
        subject = candidate.content
        since = _net([change for where, change in at_of if where is not None and previous < where <= at])
        if not since or any(holds_value(subject, change.new) for change in since):
            out.append(candidate)
            continue
        said = "; ".join(f"{_key(c.key)} = {c.new} (was {c.old})" for c in since[:COMMIT_VALUES])
        more = f"; {len(since) - COMMIT_VALUES} more" if len(since) > COMMIT_VALUES else ""
        out.append(replace(candidate, content=clip(f"{subject} [{said}{more}]", MAX_CONTENT)))
    return out


def _net(changes) -> list:
    """Each key's change over the commit, in order: its first old value and its last new one (0.1 then corrected
    to 0.2 before the commit shipped 0.2); a key set back to where it was is none."""
    first, last = {}, {}
    for change in changes:
        where = (change.path, change.key)
        first.setdefault(where, change)
        last[where] = change
    return [last[w]._replace(old=first[w].old) for w in first if first[w].old != last[w].new]


def without_echoes(candidates, change_texts=()) -> list:
    """`candidates` without the completed todos that only repeat the session's commits and changes (module doc)."""
    others = [c.content for c in candidates if _is(c, "git")] + list(change_texts)
    if not others:
        return list(candidates)
    said = [content_words(text) for text in others]
    return [c for c in candidates
            if not (_is(c, "todo") and any(_repeats(content_words(c.content.split(":", 1)[-1]), other)
                                           for other in said))]


def _repeats(words: set, said: set) -> bool:
    """Whether a todo's words add nothing to one other memory's: each value already there, and half its words
    (a todo about something else the session did is kept)."""
    return bool(words) and values(words) <= said and 2 * len(words & said) >= len(words)
