"""What the next session in a project starts with: the LiveHud as it would be drawn, the memory brief the
SessionStart hook would inject now (computed afresh, not the cached one), and the CORE digest."""
from brain.context.project import ProjectInfo
from brain.recall.core import build_core
from brain.session.brief import compute_brief, hud_text
from brain.store import sensitivity
from brain.web import queries
from brain.web.html import el, href
from brain.web.parts import PageError, View, memory_href


class _NewSession:
    """What hud_text reads of a hook's input: a session that has not started has no transcript yet."""

    transcript_path = ""


def next_session(view: View, params: dict) -> tuple:
    project = _project(view, params.get("project", "").strip())
    limit = sensitivity.limit_from_env()
    brief = compute_brief(view.root, project, max_sensitivity=limit)
    core = build_core(view.root, project.id, max_sensitivity=limit)
    projects = queries.totals(view.root)["projects"]
    picker = el("form", {"method": "get", "action": href(view.base, "now"), "class": "filters"},
                el("label", {}, "Project ",
                   el("select", {"name": "project"},
                      [el("option", {"value": p, "selected": p == project.id}, p)
                       for p in dict.fromkeys([project.id, view.project.id] + projects)])),
                el("button", {"type": "submit"}, "Show"))
    body = [el("h1", {}, "Next session in ", el("code", {}, project.name)),
            picker,
            el("section", {"class": "hud"}, el("h2", {}, "LiveHud"),
               el("pre", {"class": "hud"}, hud_text(view.root, _NewSession(), active=False, brief=brief))),
            el("section", {"class": "brief"}, el("h2", {}, "Session-start brief"),
               el("p", {"class": "explain"}, f"What the SessionStart hook would inject now ({brief.get('loaded', 0)} "
                                             f"memories, up to {limit} sensitivity), after the LiveHud above."),
               el("pre", {"class": "brief"}, brief.get("memory") or "rlm-mem: no memories stored yet for this project.")),
            el("section", {"class": "core"}, el("h2", {}, "CORE digest"),
               el("p", {"class": "explain"}, f"{core['items']} memories, {core['tokens']:,} tokens "
                                             "(`rlm-mem core --write` saves it as CORE.md)."),
               [el("div", {}, el("h3", {}, section["title"]),
                   el("ul", {}, [el("li", {}, el("a", {"href": memory_href(view, item["id"])}, item["id"][-8:]),
                                    " ", item["line"][2:].rsplit(" · ", 1)[0])
                                 for item in section["items"]]))
                for section in core["sections"]] or el("p", {"class": "empty"}, "No memories yet."))]
    return f"Next session in {project.name}", body


def _project(view: View, wanted: str) -> ProjectInfo:
    if not wanted or wanted == view.project.id:
        return view.project
    if len(wanted) > 200:
        raise PageError(400, "no project has a name that long")
    return ProjectInfo(wanted, wanted, None, "page")
