"""The LiveHud box (80 columns, reference/livehud.md) and the one-line status line. Stdlib only: every session start
renders it."""
from brain.hud.sliders import CUSTOM_VIBE, SLIDERS, VIBES, norm
from brain.hud.textwidth import display_width, pad, truncate
from brain.util.text import one_line

WIDTH = 80
INNER = WIDTH - 2  # between the two ║
BAR_CELLS = 20  # one cell per 5%
# 👀 rather than the protocol's 👁️: an emoji with a variation selector is drawn one column narrow by many
# terminals, and the box's right edge then breaks; 👀 is two columns everywhere (so is the Morality slider's 😇).
PRESENT_EMOJI = "👀"
_SESSION = {True: "Active", False: "New", None: "None"}

_NO_ACCESS = {"no_tool_access": "No tool access", "no_access": "No tool access", "no_memory_access": "No tool access",
              "inaccessible": "Inaccessible", "unavailable": "Inaccessible"}


def _first_sentence(text: str) -> str:
    """Up to the first ".", "!", "?" or ";" that a space follows (the text is already on one line)."""
    for i, ch in enumerate(text[:-1]):
        if ch in ".!?;" and text[i + 1] == " ":
            return text[: i + 1]
    return text


def gauge_words(text: str, lo: int = 3, hi: int = 9) -> str:
    """Gauge text of at most `hi` words on one line.

    If the first sentence has between `lo` and `hi` words it is used alone (a whole thought reads better than a
    cut one); otherwise the first `hi` words, with "…" when words were dropped. Shorter text is kept as it is.
    """
    text = one_line(text)
    first = _first_sentence(text)
    if first != text and lo <= len(first.split()) <= hi:
        return first.rstrip(".;")
    words = text.split()
    if len(words) <= hi:
        return text
    return " ".join(words[:hi]).rstrip(".,;:") + "…"


def _memory_status_text(memory_status):
    if memory_status is None:
        return None
    key = norm(memory_status)
    if key in ("", "ok", "available"):
        return None
    return _NO_ACCESS.get(key, "Inaccessible")


def vibe_for(mode: str) -> str:
    return VIBES.get(mode, CUSTOM_VIBE)


def bar(value: int) -> str:
    filled = max(0, min(BAR_CELLS, int(value) // 5))
    return "█" * filled + "░" * (BAR_CELLS - filled)


def _line(content: str = "") -> str:
    return "║" + pad(" " + content, INNER) + "║"


def _field(label: str, width: int) -> str:
    return label + " " * max(0, width - display_width(label))


def _slider_rows(state: dict) -> list:
    label_width = max(len(s.label) for s in SLIDERS)
    rows = []
    for i, s in enumerate(SLIDERS):
        branch = "└─" if i == len(SLIDERS) - 1 else "├─"
        value = state["sliders"].get(s.key, s.default)
        rows.append(f" {branch} {_field(s.emoji, 2)} {_field(s.label, label_width)}  [{bar(value)}]"
                    f"  {value:>6}%  {s.default:>6}%")
    # The header's column titles end where the two percentage columns end.
    prefix = rows[0][: rows[0].index("]") + 1]
    header = _field(" COGNITIVE SLIDERS", display_width(prefix)) + "  Current  Default"
    return [header] + rows


def _gauge_row(branch: str, emoji: str, name: str, text: str) -> str:
    head = f" {branch} {_field(emoji, 2)} {_field(name + ':', 8)} "
    return head + truncate(text, INNER - 2 - display_width(head))


def render_hud(*, session_active, state: dict, past: str, present: str, future: str, loaded, pending,
               context: str = "Stable", tools: str = "Standby", vibe: str = None, memory_status: str = None,
               sync_note: str = None) -> str:
    """The full LiveHud box: every line exactly 80 terminal columns. `session_active`: True "Active", False "New",
    None "None" (drawn outside a session). `sync_note`: "sync behind" when the last sync failed."""
    mode = state.get("mode") or "Base"
    no_access = _memory_status_text(memory_status)
    if no_access:
        past_text = "No memory access"
    elif not one_line(past) or loaded == 0:
        past_text = "Fresh session"
    else:
        past_text = gauge_words(past)
    present_text = gauge_words(present) if one_line(present) else \
        ("No session under way" if session_active is None else "Awaiting the first task")
    future_text = gauge_words(future) if one_line(future) else "No next step recorded"
    memory_text = no_access or f"{loaded or 0} files loaded │ {pending or 0} pending write"
    if sync_note:
        memory_text += f" │ ⚠ {one_line(sync_note)}"
    rule = "═" * INNER
    lines = [
        "╔" + rule + "╗",
        "║" + _center("◈ RLM-MEM LIVEHUD ◈", INNER) + "║",
        _line(f" Session: {_SESSION[session_active]}  │  Mode: {one_line(mode)}"),
        "╠" + rule + "╣",
        *(_line(row) for row in _slider_rows(state)),
        "╠" + rule + "╣",
        _line(" MEMORY PROTOCOL"),
        _line(_gauge_row("├─", "🧠", "Past", past_text)),
        _line(_gauge_row("├─", PRESENT_EMOJI, "Present", present_text)),
        _line(_gauge_row("└─", "🔮", "Future", future_text)),
        "╠" + rule + "╣",
        _line(" SYSTEM STATE"),
        _line(f" ├─ 💾 Context: {truncate(one_line(context) or 'Stable', 20)}  │  "
              f"🔧 Tools: {truncate(one_line(tools) or 'Standby', 20)}"),
        _line(f" ├─ 📂 Memory:  {memory_text}"),
        _line(f" └─ ⚡ Vibe:    {one_line(vibe) or vibe_for(mode)}"),
        "╚" + rule + "╝",
    ]
    return "\n".join(lines)


def _center(text: str, width: int) -> str:
    left = (width - display_width(text)) // 2
    return pad(" " * left + text, width)


def render_statusline(state: dict, loaded, pending, past: str, max_width: int = 120, sync_note: str = None) -> str:
    """One line for Claude Code's status line: mode, memory counts (and "sync behind" when the last sync failed)
    and the Past gauge, at most 120 columns."""
    mode = one_line(state.get("mode")) or "Base"
    if loaded is None:
        memory = "🧠 no memory access"
    else:
        memory = f"🧠 {loaded} loaded · {pending or 0} pending"
    if sync_note:
        memory += f" · {one_line(sync_note)}"
    line = f"◈ RLM-MEM │ Mode: {mode} │ {memory}"
    past_text = gauge_words(past) if one_line(past) else ""
    if past_text:
        line += f" │ Past: {past_text}"
    return truncate(line, max_width)
