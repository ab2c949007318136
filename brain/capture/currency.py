"""What is current: the values a session changed, and the older memories that still state the old value.

A session changes a value when it edits one into another (an Edit tool call whose old text holds 8087 and new
text 8090, `days=14` into `days=7`), or says so: "replace Celery with arq", "use vitest instead of jest", "switch
from X to Y", a correction "it's X, not Y", or a request "Make it 7 days" / "move it to 04:30 UTC" that answers a
turn stating a value of the same kind. Each change is a pair (old value, new value) with the time it was made,
kept on the chunk of the turn that made it (metadata.extra.changes). The project's older typed memories that hold
the old value (and not the new one) are superseded by that turn: they stay readable and the session-start brief no
longer offers them as current. Verbatim turns are the record of what was said and stay as they are; recall marks
the replaced value in them (brain/recall/recall.py, from search.db's changes table).

Only values specific enough to be found again are followed: numbers of three digits or more, numbers with a unit
or a subject ("14 days", "Node 18", "port 8090"), URLs, host names, paths, times of day, and names only when a
sentence says one replaced another.
"""
import re
from collections import Counter, namedtuple

from brain.capture.rules.said_changes import DOTTED_VERSION
from brain.capture.rules.said_changes import asked_values as _asked_values
from brain.capture.rules.said_changes import named as _named
from brain.capture.rules.said_changes import stated_changes as _stated_changes
from brain.capture.rules.said_changes import without_open_work as _without_open_work
from brain.capture.transcript import EDIT_TOOLS
from brain.cpython.fast import sqlite3
from brain.index.search_index import connect
from brain.store.lifecycle import supersede
from brain.util.text import STOPWORDS, SWITCHES, TOOLS_LINE, holds_value, words
from brain.util.timestamps import normalize_timestamp
from brain.util.values import ASSIGNED_NUMBER, WEAK_SUBJECTS, value_kinds

CANDIDATE_ROWS = 500  # older memories read per change (the store's own search narrows them first)

# old, new: the values as written (old None: "any other value of that subject", found in older memories);
# when: the ISO time of the change; turn: the transcript turn that made it
# subject: for a change whose old value was not said, the word older memories state it beside ("hold")
Change = namedtuple("Change", "old new when turn subject", defaults=(None,))

def edit_changes(old: str, new: str) -> list:
    """Value pairs an edit replaced: one removed and one added value of the same kind (any two durations are of one
    kind: `time.Minute` into `30 * time.Second`; so are two sizes), or an interval replaced by a schedule
    (`interval(Duration::from_secs(3600))` into `"0 15 3 * * *"`). A changed URL also changes its host."""
    pairs = []
    before, after = _values_with_units(old), _values_with_units(new)
    removed_of, added_of = {}, {}
    for kind in {k for k, _ in before} | {k for k, _ in after}:
        removed_of[kind] = [v for k, v in before if k == kind and (k, v) not in after]
        added_of[kind] = [v for k, v in after if k == kind and (k, v) not in before]
    for kind in removed_of:
        removed, added = removed_of[kind], added_of[kind]
        if len(removed) == 1 and len(added) == 1 and removed[0].lower() != added[0].lower():
            pairs.append((removed[0], added[0]))
            if kind == "url":
                hosts = _host(removed[0]), _host(added[0])
                if all(hosts) and hosts[0] != hosts[1]:
                    pairs.append(hosts)
    schedules = added_of.get("cron", []) + added_of.get("time", [])
    if not pairs and len(removed_of.get("duration", [])) == 1 and len(schedules) == 1 \
            and not added_of.get("duration"):
        pairs.append((removed_of["duration"][0], schedules[0]))
    if not pairs:
        pairs += _renamed_literal(old, new)
    return pairs


# A quoted name in code: a subject, topic, queue, bucket, path or key ("orders.created", "gs://raw-events").
_LITERAL = re.compile(r"\"([^\"\s]{4,100})\"|'([^'\s]{4,100})'")


def _renamed_literal(old: str, new: str) -> list:
    """An edit that changes nothing but one quoted name into another (`Publish(ctx, "cart.item.added", ...)`
    into `Publish(ctx, "shop.v1.cart.item.added", ...)`): the pair, when both are specific enough to be found again
    (a dot, slash or colon in them, or a dash or underscore in ten characters or more: not "info" or "user_1")."""
    before = [a or b for a, b in _LITERAL.findall(old)]
    after = [a or b for a, b in _LITERAL.findall(new)]
    removed = [v for v in dict.fromkeys(before) if v not in after]
    added = [v for v in dict.fromkeys(after) if v not in before]
    if len(removed) != 1 or len(added) != 1 or old.replace(removed[0], added[0]) != new:
        return []
    return [(removed[0], added[0])] if _findable(removed[0]) and _findable(added[0]) else []


def _findable(name: str) -> bool:
    """A name specific enough to be found again: a dot, slash or colon in it, or a dash or underscore in ten
    characters or more (not "info" or "user_1")."""
    return any(c in name for c in ".:/") or (len(name) >= 10 and any(c in name for c in "-_"))


def _host(url: str):
    rest = url.split("://", 1)[-1]
    return rest.split("/", 1)[0].split(":", 1)[0] or None


# `TTL = 15 * time.Minute`, `limit = 256 MB`, `cutoff = 72.hours`: not a setting
_UNIT_OR_PRODUCT = re.compile(r"[ \t]?(?:[A-Za-z%]|\*)|\.[A-Za-z]")  # on its line: not the next line's name
_DURATIONS = frozenset("unit:millisecond unit:second unit:minute unit:hour unit:day unit:week unit:month".split())
_SIZES = frozenset("unit:kb unit:mb unit:gb unit:tb".split())
# A number set through a call (`.max_connections(10)`) or a quoted version (`channel = "1.79"`).
_CALL_SETTING = re.compile(r"\.([a-z_][a-z0-9_]{2,40})\((\d+(?:\.\d+)?)\)")
_QUOTED_VERSION = re.compile(r"\b([A-Za-z_][\w-]{1,40})\s*[=:]\s*[\"'](\d+(?:\.\d+)+)[\"']")


def _values_with_units(text: str) -> list:
    """value_kinds (durations as one kind, sizes as one kind) plus numbers set under a name: with a unit the name
    says (`CACHE_TTL_HOURS = 24`: 24 hours), as a setting (`pool_max_conns=10`, `.max_connections(10)`: written
    `name = 10`), or a quoted version (`channel = "1.79"`: 1.79)."""
    out = [("duration" if k in _DURATIONS else "size" if k in _SIZES else k, v) for k, v in value_kinds(text)]
    for m in ASSIGNED_NUMBER.finditer(text):
        unit = next((u for u in ("days", "hours", "minutes", "seconds", "weeks", "months") if
                     u[:-1] in m.group(1).lower()), None)
        if unit and "per" in m.group(1).lower().replace("-", "_").split("_"):
            unit = None  # `requests-per-minute: 100` is a rate, not 100 minutes
        if unit:
            out.append(("duration", f"{m.group(2)} {unit}"))
        elif m.group(1).lower() not in WEAK_SUBJECTS and not _UNIT_OR_PRODUCT.match(text, m.end()):
            out.append(("set:" + m.group(1).lower(), f"{m.group(1)} = {m.group(2)}"))  # not `TTL = 15 * time.Minute`
    for m in _CALL_SETTING.finditer(text):
        out.append(("set:" + m.group(1), f"{m.group(1)} = {m.group(2)}"))
    for m in _QUOTED_VERSION.finditer(text):
        out.append(("set:" + m.group(1).lower(), m.group(2)))
    return list(dict.fromkeys(out))


_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]*\d)")


def _edited_number(old: str, new: str, asked: list) -> list:
    """An edit carrying out a request for a value the conversation had not stated ("Make it 45 days", then
    `from_secs(14 * 24 * 3600)` into `from_secs(45 * 24 * 3600)`): the one number the edit replaced, by the asked
    one, is the old value, in the asked value's unit."""
    before, after = Counter(_NUMBER.findall(old)), Counter(_NUMBER.findall(new))
    removed, added = list((before - after).elements()), list((after - before).elements())
    if len(removed) != 1 or len(added) != 1 or before.total() != after.total():  # one number, nothing else
        return []
    for value in asked:
        number, _, unit = value.partition(" ")
        if number == added[0] and unit and removed[0] != number:
            return [(f"{removed[0]} {unit}", value)]
    return []


# A substitution a command makes in a file: sed 's/connection_limit=5/connection_limit=15/' (any delimiter).
_SED = re.compile(r"\bsed\b[^|;&]*?\bs(?P<d>[/|#,])(?P<old>(?:\\.|(?!(?P=d)).)+)(?P=d)"
                  r"(?P<new>(?:\\.|(?!(?P=d)).)*)(?P=d)")
# Packages removed and others added in one command line ("pnpm remove zod && pnpm add @sinclair/typebox",
# "pip uninstall -y celery && pip install arq"): the added ones replace the removed ones.
_PACKAGE_VERB = re.compile(r"^\s*(?:sudo\s+)?(?P<tool>pnpm|npm|yarn|bun|pip3?|uv(?:\s+pip)?|poetry|cargo)\s+"
                           r"(?P<verb>remove|rm|uninstall|un|add|install|i)\b(?P<args>.*)$")
_REMOVE_VERBS = frozenset({"remove", "rm", "uninstall", "un"})


def _package_name(arg: str) -> str:
    """A package argument without its version: @scope/name@5 -> @scope/name, celery==5.3 -> celery."""
    if arg.startswith("@"):
        scope, _, rest = arg.partition("/")
        return scope + "/" + rest.split("@", 1)[0]
    return re.split(r"[@=<>~!\[;]", arg, maxsplit=1)[0]


def command_changes(command: str) -> list:
    """Value pairs a shell command changes: a sed substitution's values (as an edit's, edit_changes), and packages
    swapped for others in one command line (paired in order)."""
    pairs = []
    for m in _SED.finditer(command):
        old, new = (m.group(g).replace("\\" + m.group("d"), m.group("d")) for g in ("old", "new"))
        pairs += edit_changes(old, new)
    removed, added = [], []
    for part in re.split(r"&&|;|\|\|", command):
        m = _PACKAGE_VERB.match(part)
        if m is None or (m.group("tool") in ("npm", "pnpm", "yarn", "bun") and m.group("verb") == "i"
                         and not m.group("args").strip()):
            continue
        names = [_package_name(a) for a in m.group("args").split() if not a.startswith("-")]
        names = [n for n in names if _named(n) and not n.startswith((".", "/"))]
        (removed if m.group("verb") in _REMOVE_VERBS else added).extend(names)
    return pairs + _swapped(removed, added)


def _swapped(removed: list, added: list) -> list:
    """Packages that replaced others, (old, new): paired in order when as many went as came, all for one when one
    came (or the first for the first when one went); a name on both sides was upgraded in place, not replaced."""
    kept = {n.lower() for n in removed} & {n.lower() for n in added}
    removed = list(dict.fromkeys(n for n in removed if n.lower() not in kept))
    added = list(dict.fromkeys(n for n in added if n.lower() not in kept))
    if not removed or not added:
        return []
    if len(removed) == len(added):
        return list(zip(removed, added))
    if len(added) == 1:
        return [(old, added[0]) for old in removed]
    return [(removed[0], added[0])] if len(removed) == 1 else []


# The dependencies a manifest names, by file name: an edit dropping some and adding others swapped them (Gemfile
# `gem "wicked_pdf"` for `gem "prawn"`, package.json, requirements.txt, pyproject.toml, Cargo.toml, go.mod).
_GEM = re.compile(r"^[ \t]*gem\s+[\"']([\w.-]+)[\"']", re.MULTILINE)
_JSON_DEPENDENCY = re.compile(r"^[ \t]*\"(@?[\w./-]+)\"\s*:\s*\"(?:[~^<>=*]|\d|workspace:|npm:)", re.MULTILINE)
_REQUIREMENT = re.compile(r"^[ \t]*\"?([A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?\s*(?:[=<>!~]=|[<>]|\"|,|$)", re.MULTILINE)
_TOML_DEPENDENCY = re.compile(r"^[ \t]*([A-Za-z0-9][\w-]*)\s*=\s*(?:\"[~^<>=*\d]|\{)", re.MULTILINE)
_GO_REQUIRE = re.compile(r"^[ \t]*(?:require\s+)?([\w.-]+\.[a-z]{2,}/[\w./-]+)\s+v\d", re.MULTILINE)


def _manifest_names(file_path: str, text: str) -> list:
    name = file_path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name == "gemfile" or name.endswith(".gemspec"):
        return _GEM.findall(text)
    if name == "package.json":
        return _JSON_DEPENDENCY.findall(text)
    if name.startswith("requirements") and name.endswith((".txt", ".in")):
        return _REQUIREMENT.findall(text)
    if name == "pyproject.toml":
        return _REQUIREMENT.findall(text) + _TOML_DEPENDENCY.findall(text)
    if name == "cargo.toml":
        return _TOML_DEPENDENCY.findall(text)
    if name == "go.mod":
        return _GO_REQUIRE.findall(text)
    return []


def manifest_changes(file_path: str, old: str, new: str) -> list:
    """(old package, new package) for the dependencies an edit of a manifest swapped for others."""
    if not file_path:
        return []
    before, after = _manifest_names(file_path, old), _manifest_names(file_path, new)
    removed = [n for n in before if n not in after]
    added = [n for n in after if n not in before]
    return [(o, n) for o, n in _swapped(removed, added) if _named(o) and _named(n)]


# A setting on a line of its own in a configuration file: `signup-enabled: true`, `topic = "orders.v1"`.
_CONFIG_SUFFIXES = (".yml", ".yaml", ".toml", ".ini", ".cfg", ".conf", ".properties", ".env", ".tfvars", ".hcl",
                    ".tf")
_SETTING_LINE = re.compile(r"^[ \t]*(?:- )?([A-Za-z_][\w.-]{1,80})[ \t]*(?:=|:(?=[ \t]))[ \t]*"
                           r"[\"']?([^\s\"'#]{1,120})[\"']?[ \t]*(?:#[^\n]*)?\r?$", re.MULTILINE)


def _settings(text: str) -> dict:
    """name -> value of the settings `text` sets one to a line (a later line for the same name wins)."""
    return {m.group(1): m.group(2) for m in _SETTING_LINE.finditer(text)}


def _specific_name(name: str) -> bool:
    """A setting's name specific enough that a switch of it means something on its own: `signup-enabled`,
    `batchCheckout`, not `enabled` or `debug`, which many sections of a file (and other files) hold."""
    return len(name) >= 8 and (any(c in name for c in "-_.") or any(c.isupper() for c in name[1:]))


def _specific_word(value: str) -> bool:
    """A value a person would look for again: a switch (true, off), or a findable name (numbers are read
    elsewhere)."""
    return value.lower() in SWITCHES or (not value.replace(".", "").isdigit() and _findable(value))


def config_changes(file_path: str, old: str, new: str) -> list:
    """("name = old value", "name = new value") for each setting an edit of a configuration file changed from one
    switch or name to another (`signup-enabled: false` into `true`, a topic renamed; a name's pair also bare:
    ("invoice-reminders", "billing.reminders.v1")); numbers are edit_changes'."""
    if not file_path or not file_path.lower().endswith(_CONFIG_SUFFIXES) and \
            not file_path.replace("\\", "/").rsplit("/", 1)[-1].startswith(".env"):  # .env, .env.production
        return []
    before, after = _settings(old), _settings(new)
    pairs = []
    for name, value in before.items():
        if name in after and after[name] != value and _specific_word(value) and _specific_word(after[name]) \
                and (value.lower() not in SWITCHES or _specific_name(name)):
            pairs.append((f"{name} = {value}", f"{name} = {after[name]}"))
            if value.lower() not in SWITCHES:  # a renamed topic is also found by its names alone
                pairs.append((value, after[name]))
    return pairs


# A command-line option set in a file: `#SBATCH --partition=a100`, `--max-old-space-size=4096`, `ENTRYPOINT [...]`
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]{1,40})=([\w.:/@+-]{1,80})(?![\w.:/@+=,-])")  # not --env=K=V


def flag_changes(old: str, new: str) -> list:
    """("--name=old", "--name=new") for each option an edit gave another word, written once on each side
    (`--partition=a100` into `--partition=h100`: the option's name makes the pair findable; numbers, as in
    `--nodes=2`, are edit_changes')."""
    before, after = _flags(old), _flags(new)
    new_lines = {line.strip() for line in new.splitlines()}
    pairs = []
    for name, value in before.items():
        changed = after.get(name)
        if not changed or changed.lower() == value.lower() or changed.replace(".", "").isdigit() \
                or value.replace(".", "").isdigit():
            continue
        was, now = f"--{name}={value}", f"--{name}={changed}"
        # the same line with only the option's value changed: not another command given the option
        if any(was in line and line.strip().replace(was, now) in new_lines for line in old.splitlines()):
            pairs.append((was, now))
    return pairs


def _flags(text: str) -> dict:
    """option -> the one word `text` gives it (options given more than one left out)."""
    return _one_value_each((m.group(1), m.group(2)) for m in _FLAG.finditer(text))


def _one_value_each(pairs) -> dict:
    """name -> value of (name, value) pairs, for the names given one value only: a name given several says nothing
    about which one an edit changed."""
    found = {}
    for name, value in pairs:
        found.setdefault(name, set()).add(value)
    return {name: next(iter(values)) for name, values in found.items() if len(values) == 1}


# A keyword argument given a quoted word: `config(materialized='view')`, `Field(default="draft")`, a line of a
# call's arguments (`    materialized='incremental',`). After "(" or "," or alone on its line, and followed by "," or
# ")": a SQL predicate (`where status = 'active'`) or a markup attribute (`variant="primary"`) is no argument.
_QUOTED_ARGUMENT = re.compile(r"(?:[(,]|^)[ \t]*([A-Za-z_]\w{4,40})[ \t]*=[ \t]*(['\"])([A-Za-z][\w.-]{0,60})\2"
                              r"(?=[ \t]*[,)])", re.MULTILINE)


def argument_changes(old: str, new: str) -> list:
    """("name = old value", "name = new value") for each keyword argument an edit gave another quoted word
    (`config(materialized='view')` into `materialized='table'`), in any file: the name beside the value makes the
    pair specific even when the words are not ("view"). A name given several values on one side says nothing
    about which one changed, and is left out; numbers are edit_changes'."""
    before, after = _arguments(old), _arguments(new)
    return [(f"{name} = {value}", f"{name} = {after[name]}") for name, value in before.items()
            if name in after and after[name].lower() != value.lower()]


def _arguments(text: str) -> dict:
    """name -> the one quoted word `text` gives that keyword argument (names given more than one left out)."""
    return _one_value_each((m.group(1), m.group(3)) for m in _QUOTED_ARGUMENT.finditer(text))


_COUNTED = re.compile(r"(?<![\w.])(\d+)\s+([A-Za-z][a-z-]+(?:\s+[a-z][a-z-]+)?)\b")  # "10 login attempts"


def _said_as(text: str, pair: tuple) -> list:
    """A setting an edit changed (`limit = 5` into `limit = 10`) as the turn's own words say the new number ("10
    login attempts per minute"): the same words with the old number are the old value older turns state ("5 login
    attempts"), which the setting's name alone would not find."""
    old, new = pair
    if " = " not in old or " = " not in new:
        return []
    before, after = old.partition(" = ")[2], new.partition(" = ")[2]
    if not (before.isdigit() and after.isdigit()) or before == after:
        return []
    out = []
    for m in _COUNTED.finditer(text.split(TOOLS_LINE, 1)[0]):
        said = m.group(2).split()
        while said and said[-1].lower() in STOPWORDS:
            said.pop()
        if m.group(1) != after or not said or said[0].lower() in STOPWORDS or len(said[0]) < 4:
            continue
        out.append((f"{before} {' '.join(said)}", f"{after} {' '.join(said)}"))
        if len(said) == 2 and value_kinds(f"{after} {said[1]}"):  # "10 login attempts" is also "10 attempts"
            out.append((f"{before} {said[1]}", f"{after} {said[1]}"))
    return out


def session_changes(turns) -> list:
    """Every value change a session made, in order: Change(old, new, when, turn)."""
    changes, previous, asked = [], "", []
    for turn in turns:
        if turn.is_sidechain or turn.is_compact_summary:
            continue
        for use in turn.tool_uses:
            if use.name in EDIT_TOOLS and use.ok is not False and use.edit:
                pairs = edit_changes(*use.edit) or _edited_number(*use.edit, asked)
                pairs += manifest_changes(use.file_path, *use.edit)
                pairs += [pair for pair in config_changes(use.file_path, *use.edit) if pair not in pairs]
                pairs += [pair for pair in argument_changes(*use.edit) if pair not in pairs]
                pairs += [pair for pair in flag_changes(*use.edit) if pair not in pairs]
                pairs += [said for pair in pairs for said in _said_as(turn.text or "", pair)]
                changes += [Change(o, n, turn.timestamp, turn) for o, n in pairs]
            elif use.name == "Bash" and use.ok is not False and use.command:
                changes += [Change(o, n, turn.timestamp, turn) for o, n in command_changes(use.command)]
        if turn.text:
            if turn.role == "user":
                asked = []
            for line in turn.text.splitlines():
                line = _without_open_work(line)
                pairs = _stated_changes(line, previous if turn.role == "user" else "", turn.text)
                changes += [Change(pair[0], pair[1], turn.timestamp, turn, *pair[2:]) for pair in pairs]
                if turn.role == "user" and not pairs:
                    asked += _asked_values(line)  # no earlier value of its kind: the edit that follows may say
            if turn.role == "assistant":
                previous = turn.text
    return list({((c.old or "").lower(), c.new.lower(), c.subject): c for c in changes}.values())


def same_subject_values(text: str, new: str) -> list:
    """Values in `text` of the same subject as `new` but different ("Node 18" for "Node 20")."""
    kind = next((k for k, v in value_kinds(new)), None)
    return [v for k, v in value_kinds(text) if k == kind and not holds_value(v, new)] if kind else []


BESIDE_WORDS = 5  # how close to its subject an older value must be written ("hold the berth for 15 minutes")


def _values_beside(text: str, subject: str, new: str) -> list:
    """Values of `new`'s kind (or dotted versions, for a version) written within a few words after `subject` (or
    its plural) in `text`."""
    kind = next((k for k, v in value_kinds(new)), None)
    subject = subject.lower()
    found = []
    for match in re.finditer(rf"\b{re.escape(subject)}s?\b", text, re.IGNORECASE):
        window = " ".join(text[match.end():].split()[:BESIDE_WORDS + 2])
        if kind is None and DOTTED_VERSION.fullmatch(new):
            values = [v.group(0) for v in DOTTED_VERSION.finditer(window)]
        else:
            values = [v for k, v in value_kinds(window) if k == kind]
        found += [v for v in values if not holds_value(v, new) and v not in found]
    return found


def resolve_open_changes(root, project_id: str, changes) -> list:
    """Changes whose old value was not said ("bump Node to 20") get the values older memories of the project
    state for the same subject ("Node 18"), one change each; changes with no such memory are dropped."""
    out = []
    for change in changes:
        if change.old is not None:
            out.append(change)
            continue
        olds = []
        probe = change.subject or change.new.split()[0]
        for _, content in _older_rows(root, project_id, probe, normalize_timestamp(change.when)):
            said = content.split(TOOLS_LINE, 1)[0]
            found = _values_beside(said, change.subject, change.new) if change.subject else \
                same_subject_values(said, change.new)
            olds += [v for v in found if v not in olds]
        out += [change._replace(old=old) for old in olds]
    return out


def _older_rows(root, project_id: str, probe: str, when: str, *, typed_only: bool = False) -> list:
    """(id, content) of the project's active, unpinned chunks made before `when` whose words hold `probe`."""
    tokens = words(probe.lower())
    conn = connect(root, readonly=True) if tokens else None
    if conn is None:
        return []
    kinds = "AND chunks.kind NOT IN ('turn', 'session') " if typed_only else ""
    try:
        return conn.execute(
            "SELECT chunks.id, chunks.content FROM fts JOIN chunks ON chunks.rowid = fts.rowid WHERE fts MATCH ? "
            "AND chunks.project IS ? AND chunks.status = 'active' AND chunks.pinned = 0 AND chunks.created < ? "
            + kinds + "LIMIT ?", ('"' + " ".join(tokens) + '"', project_id, when, CANDIDATE_ROWS)).fetchall()
    except sqlite3.Error:
        return []
    finally:
        conn.close()


def supersede_stale(store, project_id: str, changes, chunk_of_turn) -> list:
    """Supersede the project's older typed memories (decisions, facts, ...) that still state a changed value (and
    not its new one) by the turn that changed it (`chunk_of_turn(turn)`: its chunk id). Returns (old id, new id,
    old value, new value) tuples."""
    done = []
    for change in changes:
        new_id = chunk_of_turn(change.turn)
        if not new_id or not change.when:
            continue
        when = normalize_timestamp(change.when)
        if change.old is None:
            continue  # resolve_open_changes found no older value to replace
        for old_id in _stale_rows(store.root, project_id, change, when, new_id):
            note = f"replaced {when[:10]}: {change.old} -> {change.new}"
            supersede(store, old_id, new_id, reason=f"{change.old} changed to {change.new}", note=note, when=when)
            done.append((old_id, new_id, change.old, change.new))
    return done


def _stale_rows(root, project_id: str, change, when: str, new_id: str) -> list:
    """Ids of the project's active, unpinned typed memories (not verbatim turns or session records: those are the
    record of what was said, and recall marks the replaced values in them) made before `when` that state the
    change's old value and not its new one."""
    stale = []
    for chunk_id, content in _older_rows(root, project_id, change.old, when, typed_only=True):
        content = content.split(TOOLS_LINE, 1)[0]  # a command run then is history, not a statement of the value
        if chunk_id != new_id and holds_value(content, change.old) and not holds_value(content, change.new):
            stale.append(chunk_id)
    return stale
