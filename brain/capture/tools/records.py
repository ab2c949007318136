"""A change read from the tools, as a typed memory and as the value pairs it replaced.

statement(): "KEY = NEW (was OLD) in PATH" ("replicaCount = 4 (was 3 in values.yaml) in values-prod.yaml" when the
old value was set in another file of the family; "node version = 22.1.0 (was 20.11.1) from `node -v`") and the
line as the file writes it (`maxReplicas: 8`: what a person searching the file would type), with the person's
request when the same exchange asked for it (request()): the memory a later session finds and the brief shows,
linked to the turn that made it (`derived_from`) instead of repeating it.

value_pairs(): the (old, new) pairs the turn keeps in metadata.extra.changes (recall marks a turn stating an old
one replaced) and that older typed memories are superseded by: `leaf = old` (`maxReplicas = 5`, which names
the key beside the value, also in prose: "maxReplicas is 5"), a package's `name 1.2.3`, the bare values when
they are specific enough to be found alone (`ghcr.io/acme/api:1.4.2`, `512Mi`, not `true` or `3`), durations in
words (`30s` is "30 seconds"), and the setting as the turn's words count it ("10 login attempts").
"""
import re

from brain.capture.settings.formats import format_of, project_wide, same_family
from brain.capture.settings.lines import COLUMN_ATTRIBUTES
from brain.capture.tools.edits import edit_changes, findable, said_as
from brain.cpython.fast import sqlite3
from brain.util.text import STOPWORDS, SWITCHES, clip, holds_value, sentences

REQUEST_CHARS = 120
COMMAND_CHARS = 80
MEMORIES_PER_FILE = 8  # changes of one file (or command) in one turn that get a memory each (a file rewritten whole
# changes many keys: the first ones are the memories, all of them are value pairs)


def statement(change) -> str:
    """"KEY = NEW (was OLD) in PATH", and the line as the file writes it: "autoscaling.maxReplicas = 8 (was 4) in
    values.yaml (`maxReplicas: 8`)" (see the module doc)."""
    was = change.old
    if change.old_path and change.old_path != change.path and change.path:
        was += f" in {change.old_path}"
    where = _command_phrase(change.command) if change.command else f"in {change.path}"
    said = f"{change.key} = {change.new}"
    line = f" (`{change.line}`)" if change.line and change.line != said else ""
    return f"{said} (was {was}) {where}{line}"


def key_words(key: str) -> set:
    """The words of a key a person would say (`autoscaling.maxReplicas`: autoscaling, replicas)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", key)
    return {w for w in re.split(r"[^A-Za-z]+", spaced.lower()) if len(w) >= 4 and w not in STOPWORDS}


def request(change, turns) -> str:
    """The sentence of the person's last message before the change's turn (the same exchange) that asked for it:
    the first naming a word of its key, else its new value, else its old one; "" when none does."""
    at = next((i for i, turn in enumerate(turns) if turn is change.turn), None)
    if at is None:
        return ""
    asked = next((t for t in reversed(turns[:at]) if t.role == "user" and t.text and not t.is_sidechain), None)
    if asked is None:
        return ""
    words = key_words(change.key)
    said = sentences(asked.text)
    # a sentence naming the key, else the new value, else the old one: what was asked for before what was left
    found = next((s for s in said if words & set(re.split(r"[^a-z]+", s.lower()))), None) or \
        next((s for s in said if holds_value(s, change.new)), None) or \
        next((s for s in said if holds_value(s, change.old)), None)
    return clip(" ".join(found.split()), REQUEST_CHARS) if found else ""


def memory_text(change, turns, also=()) -> str:
    """The change's statement, the places it was also seen (`also`: the same change read elsewhere, memorable())
    and the person's request."""
    asked = request(change, turns)
    seen = "".join(f"; also {_where(other)}" for other in also)
    return statement(change) + seen + (f' (asked: "{asked}")' if asked else "")


def _where(change) -> str:
    """Where else a change was seen, as briefly as it was written: the line and its file, or the command."""
    said = f"`{change.line}`" if change.line else f"{change.key} = {change.new}"
    return said + " " + (f"in {change.path}" if change.path else _command_phrase(change.command or ""))


def _command_phrase(command: str) -> str:
    """"from `COMMAND`", on one line and clipped: where a value a command's output showed came from."""
    return f"from `{clip(' '.join(command.split()), COMMAND_CHARS)}`"


def _leaf(key: str):
    """The last name of a key path (`maxReplicas` of `autoscaling.maxReplicas`; `PORT` of `ENV PORT`), or None for
    a key that has no name of its own (a list position, a Dockerfile stage)."""
    if key.startswith("FROM"):
        return None
    parts = [p for p in re.split(r"[.\s\[\]/,]+", key) if p]
    leaf = parts[-1] if parts else ""
    return leaf if len(leaf) >= 3 and not leaf.isdigit() else None


_VERSION = re.compile(r"^[\^~=v]*(\d+(?:\.\d+)+[\w.+-]*)$")


def _specific(value: str) -> bool:
    """A value found again on its own wherever it is written (see the module doc)."""
    value = value.strip()
    if len(value) < 3 or value.lower() in SWITCHES:
        return False
    digit, letter = any(c.isdigit() for c in value), any(c.isalpha() for c in value)
    return findable(value) or (digit and letter) or (value.isdigit() and len(value) >= 4) or (digit and "*" in value)


_MANIFESTS = frozenset("npm-lock yarn-lock pnpm-lock package-tables mix-lock gemfile-lock pyproject gemfile go-mod "
                       "mix-exs gradle msbuild podfile requirements".split())


def _dependency(change) -> bool:
    """Whether the key names a package (a manifest's or a lockfile's, or under `dependencies`)."""
    return format_of(change.path) in _MANIFESTS or "ependencies." in change.key or change.key.startswith("deps.")


def value_pairs(change) -> list:
    """(old, new) pairs of the change (see the module doc)."""
    pairs = []
    if change.key.endswith(" version") and not change.path:  # `node version`: "node 20.11.1", node@20.11.1
        name = change.key[:-len(" version")]
        pairs.append((f"{name} {change.old}", f"{name} {change.new}"))
    leaf = _leaf(change.key)
    if leaf and not change.key.endswith(" version"):
        pairs.append((f"{leaf} = {change.old}", f"{leaf} = {change.new}"))
        old, new = _VERSION.match(change.old), _VERSION.match(change.new)
        if old and new and old.group(1) != new.group(1) and _dependency(change):  # `react = ^18.2.0`: "React 18.2.0"
            pairs.append((f"{leaf} {old.group(1)}", f"{leaf} {new.group(1)}"))
    if _specific(change.old) and _specific(change.new):
        pairs.append((change.old, change.new))
    pairs += edit_changes(change.old, change.new)
    pairs += [said for pair in pairs for said in said_as(change.turn.text or "", pair)]
    return list(dict.fromkeys(pair for pair in pairs if pair[0].lower() != pair[1].lower()))


def memorable(changes) -> list:
    """(change, the same change seen elsewhere) for each change that gets a memory: the first MEMORIES_PER_FILE of
    each file (or command) in each turn; of the changes of one subject between the same numbers (a column widened
    320 -> 480 in the model, its migration's length and its migration's type; `elixir --version` after
    .tool-versions), one memory naming each place, a file's change first. All are value pairs all the same."""
    counts, out, by_subject = {}, [], {}
    for change in changes:
        where = (id(change.turn), change.path or change.command)
        counts[where] = counts.get(where, 0) + 1
        if counts[where] > MEMORIES_PER_FILE:
            continue
        subject = _subject_and_numbers(change)
        group = by_subject.get(subject) if subject else None
        if group is not None and group[0].path and change.path and group[0].key == change.key \
                and group[0].path != change.path:
            group = None  # one key in two files (staging's and prod's values): two settings
        if group is not None:
            if change.path and not group[0].path:
                group.insert(0, change)  # a file's change says more than a command's output
            else:
                group.append(change)
            continue
        group = [change]
        if subject:
            by_subject[subject] = group
        out.append(group)
    return [(group[0], tuple(group[1:])) for group in out]


_FIRST_NUMBER = re.compile(r"\d+(?:\.\d+)*")


def _subject_and_numbers(change):
    """(the name a change is about, the first number of its old and new values), or None when a value has none:
    `MessageBody` of `Reminders.MessageBody type`, `elixir` of `elixir version` and of .tool-versions' `elixir`."""
    old, new = _FIRST_NUMBER.search(change.old or ""), _FIRST_NUMBER.search(change.new or "")
    key = change.key[:-len(" version")] if change.key.endswith(" version") else change.key
    head, _, attribute = key.rpartition(" ")
    name = head.rsplit(".", 1)[-1] if attribute in COLUMN_ATTRIBUTES and head else key  # (a column: its name)
    return (name.lower(), old.group(), new.group()) if old and new and old.group() != new.group() else None


def earlier_change_memories(conn, project_id, change, when: str, own_id: str) -> list:
    """Ids of the project's active change memories made before `when` that state `change`'s key at a value: set in
    the same file, a file of its family, or anywhere for a project-wide key (found through the turns whose
    settings hold the key, and the memories derived from them)."""
    if conn is None:
        return []
    try:
        rows = conn.execute(
            "SELECT DISTINCT c.id, c.content, s.path FROM settings s JOIN links l ON l.dst = s.id "
            "AND l.type = 'derived_from' JOIN chunks c ON c.id = l.src WHERE s.project IS ? AND s.key = ? "
            "AND s.at < ? AND c.kind = 'change' AND c.status = 'active'",
            (project_id, change.key, when)).fetchall()
    except sqlite3.Error:
        return []
    out = []
    for cid, content, path in rows:
        path = _stated_path(content) or path  # the memory's own file: its turn may have set the key in others too
        if cid != own_id and content.startswith(f"{change.key} = ") \
                and not content.startswith(f"{change.key} = {change.new} (") \
                and (path == change.path or (path and change.path and same_family(path, change.path))
                     or project_wide(change.path, change.key)):
            out.append(cid)
    return list(dict.fromkeys(out))


_STATED_PATH = re.compile(r"\) in (\S+?)(?: \(|$)")


def _stated_path(content: str):
    """The file a change memory names ("... (was 128) in conf/model/roberta.yaml (`max_length: 256`)"), or None."""
    m = _STATED_PATH.search(content)
    return m.group(1) if m else None
