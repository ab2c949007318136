"""Session records as chapters and wisdom read them: when, what was asked, how it ended, which files and branch,
the words of its topic. From a record's five layers (metadata.layers) when it has them, else from its text
("Intent: ...", "Outcome: ...") and metadata.files, as records made before the layers were kept."""
from collections import Counter
from dataclasses import dataclass, field

from brain.store import sensitivity
from brain.store.layout import StoreLayout
from brain.util.text import STOPWORDS, clip, first_sentence, sentences, words

# Branches that say nothing about a topic: every piece of work passes through them.
TRUNKS = frozenset({"main", "master", "trunk", "develop", "dev", "head"})
# Words too common in a coding session's request to tell two topics apart.
_WORK_WORDS = frozenset("""fix fixed fixing add added adding make made run ran running test tests use using
update updated change changed work working file files code please now need needs want try again also new
check look see can could would should let write wrote""".split())
_TOPIC_WORDS = 12
# What chapters and wisdom may quote: nothing more private than what the hooks inject by default (an SQL list).
SHOWN_LEVELS = "(" + ", ".join(f"'{level}'" for level in sensitivity.allowed(sensitivity.DEFAULT_LIMIT)) + ")"


@dataclass
class SessionView:
    id: str  # the record's chunk id
    conversation: str | None
    project: str | None
    started: str
    ended: str
    goal: str
    outcome: str
    files: tuple = ()  # changed, then read
    branch: str | None = None
    words: Counter = field(default_factory=Counter)
    learnings: tuple = ()
    success: bool | None = None


def topic_words(text: str) -> Counter:
    """The words that say what a text is about: no stopwords, no words every session uses, no numbers."""
    found = Counter()
    for word in words(text.lower()):
        if len(word) > 2 and not word.isdigit() and word not in STOPWORDS and word not in _WORK_WORDS:
            found[word] += 1
    return found


def _field(content: str, name: str) -> str:
    """A record's "Name: value." field from its text (records without layers)."""
    marker = f"{name}: "
    at = content.find(marker)
    if at < 0:
        return ""
    rest = content[at + len(marker):]
    ends = [rest.find(f" {other}: ") for other in ("Files changed", "Files read", "Commands", "Outcome",
                                                    "Follow-ups", "Rewound")]
    ends = [e for e in ends if e >= 0]
    return rest[:min(ends)].strip() if ends else rest.strip()


def file_name(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def view_of(chunk: dict) -> SessionView:
    """One session record (a chunk dict) as chapters read it."""
    md, content = chunk["metadata"], chunk["content"]
    layers = md.get("layers") if isinstance(md.get("layers"), dict) else {}
    intent, outcome = layers.get("intent") or {}, layers.get("outcome") or {}
    perception, actions = layers.get("perception") or {}, layers.get("actions") or {}
    goal = intent.get("goal") or _field(content, "Intent")
    result = outcome.get("summary") or _field(content, "Outcome")
    changed = list(actions.get("files_changed") or md.get("files") or ())
    files = tuple(dict.fromkeys(changed + list(perception.get("files_read") or ())))
    topic = topic_words(goal)
    for path in changed:  # a file worked on says more about the topic than a word said once
        for word in topic_words(file_name(path).replace(".", " ").replace("_", " ").replace("-", " ")):
            topic[word] += 2
    return SessionView(id=chunk["id"], conversation=md.get("conversation_id"), project=md.get("project"),
                       started=md["created"], ended=md.get("ended") or md["created"], goal=goal, outcome=result,
                       files=files, branch=intent.get("branch"), words=topic,
                       learnings=tuple(outcome.get("learnings") or ()), success=outcome.get("success"))


def session_views(root, conn, project, *, after_rowid: int = 0) -> list:
    """The project's session records (every project's when `project` is None) indexed after `after_rowid`,
    oldest first, as (rowid, SessionView). Retracted records, and records more private than the hooks inject
    by default, are left out."""
    sql = (f"SELECT rowid, id FROM chunks WHERE kind='session' AND rowid > ? AND status != 'retracted' "
           f"AND sensitivity IN {SHOWN_LEVELS}")
    params = [after_rowid]
    if project is not None:
        sql += " AND project IS ?"
        params.append(project)
    layout = StoreLayout(root)
    out = []
    for rowid, chunk_id in conn.execute(sql + " ORDER BY created, id", params).fetchall():
        data = layout.read_chunk(chunk_id)
        if data is not None:
            out.append((rowid, view_of(data)))
    return out


def first_words(text: str, limit: int) -> str:
    """The first sentence of `text`, at most `limit` characters."""
    return clip(first_sentence(text) or text, limit)


def last_words(text: str, limit: int) -> str:
    """The last sentence of `text` (how a reply ended), at most `limit` characters."""
    parts = sentences(text)
    return clip(parts[-1] if parts else text, limit)


def top_words(counter: Counter, n: int = _TOPIC_WORDS) -> list:
    return [w for w, _ in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]
