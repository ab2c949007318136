"""Coding histories as data: read one history's YAML file, check it, and give its sessions as the turns
tests/harness/transcripts.py writes.

The format (bench/README.md, "The history format"): `name`, `project`, `about`, `sessions` (each `id`, `days_ago`
and `turns`: `user: TEXT`, or `assistant: TEXT` with optional `tools`: bash, edit, multiedit, write, notebook,
read, todo), `questions` (`ask`, `answers`, optional `stale`), `changes` (`what`, `old`, `new`, `how`) and
`brief` (`holds`, `stale`). Every answers / stale / old / new / brief string must occur in the history's own text
(case-insensitive, whitespace collapsed), or nothing could ever find it.

    from coding.histories import load
    history = load("ledger")                 # bench/coding/ledger.yaml, or a path to any history's YAML file
    for session_id, days_ago, turns in history.sessions: ...
"""
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from harness.transcripts import Assistant, Bash, Edit, MultiEdit, NotebookEdit, Read, Todo, User, Write

FOLDER = Path(__file__).resolve().parent
CHANGE_HOWS = ("edit", "new file", "command output", "words")
TODO_STATUSES = ("pending", "in_progress", "completed")
NOTEBOOK_MODES = ("replace", "insert", "delete")
NAME = re.compile(r"[a-z][a-z0-9_-]*\Z")
SESSION_ID = re.compile(r"[a-z0-9][a-z0-9-]*\Z")
# Each tool: its key (whose value is its main string) and the other keys it may have, with their kinds.
TOOLS = {
    "bash": {"output": str, "ok": bool},
    "edit": {"old": str, "new": str},
    "multiedit": {"edits": list},
    "write": {"content": str},
    "notebook": {"cell": str, "source": str, "mode": str, "cell_type": str},
    "read": {"output": str},
    "todo": {},
}
TOP = {"name": str, "project": str, "about": str, "sessions": list, "questions": list, "changes": list, "brief": dict}


class HistoryError(ValueError):
    """A history file that cannot be used; `problems` lists every reason found."""

    def __init__(self, path, problems: list):
        super().__init__(f"{path}: " + "; ".join(problems))
        self.path, self.problems = path, problems


@dataclass
class Question:
    ask: str
    answers: list
    stale: list = field(default_factory=list)


@dataclass
class Change:
    what: str
    old: str
    new: str
    how: str


@dataclass
class History:
    name: str
    project: str
    about: str
    sessions: list  # (session id, days ago, [User | Assistant turns])
    questions: list  # [Question]
    changes: list  # [Change]
    brief_holds: list  # [(spelling, alternative spelling, ...)]: one found suffices
    brief_stale: list
    path: Path
    texts: list = field(default_factory=list, repr=False)  # every string the sessions hold, flattened


def available(folder: Path = FOLDER) -> list:
    """Names of the histories in `folder` (its *.yaml files), sorted."""
    return sorted(p.stem for p in folder.glob("*.yaml"))


def locate(ref: str, folder: Path = FOLDER) -> Path:
    """A history's file: `ref` is a name in `folder` (ledger) or a path to a YAML file anywhere."""
    if ref.endswith((".yaml", ".yml")) or "/" in ref:
        return Path(ref).expanduser().resolve()
    return folder / f"{ref}.yaml"


def load(ref: str, folder: Path = FOLDER) -> History:
    """The history `ref` names (see `locate`), checked; raises HistoryError listing what is wrong."""
    path = locate(ref, folder)
    if not path.is_file():
        known = ", ".join(available(folder)) or "none"
        raise HistoryError(path, [f"no such history file (histories in {folder}: {known})"])
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise HistoryError(path, [f"not readable as YAML: {' '.join(str(exc).split())}"]) from None
    problems = []
    history = _build(data, path, problems)
    if not problems:
        problems += unfindable(history)
    if problems:
        raise HistoryError(path, problems)
    return history


def flat(text: str) -> str:
    """Lower case, whitespace collapsed: how every answer, stale value and brief item is matched."""
    return " ".join(text.lower().split())


def unfindable(history: History) -> list:
    """Problems for every answers / stale / old / new / brief string that no text of the history holds."""
    texts = [flat(t) for t in history.texts]
    wanted = []
    for n, q in enumerate(history.questions):
        wanted += [(f"questions[{n}].answers", v) for v in q.answers]
        wanted += [(f"questions[{n}].stale", v) for v in q.stale]
    for n, c in enumerate(history.changes):
        wanted += [(f"changes[{n}].old", c.old), (f"changes[{n}].new", c.new)]
    for n, alternatives in enumerate(history.brief_holds):
        wanted += [(f"brief.holds[{n}]", v) for v in alternatives]
    wanted += [("brief.stale", v) for v in history.brief_stale]
    return [f"{where} {value!r} occurs nowhere in the history's turns or tool calls" for where, value in wanted
            if not any(flat(value) in t for t in texts)]


# --- reading and checking ------------------------------------------------------------------------------------

def _kind(value) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return f"a number ({value!r}: quote it)"
    names = {str: "a string", list: "a list", dict: "a mapping", type(None): "empty"}
    return names.get(type(value), type(value).__name__)


def _expect(value, kind, where: str, problems: list) -> bool:
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return True
    wanted = {str: "a string", int: "a whole number", bool: "true or false", list: "a list", dict: "a mapping"}[kind]
    problems.append(f"{where} should be {wanted}, not {_kind(value)}")
    return False


def _keys(mapping: dict, allowed, required, where: str, problems: list) -> None:
    for key in mapping:
        if key not in allowed:
            problems.append(f"{where} has an unknown key {key!r} (allowed: {', '.join(allowed)})")
    for key in required:
        if key not in mapping:
            problems.append(f"{where} lacks {key!r}")


def _strings(value, where: str, problems: list, *, empty_ok: bool = True) -> list:
    if not _expect(value, list, where, problems):
        return []
    if not empty_ok and not value:
        problems.append(f"{where} is empty")
    strings = []
    for n, v in enumerate(value):
        if _expect(v, str, f"{where}[{n}]", problems):
            if v.strip():
                strings.append(v)
            else:
                problems.append(f"{where}[{n}] is empty")
    return strings


def _build(data, path: Path, problems: list) -> History | None:
    if not isinstance(data, dict):
        problems.append(f"the file should hold one mapping (name, project, sessions, ...), not {_kind(data)}")
        return None
    _keys(data, TOP, ("name", "project", "sessions", "questions"), "the history", problems)
    for key, kind in TOP.items():
        if key in data:
            _expect(data[key], kind, key, problems)
    name, project = data.get("name"), data.get("project")
    if isinstance(name, str) and not NAME.match(name):
        problems.append(f"name {name!r} should be one lowercase word")
    elif isinstance(name, str) and name != path.stem:
        problems.append(f"name {name!r} should be the file's name ({path.stem}.yaml holds {name}.yaml's history)")
    if isinstance(project, str) and not project.strip():
        problems.append("project is empty")
    texts = []
    sessions = _sessions(data.get("sessions"), texts, problems)
    questions = _questions(data.get("questions"), problems)
    changes = _changes(data.get("changes", []), problems)
    holds, stale = _brief(data.get("brief", {}), problems)
    if problems:
        return None
    return History(name, project, data.get("about", ""), sessions, questions, changes, holds, stale, path, texts)


def _sessions(value, texts: list, problems: list) -> list:
    if not isinstance(value, list):
        return []
    if not value:
        problems.append("sessions is empty")
    sessions, seen, last = [], set(), None
    for n, session in enumerate(value):
        where = f"sessions[{n}]"
        if not _expect(session, dict, where, problems):
            continue
        _keys(session, ("id", "days_ago", "turns"), ("id", "days_ago", "turns"), where, problems)
        sid, days, turns = session.get("id"), session.get("days_ago"), session.get("turns")
        if "id" in session and _expect(sid, str, f"{where}.id", problems):
            if not SESSION_ID.match(sid):
                problems.append(f"{where}.id {sid!r} should be lowercase letters, digits and hyphens")
            if sid in seen:
                problems.append(f"{where}.id {sid!r} is used twice")
            seen.add(sid)
            where = f"session {sid}"
        if "days_ago" in session and _expect(days, int, f"{where}.days_ago", problems):
            if days < 0:
                problems.append(f"{where}.days_ago is negative")
            elif last is not None and days >= last:
                problems.append(f"{where}.days_ago {days} is not before the previous session's {last} "
                                "(sessions go in time order)")
            last = days
        if "turns" in session and _expect(turns, list, f"{where}.turns", problems):
            if not turns:
                problems.append(f"{where}.turns is empty")
            built = [_turn(turn, f"{where}.turns[{k}]", texts, problems) for k, turn in enumerate(turns)]
            sessions.append((sid, days, built))
    return sessions


def _turn(turn, where: str, texts: list, problems: list):
    if not _expect(turn, dict, where, problems):
        return None
    if "user" in turn:
        _keys(turn, ("user",), (), where, problems)
        if _expect(turn["user"], str, f"{where}.user", problems):
            texts.append(turn["user"])
            return User(turn["user"])
        return None
    if "assistant" not in turn:
        problems.append(f"{where} should start with user: or assistant:")
        return None
    _keys(turn, ("assistant", "tools"), (), where, problems)
    text = turn["assistant"] if turn["assistant"] is not None else ""
    if not _expect(text, str, f"{where}.assistant", problems):
        return None
    texts.append(text)
    tools = turn.get("tools", [])
    if not _expect(tools, list, f"{where}.tools", problems):
        return None
    if not text and not tools:
        problems.append(f"{where} has neither text nor tools")
    return Assistant(text, [_tool(tool, f"{where}.tools[{n}]", texts, problems) for n, tool in enumerate(tools)])


def _tool(tool, where: str, texts: list, problems: list):
    if not _expect(tool, dict, where, problems):
        return None
    named = [key for key in TOOLS if key in tool]
    if len(named) != 1:
        problems.append(f"{where} should name exactly one tool ({', '.join(TOOLS)}), not "
                        f"{', '.join(named) or 'none'} (its keys: {', '.join(map(str, tool))})")
        return None
    kind = named[0]
    _keys(tool, (kind, *TOOLS[kind]), (), where, problems)
    before = len(problems)
    for key, expected in TOOLS[kind].items():
        if key in tool:
            _expect(tool[key], expected, f"{where}.{key}", problems)
    if kind == "todo":
        items = _todo(tool[kind], where, problems)
        texts.extend(content for content, _ in items)
        return Todo(items) if len(problems) == before else None
    main = tool[kind]
    if not _expect(main, str, f"{where}.{kind}", problems) or len(problems) > before:
        return None
    strings = {key: value for key, value in tool.items() if isinstance(value, str)}
    texts.extend(strings.values())
    if kind == "bash":
        return Bash(main, strings.get("output", ""), tool.get("ok", True))
    if kind == "edit":
        return Edit(main, strings.get("old", ""), strings.get("new", ""))
    if kind == "write":
        return Write(main, strings.get("content", ""))
    if kind == "read":
        return Read(main, strings.get("output", ""))
    if kind == "multiedit":
        edits = _edits(tool.get("edits"), f"{where}.edits", problems)
        texts.extend(text for pair in edits for text in pair)
        return MultiEdit(main, edits)
    mode = tool.get("mode", "replace")
    if mode not in NOTEBOOK_MODES:
        problems.append(f"{where}.mode should be one of {', '.join(NOTEBOOK_MODES)}, not {mode!r}")
        return None
    if "cell" not in tool:
        problems.append(f"{where} lacks 'cell' (the cell's id)")
        return None
    return NotebookEdit(main, tool["cell"], strings.get("source", ""), mode, strings.get("cell_type", "code"))


def _edits(value, where: str, problems: list) -> list:
    if value is None:
        problems.append(f"{where[:-len('.edits')]} lacks 'edits'")
        return []
    if not value:
        problems.append(f"{where} is empty")
    pairs = []
    for n, edit in enumerate(value):
        if not _expect(edit, dict, f"{where}[{n}]", problems):
            continue
        _keys(edit, ("old", "new"), ("old", "new"), f"{where}[{n}]", problems)
        if all(_expect(edit.get(key, ""), str, f"{where}[{n}].{key}", problems) for key in ("old", "new")):
            pairs.append((edit.get("old", ""), edit.get("new", "")))
    return pairs


def _todo(value, where: str, problems: list) -> list:
    if not _expect(value, list, f"{where}.todo", problems):
        return []
    items = []
    for n, item in enumerate(value):
        here = f"{where}.todo[{n}]"
        if not isinstance(item, list) or len(item) != 2 or not all(isinstance(v, str) for v in item):
            problems.append(f"{here} should be [\"content\", \"status\"], not {item!r}")
        elif item[1] not in TODO_STATUSES:
            problems.append(f"{here} status {item[1]!r} should be one of {', '.join(TODO_STATUSES)}")
        else:
            items.append(tuple(item))
    return items


def _questions(value, problems: list) -> list:
    if not isinstance(value, list):
        return []
    if not value:
        problems.append("questions is empty")
    questions = []
    for n, q in enumerate(value):
        where = f"questions[{n}]"
        if not _expect(q, dict, where, problems):
            continue
        _keys(q, ("ask", "answers", "stale"), ("ask", "answers"), where, problems)
        if _expect(q.get("ask", ""), str, f"{where}.ask", problems):
            questions.append(Question(q.get("ask", ""), _strings(q.get("answers", []), f"{where}.answers", problems,
                                                                empty_ok=False),
                                      _strings(q.get("stale", []), f"{where}.stale", problems)))
    return questions


def _changes(value, problems: list) -> list:
    if not isinstance(value, list):
        return []
    changes = []
    for n, c in enumerate(value):
        where = f"changes[{n}]"
        if not _expect(c, dict, where, problems):
            continue
        _keys(c, ("what", "old", "new", "how"), ("what", "old", "new", "how"), where, problems)
        if all(_expect(c.get(key, ""), str, f"{where}.{key}", problems) for key in ("what", "old", "new", "how")):
            if c.get("how", "") not in CHANGE_HOWS:
                problems.append(f"{where}.how should be one of {', '.join(CHANGE_HOWS)}, not {c.get('how')!r}")
            changes.append(Change(c.get("what", ""), c.get("old", ""), c.get("new", ""), c.get("how", "")))
    return changes


def _brief(value, problems: list) -> tuple:
    if not isinstance(value, dict):
        return [], []
    _keys(value, ("holds", "stale"), (), "brief", problems)
    holds = []
    items = value.get("holds", [])
    for n, item in enumerate(items if _expect(items, list, "brief.holds", problems) else []):
        where = f"brief.holds[{n}]"
        if isinstance(item, list):  # alternative spellings: one found suffices
            alternatives = tuple(_strings(item, where, problems, empty_ok=False))
        elif _expect(item, str, where, problems) and item.strip():
            alternatives = (item,)
        else:
            alternatives = ()
            if isinstance(item, str):
                problems.append(f"{where} is empty")
        if alternatives:
            holds.append(alternatives)
    return holds, _strings(value.get("stale", []), "brief.stale", problems)
