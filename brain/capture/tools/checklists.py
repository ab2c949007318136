"""Open items of the Markdown checklists a session kept: `- [ ] item` lines, left open when the session ended.

A TODO.md the person and Claude keep is the project's list of open work in a file format, whatever words its
items use: the session record's follow-ups take the items still unchecked in the text the session last knew of
each list it read, wrote or edited (a file named as a list: TODO.md, TASKS.md, ROADMAP.md, BACKLOG.md,
CHECKLIST.md, PLAN.md; its text from a Write, a Read, or an Edit applied to what a Read or Claude Code's
originalFile gave; of a list known only by an edit's fragments, the fragments' items). Checked items (`- [x]`)
are done: none is kept.
"""
from brain.capture.tools.files import FileTexts

LIST_NAMES = ("todo", "todos", "tasks", "roadmap", "backlog", "checklist", "plan")  # a list, by its file name
MAX_ITEMS = 8


def is_checklist(path) -> bool:
    """Whether `path` is a Markdown file named as a list of work (TODO.md, docs/ROADMAP.md)."""
    if not path or not path.lower().endswith((".md", ".markdown")):
        return False
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name.split(".", 1)[0].strip("_-") in LIST_NAMES


def open_items(text: str) -> list:
    """The unchecked items of a Markdown text, in order (`- [ ] item`, `* [ ] item`, `1. [ ] item`)."""
    items = []
    for line in text.splitlines():
        stripped = line.strip()
        marker, _, rest = stripped.partition(" ")
        if marker in ("-", "*", "+") or (marker[:-1].isdigit() and marker[-1:] in ".)"):
            if rest.startswith("[ ] ") and rest[4:].strip():
                items.append(rest[4:].strip())
    return items


def open_checklist_items(uses) -> list:
    """The items still open in the checklists the session's tool calls wrote, edited or read (module doc)."""
    texts, fragments, touched = FileTexts(), {}, []
    for use in uses:
        path = use.file_path
        if not is_checklist(path) or use.ok is False or use.name not in ("Write", "Edit", "MultiEdit", "Read"):
            continue
        if texts.after(path, use) is None and use.name in ("Edit", "MultiEdit"):
            fragments[path] = [item for _, new, _ in use.edits for item in open_items(new)]
        else:
            fragments.pop(path, None)
        if path not in touched:
            touched.append(path)
    items = []
    for path in touched:
        known = texts.known(path)
        items += open_items(known) if known is not None else fragments.get(path, [])
    return list(dict.fromkeys(items))[:MAX_ITEMS]
