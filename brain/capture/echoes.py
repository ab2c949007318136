"""A session's commits given the values they changed, and completed todos that only repeat other memories.

The judge of typed memories found two kinds failing most (bench/README.md, "Typed memories"): a commit whose
subject names a change without its value ("lower concurrency", "bump aws provider"), and a completed todo
restating what a commit or a change of the same session already says. Both are read from what the tools did, not
from the words used:
- A commit whose subject states none of the new values that the session's tool calls set before it (in the files
  it staged, and not taken by an earlier commit) is given them: "Committed: lower concurrency
  [worker.concurrency = 4 (was 8)]". The subject says why, the change what; read alone later, the memory says both.
- A completed todo is no memory of its own when one commit or change of the session holds its values (numbers,
  versions, names with a dot or a dash) and half its words: the session record keeps the list of what was done.
- A request, decision, preference or correction is no memory of its own when a change its exchange made (the
  person's message and the replies up to the next one) already holds it: the change quotes the same sentence as
  its request, or the sentence states the change's new value without naming its key ("just use 5433", "move ours
  to 8443": said in words, the subject is only in the file), or in no word the change's memory lacks ("Default seed
  is 1234."). The change memory says what it is about, the turn keeps the words.
"""
from dataclasses import replace

import re

from brain.capture.novelty import content_words, values
from brain.capture.rules.tool_events import commits
from brain.capture.tools.records import key_words, request, value_pairs
from brain.capture.transcript import exchanges
from brain.util.text import STOPWORDS, clip, holds_value
from brain.util.text import words as word_runs

COMMIT_VALUES = 3  # changes named in one commit's memory at most: a rewrite of a whole file changes dozens
KEY_CHARS = 40  # a longer key path is named by its last part (`concurrency` of `worker.deploy.env.concurrency`)
MAX_CONTENT = 500


def _is(candidate, tag: str) -> bool:
    return candidate.kind == "milestone" and tag in candidate.tags


def _key(key: str) -> str:
    return key if len(key) <= KEY_CHARS else key.replace("[", ".").replace("]", "").rsplit(".", 1)[-1]


def commits_with_values(candidates, changes, turns) -> list:
    """`candidates` with each commit that states none of its changes' new values given them (module doc). A commit
    holds the changes made before it that no earlier commit took: of the paths its command line staged for it
    (`git add a b && git commit`), or all of them (`-a`, `git add -A`). Every commit the session ran counts, also
    one whose command line failed after it (a commit then a push that failed) or that made no memory."""
    order = {turn.uuid: at for at, turn in enumerate(turns) if turn.uuid}
    made = sorted(((order[change.turn.uuid], change.call or 0), i) for i, change in enumerate(changes)
                  if change.turn.uuid in order)
    held, taken = {}, set()
    for at, turn in enumerate(turns):
        for call, use in enumerate(turn.tool_uses):
            for part, (_, staged) in enumerate(commits(use.command) if use.command else ()):
                mine = [i for where, i in made if where <= (at, call) and i not in taken
                        and (staged is None or _staged(changes[i].path, staged))]
                taken.update(mine)
                held[(at, call, part)] = [changes[i] for i in mine]
    out = []
    for candidate in candidates:
        if not _is(candidate, "git") or candidate.source_uuid not in order:
            out.append(candidate)
            continue
        subject = candidate.content
        since = _net(held.get((order[candidate.source_uuid], candidate.call or 0, candidate.part), []))
        if not since or any(holds_value(subject, change.new) for change in since):
            out.append(candidate)
            continue
        said = "; ".join(f"{_key(c.key)} = {c.new} (was {c.old})" for c in since[:COMMIT_VALUES])
        more = f"; {len(since) - COMMIT_VALUES} more" if len(since) > COMMIT_VALUES else ""
        out.append(replace(candidate, content=clip(f"{subject} [{said}{more}]", MAX_CONTENT)))
    return out


def _staged(path: str, staged: tuple) -> bool:
    """Whether a change's file is among the paths staged, or in a folder staged."""
    return bool(path) and any(path == p or path.startswith(p + "/") for p in staged)


def _net(changes) -> list:
    """Each key's change over the commit, in order: its first old value and its last new one (0.1 then corrected
    to 0.2 before the commit shipped 0.2); a key set back to where it was is none."""
    first, last = {}, {}
    for change in changes:
        where = (change.path, change.key)
        first.setdefault(where, change)
        last[where] = change
    return [last[w]._replace(old=first[w].old) for w in first if first[w].old != last[w].new]


def without_echoes(candidates, changed=(), turns=()) -> list:
    """`candidates` without the completed todos that only repeat the session's commits and changes, and without
    the statements in words a change of their exchange already holds (module doc). `changed`: (change, its memory's
    text) for each change that gets a memory."""
    others = [c.content for c in candidates if _is(c, "git")] + [text for _, text in changed]
    if not others:
        return list(candidates)
    said = [content_words(text) for text in others]
    exchange_of = exchanges(turns)
    by_exchange = _changes_by_exchange([change for change, _ in changed], exchange_of)
    asked = {id(change): request(change, turns) for change, _ in changed} if by_exchange else {}
    memory_words = {id(change): _words(text) for change, text in changed} if by_exchange else {}
    return [c for c in candidates
            if not (_is(c, "todo") and any(_repeats(content_words(c.content.split(":", 1)[-1]), other)
                                           for other in said))
            and not _said_by_change(c, by_exchange.get(exchange_of.get(c.source_uuid), ()), asked, memory_words)]


_IN_WORDS = frozenset("request correction preference decision".split())
# Words that only say a change was made ("Changed LeadHours to 24."): what the change's memory says by being one
# ("move" is not one of them: "move the api to 5180" says where to, which a port's key may not)
_MADE_A_CHANGE = frozenset("change changed changing bump bumped bumping switch switched switching update updated "
                           "updating upgrade upgraded upgrading raise raised lower lowered increase increased "
                           "decrease decreased now".split())


def _changes_by_exchange(changes, exchange_of: dict) -> dict:
    out = {}
    for change in changes:
        exchange = exchange_of.get(change.turn.uuid)
        if exchange:
            out.setdefault(exchange, []).append(change)
    return out


def _said_by_change(candidate, changes, asked: dict, memory_words: dict) -> bool:
    """Whether a statement in words only says again what a change of its exchange holds (module doc): the change
    quotes whole the sentence it came from and all it says, or the statement gives the change's new value and names
    no word of the change's key or file ("backup" names `keep_all_backups_for_days`, "signin" names `signIn`), or
    gives it in no word the change's memory lacks but those saying a change was made ("Default seed is 1234."
    beside `seed = 1234 (was 42) in conf/config.yaml (asked: "default 1234, ...")`; "Changed LeadHours to 24.")."""
    if candidate.kind not in _IN_WORDS or not changes:
        return False
    sentence = " ".join((candidate.statement or "").split())
    said = candidate.content.split(": ", 1)[-1]
    words = {w for w in re.split(r"[^a-z]+", said.lower()) if len(w) >= 4}
    if any(_quotes(asked[id(change)], sentence) and _quotes(asked[id(change)], said) for change in changes):
        return True  # the change's memory holds what it says whole, with the key and both values
    stated = [change for change in changes if any(holds_value(said, new) for new in _new_values(change))]
    if any(_within(_words(said) - _MADE_A_CHANGE, memory_words.get(id(change), set())) for change in stated):
        return True
    return bool(stated) and not any(_names(change, said, words) for change in stated)


def _words(text: str) -> set:
    """The words of `text` that say something: three letters or more and no stopword, or holding a digit."""
    return {w for w in word_runs(text.lower()) if (len(w) >= 3 and w not in STOPWORDS) or any(c.isdigit() for c in w)}


def _within(words: set, other: set) -> bool:
    """Whether every one of `words` is in `other`, or shares its start with a word there ("workers", "worker")."""
    return bool(words) and all(w in other or (len(w) >= 4 and any(o.startswith(w) or w.startswith(o)
                                                                  for o in other if len(o) >= 4)) for w in words)


def _new_values(change) -> list:
    """The change's new value, and the part of it an edit changed (`8443` of `8443:443`)."""
    return [change.new] + [new for _, new in value_pairs(change) if " = " not in new]


def _quotes(asked: str, sentence: str) -> bool:
    """Whether a change's request quotes the whole sentence (a clipped quote has lost its end)."""
    return bool(sentence and asked) and not asked.endswith("…") and sentence in asked


def _names(change, said: str, words: set) -> bool:
    """Whether a statement names the change's key or file: a word of either, or its last name as written (`go`)."""
    names = key_words(change.key) | key_words(change.path or "")
    leaf = re.split(r"[^A-Za-z0-9_-]+", change.key)[-1:] or [""]
    return any(a.startswith(b) or b.startswith(a) for a in words for b in names) or \
        (len(leaf[0]) >= 2 and re.search(rf"(?<![\w-]){re.escape(leaf[0])}(?![\w-])", said, re.IGNORECASE) is not None)


def _repeats(words: set, said: set) -> bool:
    """Whether a todo's words add nothing to one other memory's: each value already there, and half its words
    (a todo about something else the session did is kept)."""
    return bool(words) and values(words) <= said and 2 * len(words & said) >= len(words)
