"""The latest value a key had in the project, before a tool call sets it again; which observations change a value.

What the project's earlier sessions set or showed comes from search.db's `settings` table (derived from each
turn's metadata.extra.settings); what this session did so far is added as it goes. A key's latest value is the
one last set in the same file; for a key that file never set, the one last set in a file of its family
(values.yaml for values-prod.yaml: settings/formats.same_family) or, for a key that holds project-wide (a database
job, a tool's version), anywhere.
"""
from collections import namedtuple

from brain.capture.settings.formats import project_wide, same_family
from brain.index.search_index import connect
from brain.cpython.fast import sqlite3
from brain.util.timestamps import normalize_timestamp

# old_path: the file the replaced value was set in (another file of the family, for a new file); line: the new
# value's line as the file writes it, when known; call: the tool call's place in its turn
SettingChange = namedtuple("SettingChange", "turn path key old new command old_path line call", defaults=(None, None))
_KEY_ENDS = (".", " ", "]")  # what stands before a fragment's key inside a whole key path
LOOKUP_ROWS = 20_000  # earlier settings read per capture at most, newest first


class Known:
    """The settings known before each observation: the project's earlier ones, then this session's."""

    def __init__(self, rows=()):
        self._by_key = {}  # key -> [(path, value)], oldest first
        self._keys_of = {}  # path -> {key}
        for path, key, value in rows:
            self.note(path, key, value)

    @classmethod
    def load(cls, root, project_id, before: str, paths, keys):
        """The settings of `project_id` set before `before` (ISO time) in one of `paths` or for one of `keys`."""
        conn = connect(root, readonly=True) if root else None
        if conn is None:
            return cls()
        paths, keys = sorted(set(paths)), sorted(set(keys))
        try:
            rows = []
            for column, values in (("path", paths), ("key", keys)):
                for start in range(0, len(values), 500):
                    part = values[start:start + 500]
                    rows += conn.execute(
                        f"SELECT s.rowid, s.path, s.key, s.value, s.at FROM settings s JOIN chunks c ON c.id = s.id "
                        f"WHERE s.project IS ? AND s.{column} IN ({','.join('?' * len(part))}) AND s.at < ? "
                        "AND c.status = 'active' ORDER BY s.at DESC LIMIT ?",
                        (project_id, *part, before, LOOKUP_ROWS)).fetchall()
        except sqlite3.Error:  # an index an older rlm-mem made (no settings table) until the worker rebuilds it
            rows = []
        finally:
            conn.close()
        rows = sorted(set(rows), key=lambda row: (row[4], row[0]))
        return cls((path, key, value) for _, path, key, value, _ in rows)

    def note(self, path: str, key: str, value: str) -> None:
        self._by_key.setdefault(key, []).append((path, value))
        self._keys_of.setdefault(path, set()).add(key)

    def resolve(self, path: str, key: str) -> str:
        """The whole key a fragment's `key` stands for in `path` (or its family): the one known key ending in it
        after a separator (`autoscaling.maxReplicas` for `maxReplicas`); `key` itself when it is known or when
        none or several end in it."""
        if key in self._keys_of.get(path, ()):
            return key
        known = self._keys_of.get(path) or {k for p, keys in self._keys_of.items() if same_family(p, path)
                                            for k in keys}
        ends = [k for k in known if k.endswith(key) and k[-len(key) - 1:-len(key)] in _KEY_ENDS]
        return ends[0] if len(ends) == 1 else key

    def latest_by_tail(self, path: str, key: str):
        """(value, path) of the one key `path` set whose path ends as `key`'s does after a renamed parent (a
        workflow's job `test` become `pest` in the file that replaced it), or None when none or several do."""
        tail = _tail(key)
        alike = [k for k in self._keys_of.get(path, ()) if tail and _tail(k) == tail]
        return self.latest(path, alike[0]) if len(alike) == 1 else None

    def named(self, name: str, value: str):
        """(path, key) of a key set in a file whose name, without case and separators, is `name` and whose latest
        value is `value` (quotes and a leading v aside), or None."""
        for key, entries in self._by_key.items():
            path, latest = entries[-1]
            if path and _plain_name(key) == name and _same(latest.strip("\"'v"), value.strip("\"'v")):
                return path, key
        return None

    def latest(self, path: str, key: str):
        """(value, the file it was set in) of `key`'s latest value as seen from `path`, or None (module doc)."""
        entries = self._by_key.get(key, ())
        same = [entry for entry in entries if entry[0] == path]
        if same:
            return same[-1][1], path
        related = [entry for entry in entries if entry[0] and same_family(entry[0], path)] or \
            (list(entries) if project_wide(path, key) else [])
        return (related[-1][1], related[-1][0]) if related else None


def _tail(key: str):
    """A key path without its first two parts (`steps[setup-php].with.php-version` of
    `jobs.pest.steps[setup-php].with.php-version`), or None when it has no more than three (dots inside brackets are
    a list item's name, not parts)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(key):
        depth += (ch == "[") - (ch == "]")
        if ch == "." and depth == 0:
            parts.append(key[start:i])
            start = i + 1
    parts.append(key[start:])
    return ".".join(parts[2:]) if len(parts) > 3 else None


def _same(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()


def settle(observations, known: Known) -> tuple:
    """(the settings to keep, by turn: [(turn, [(path, key, value)])], the changes: [SettingChange]).

    A setting is kept when it is news (no known value, or another one); a change is a call setting a key to a
    value other than the one it had: the one the call shows it replaced, else the latest known one (for a new file
    that replaced another, the other's; a Read showing a file's key at another value than the same file had: a
    command or a person changed it since; a Read of a file saying what it replaced, unless another value is known:
    a migration a command wrote). A fragment's key is first completed (Known.resolve)."""
    kept, changes = {}, []
    for o in observations:
        o = _printed_for_a_file(o, known)
        key = known.resolve(o.path, o.key)
        before = known.latest(o.path, key)
        if before is None and o.replaces:  # a new file that replaced another: the old file's value came before
            before = known.latest(o.replaces, key) or known.latest_by_tail(o.replaces, key)
        if o.shown and o.old is not None and before is not None and not _same(before[0], o.old):
            o = o._replace(old=None)  # a file read says what it replaced: a change from no other value known
        if before is not None and _same(before[0], o.value) and (o.old is None or _same(o.old, o.value)):
            continue
        old, old_path = (o.old, o.path) if o.old is not None else before or (None, None)
        hidden = old is not None and "[REDACTED:" in old  # a secret's placeholder: what it replaced is unknown
        if old is not None and not hidden and not _same(old, o.value) and (not o.shown or old_path == o.path):
            changes.append(SettingChange(o.turn, o.path, key, old, o.value, o.command, old_path, o.line, o.call))
        kept.setdefault(id(o.turn), (o.turn, []))[1].append((o.path, key, o.value))
        known.note(o.path, key, o.value)
    return list(kept.values()), changes


def _printed_for_a_file(o, known: Known):
    """A command's output naming one of the project's keys with the value the key had, and a new one (a bump
    script's "FW_VERSION 0.4.0 -> 0.4.1", read as a package `fw-version`): the change of that key, in its file."""
    name = _printed_name(o)
    named = known.named(name, o.old) if name else None
    return o._replace(path=named[0], key=named[1]) if named else o


def _printed_name(o):
    """The name a command's output gave a value it changed (`fw-version` of `fw-version version`), or None."""
    if o.path or not o.command or o.old is None or not o.key.endswith(" version"):
        return None
    return _plain_name(o.key[:-len(" version")]) or None


def _plain_name(key: str) -> str:
    return "".join(ch for ch in key.lower() if ch.isalnum())


def load_known(root, project_id, observations) -> Known:
    """The project's earlier settings for what `observations` touch, known before the first of them (and the
    constants a command's output may have named: `FW_VERSION` for `fw-version`)."""
    times = [normalize_timestamp(o.turn.timestamp) for o in observations if o.turn.timestamp]
    if not observations or not times:
        return Known()
    keys = {o.key for o in observations}
    for o in observations:
        name = o.key[:-len(" version")] if _printed_name(o) else None
        if name:
            keys |= {name, name.upper(), name.replace("-", "_"), name.replace("-", "_").upper()}
    keys |= {o.key.rsplit(".", 1)[-1] for o in observations}
    paths = {o.path for o in observations} | {o.replaces for o in observations if o.replaces}
    return Known.load(root, project_id, min(times), paths, keys)
