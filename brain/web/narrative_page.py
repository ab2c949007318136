"""A project's chapters as a timeline (seed 002), its wisdom beside them, and the causal chain of one memory for its
page. Read through brain/narrative, as `rlm-mem chapters`, `wisdom` and `why` read them."""
from brain.narrative.causes import why
from brain.narrative.chapters import chapters as project_chapters
from brain.narrative.chapters import wisdom as project_wisdom
from brain.web.html import el
from brain.web.parts import View, memory_href, session_href


def chapters(view: View, params: dict) -> tuple:
    """(title, body): the project's wisdom, then its chapters, newest first, each on the timeline with its time
    range, title, summary, learnings and sessions."""
    project = params.get("project") or view.project.id
    found = project_chapters(view.root, project)
    body = [el("h1", {}, "Chapters", el("small", {}, f" {len(found)} in project {project}")),
            _wisdom(view, project_wisdom(view.root, project))]
    if not found:
        body.append(el("p", {"class": "empty"}, "No chapters yet: they are made from the sessions captured here."))
    else:
        body.append(el("ol", {"class": "timeline"}, [_chapter(view, c) for c in reversed(found)]))
    return "Chapters", body


def _span(start: str, end: str) -> str:
    first, last = start[:16].replace("T", " "), end[:16].replace("T", " ")
    return first if first == last else f"{first} – {last if last[:10] != first[:10] else last[11:]}"


def _chapter(view: View, chapter: dict):
    sessions = [el("a", {"href": session_href(view, c)}, c) for c in chapter["conversations"]]
    return el("li", {"class": "chapter", "id": chapter["id"]},
              el("p", {"class": "when"}, el("time", {}, _span(chapter["start"], chapter["end"])),
                 el("span", {"class": "badge"}, f"{len(chapter['sessions'])} session"
                                                 + "s" * (len(chapter["sessions"]) != 1)),
                 el("span", {"class": "badge kind"}, chapter["branch"]) if chapter.get("branch") else None),
              el("h2", {}, chapter["title"]),
              el("p", {"class": "summary"}, chapter["summary"]),
              el("ul", {"class": "learnings"}, [el("li", {}, text) for text in chapter["learnings"]])
              if chapter["learnings"] else None,
              el("p", {"class": "sessions"}, "Sessions: ", [(link, " ") for link in sessions]),
              el("p", {"class": "topics"}, "Topics: " + ", ".join(chapter["topics"][:10])) if chapter["topics"]
              else None)


def _wisdom(view: View, found: dict):
    parts = [el("h2", {}, "Wisdom"), el("p", {"class": "explain"}, found["summary"])]
    if found["recurring_errors"]:
        parts.append(el("h3", {}, "Errors that came back"))
        parts.append(el("ul", {"class": "wisdom"}, [
            el("li", {}, el("strong", {}, f"{e['times']}× "), e["error"],
               el("ul", {}, [el("li", {}, "fixed by: ", fix) for fix in e["fixes"]])) for e in found["recurring_errors"]]))
    for title, key in (("Conventions that held", "conventions"), ("Decisions never reversed", "decisions")):
        if found[key]:
            parts.append(el("h3", {}, title))
            parts.append(el("ul", {"class": "wisdom"}, [
                el("li", {}, el("a", {"href": memory_href(view, item["id"]), "class": "id"}, item["id"][-8:]), " ",
                   item["text"], el("small", {}, f" since {item['since'][:10]}")) for item in found[key]]))
    return el("section", {"class": "wisdom"}, parts)


def causal_chain(view: View, chunk_id: str):
    """The memory page's section: what led to this memory and what it led to (`rlm-mem why`)."""
    answer = why(view.root, chunk_id)
    parts = [el("h2", {}, "Why: causes and effects")]
    if not answer["causes"] and not answer["effects"]:
        parts.append(el("p", {"class": "empty"}, "No causal links: nothing recorded led to it or followed from it."))
    for title, key in (("Because of", "causes"), ("Led to", "effects")):
        if answer[key]:
            parts += [el("h3", {}, title), _tree(view, answer[key])]
    return el("section", {"class": "causal"}, parts)


def _tree(view: View, nodes: list):
    return el("ul", {"class": "chain"}, [
        el("li", {"class": f"cause {node['status']}"},
           el("span", {"class": "badge kind"}, node["link"]), " ",
           el("a", {"href": memory_href(view, node["id"]), "class": "id"}, node["id"][-8:]), " ",
           el("span", {"class": f"badge status {node['status']}"}, node["status"])
           if node["status"] not in ("active", None) else None,
           " ", node["summary"], _tree(view, node["then"]) if node["then"] else None)
        for node in nodes])
