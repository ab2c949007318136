"""The LiveHud: slider/mode state, the slider commands a person types, and the 80-column box.

Formats follow /reference/livehud.md. State lives at `<memory root>/state/hud.json`:
`{"mode": "Base", "sliders": {"Verbosity_Boost": 28, ...}}`. A hook renders the HUD on every session start, so
this module imports only the stdlib (no `json`/`re` until a slider command needs them) and never raises on a missing or damaged state file.
"""
import math
import os
from collections import namedtuple

from brain.util import fastjson
from brain.util.files import atomic_write_json
from brain.hud.textwidth import display_width, pad, truncate

WIDTH = 80
INNER = WIDTH - 2  # between the two ║
BAR_CELLS = 20  # one cell per 5%


Slider = namedtuple("Slider", "key label emoji default")  # not a dataclass: hooks import this module


SLIDERS = (
    Slider("Verbosity_Boost", "Verbosity", "🔊", 28),
    Slider("Humor_Amp", "Humor", "😂", 45),
    Slider("Creativity_Pulse", "Creativity", "🎨", 55),
    Slider("Morality_Compass", "Morality", "⚖️", 60),
    Slider("Directness_Filter", "Directness", "🎯", 65),
    Slider("Tech_Depth", "Technicality", "🔬", 50),
)
DEFAULTS = {s.key: s.default for s in SLIDERS}

# Each mode sets these sliders; every other slider goes back to its default.
MODES = {
    "Base": {},
    "Research": {"Tech_Depth": 85, "Directness_Filter": 75, "Humor_Amp": 25},
    "Creative": {"Creativity_Pulse": 90, "Humor_Amp": 70, "Verbosity_Boost": 60},
    "Technical": {"Tech_Depth": 90, "Directness_Filter": 80, "Humor_Amp": 15},
    "Concise": {"Verbosity_Boost": 15, "Directness_Filter": 85},
}
CUSTOM_MODE = "Custom"
VIBES = {"Base": "Direct", "Research": "Analytical", "Creative": "Creative", "Technical": "Focused",
         "Concise": "Direct"}
CUSTOM_VIBE = "Elevated"


def _norm(name: str) -> str:
    return "_".join(str(name).strip().lower().replace("-", " ").replace("_", " ").split())


_BY_NAME = {}
for _s in SLIDERS:
    _BY_NAME[_norm(_s.key)] = _s
    _BY_NAME[_norm(_s.label)] = _s


def slider_for(name: str) -> Slider:
    """The slider called `name` (label or key, any case; "humor", "Humor_Amp"). ValueError if there is none."""
    try:
        return _BY_NAME[_norm(name)]
    except KeyError:
        known = ", ".join(s.label for s in SLIDERS)
        raise ValueError(f"unknown slider {name!r}; sliders are {known}") from None


def _mode_values(mode: str) -> dict:
    return {**DEFAULTS, **MODES[mode]}


# --- state ----------------------------------------------------------------------------------------------------

def default_state() -> dict:
    return {"mode": "Base", "sliders": dict(DEFAULTS)}


def state_path(root) -> str:
    return os.path.join(os.fspath(root), "state", "hud.json")


def load_hud_state(root) -> dict:
    """The saved state, or defaults for anything missing, damaged or out of range (never raises)."""
    state = default_state()
    try:
        with open(state_path(root), encoding="utf-8") as fh:
            raw = fastjson.loads(fh.read())
    except (OSError, ValueError):
        return state
    if not isinstance(raw, dict):
        return state
    sliders = raw.get("sliders")
    if isinstance(sliders, dict):
        for key, value in sliders.items():
            try:
                state["sliders"][slider_for(key).key] = _percent(value)
            except ValueError:
                continue  # an unknown key or a bad number: keep the default for that slider
    mode = raw.get("mode")
    if isinstance(mode, str) and mode.strip():
        state["mode"] = _canonical_mode(mode) or CUSTOM_MODE
    return state


def save_hud_state(root, state: dict) -> None:
    """Write the state atomically (temp file, fsync, os.replace), creating `<root>/state/` if needed."""
    sliders = state.get("sliders", {})
    clean = {"mode": state.get("mode", "Base"), "sliders": {s.key: sliders.get(s.key, s.default) for s in SLIDERS}}
    atomic_write_json(state_path(root), clean)


def _percent(value) -> int:
    """0–100 from an int, float or "70"/"70%"; out-of-range numbers are clamped, non-numbers are a ValueError."""
    if isinstance(value, bool):
        raise ValueError(f"not a percentage: {value!r}")
    if isinstance(value, str):
        text = value.strip().rstrip("%").strip()
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"not a percentage: {value!r}") from None
    if not isinstance(value, (int, float)) or math.isnan(value):
        raise ValueError(f"not a percentage: {value!r}")
    return int(round(min(100.0, max(0.0, float(value)))))


def _canonical_mode(mode: str):
    wanted = mode.strip().lower()
    if wanted == CUSTOM_MODE.lower():
        return CUSTOM_MODE
    return next((m for m in MODES if m.lower() == wanted), None)


def _settle_mode(state: dict) -> dict:
    # After a manual change the mode is whichever preset the values now equal, else Custom.
    state["mode"] = next((m for m in MODES if _mode_values(m) == state["sliders"]), CUSTOM_MODE)
    return state


def set_slider(state: dict, name: str, n) -> dict:
    """Set one slider (clamped to 0–100); ValueError for an unknown slider or a value that is not a number."""
    slider = slider_for(name)
    state["sliders"][slider.key] = _percent(n)
    return _settle_mode(state)


def apply_mode(state: dict, mode: str) -> dict:
    """Switch to a preset mode (Base, Research, Creative, Technical, Concise; any case)."""
    canonical = _canonical_mode(mode)
    if canonical is None or canonical == CUSTOM_MODE:
        raise ValueError(f"unknown mode {mode!r}; modes are {', '.join(MODES)}")
    state["sliders"] = _mode_values(canonical)
    state["mode"] = canonical
    return state


def reset(state: dict) -> dict:
    """All sliders back to their defaults (Base mode)."""
    return apply_mode(state, "Base")


# --- commands typed in a prompt --------------------------------------------------------------------------------

def _alternation(names) -> str:
    # Longest first so "tech_depth" wins over "tech"; underscores may be typed as spaces or hyphens.
    import re

    return "|".join(re.escape(n).replace("_", r"[\s_\-]") for n in sorted(names, key=len, reverse=True))


_PATTERNS = {}


def _patterns() -> dict:
    """The command regexes, compiled on first use: rendering the HUD (every session start) never needs them."""
    if not _PATTERNS:
        import re  # only prompts that may hold a slider command get here

        slider_names = _alternation([s.label.lower() for s in SLIDERS] + [s.key.lower() for s in SLIDERS])
        mode_names = _alternation([m.lower() for m in MODES])
        _PATTERNS.update(
            set=re.compile(
                rf"set\s+(?:the\s+)?(?P<name>{slider_names})(?:\s+slider)?\s*(?:to|at|=)\s*"
                r"(?P<n>\d{1,3}(?:\.\d+)?)\s*(?:%|percent)?"),
            extreme=re.compile(
                rf"(?P<op>max|min)(?:imum|imize|imise)?\s+(?:the\s+)?(?P<name>{slider_names})(?:\s+slider)?"),
            reset=re.compile(r"reset\s+(?:the\s+|all\s+)?(?:cognitive\s+)?sliders?(?:\s+to\s+defaults?)?"),
            mode=re.compile(
                rf"(?:(?:switch|change|go)\s+(?:back\s+)?(?:to|into)\s+|(?:use|enable|activate|enter)\s+)?"
                rf"(?:the\s+)?(?P<mode>{mode_names})\s+mode"),
            # A command must be a whole clause: this keeps "set up the database to 5 replicas" or "creative mode
            # in Minecraft" from moving a slider. Clauses end at sentence punctuation, commas, new lines, "and".
            clause=re.compile(r"[.!?](?=\s|$)|[;,\n]+|\s+(?:and|then|&)\s+"),
            polite_head=re.compile(
                r"^(?:(?:please|pls|ok(?:ay)?|now|also|then|and|hey|kindly|(?:can|could|would)\s+you)[\s,]+)+"),
            polite_tail=re.compile(r"(?:[\s,]+(?:please|pls|thanks|thank\s+you))+$"),
        )
    return _PATTERNS


def parse_slider_commands(prompt: str) -> list:
    """Slider commands in a prompt, in order, as ("set", key, n), ("reset",) or ("mode", name) tuples.

    "Max X" / "Min X" become ("set", key, 100) / ("set", key, 0).
    """
    actions = []
    pat = _patterns()
    for clause in pat["clause"].split((prompt or "").lower()):
        clause = pat["polite_tail"].sub("", pat["polite_head"].sub("", clause.strip())).strip(" \t\"'`*:")
        if not clause:
            continue
        if m := pat["set"].fullmatch(clause):
            actions.append(("set", slider_for(m["name"]).key, _percent(m["n"])))
        elif m := pat["extreme"].fullmatch(clause):
            actions.append(("set", slider_for(m["name"]).key, 100 if m["op"] == "max" else 0))
        elif pat["reset"].fullmatch(clause):
            actions.append(("reset",))
        elif m := pat["mode"].fullmatch(clause):
            actions.append(("mode", _canonical_mode(m["mode"])))
    return actions


def apply_commands(state: dict, actions) -> dict:
    for action in actions:
        if action[0] == "set":
            set_slider(state, action[1], action[2])
        elif action[0] == "reset":
            reset(state)
        elif action[0] == "mode":
            apply_mode(state, action[1])
    return state


def apply_prompt_commands(root, prompt: str) -> bool:
    """Apply the slider commands found in `prompt` to the saved state; True if the state changed (and was saved)."""
    actions = parse_slider_commands(prompt)
    if not actions:
        return False  # the common case: no disk access at all
    before = load_hud_state(root)
    after = apply_commands(fastjson.loads(fastjson.dumps(before)), actions)
    if after == before:
        return False
    save_hud_state(root, after)
    return True


# --- rendering -------------------------------------------------------------------------------------------------

_CONTROL = dict.fromkeys([*range(0x00, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029], " ")
_NO_ACCESS = {"no_tool_access": "No tool access", "no_access": "No tool access", "no_memory_access": "No tool access",
              "inaccessible": "Inaccessible", "unavailable": "Inaccessible"}


def _one_line(text) -> str:
    return " ".join(str(text or "").translate(_CONTROL).split())


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
    text = _one_line(text)
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
    key = _norm(memory_status)
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


def render_hud(*, session_active: bool, state: dict, past: str, present: str, future: str, loaded, pending,
               context: str = "Stable", tools: str = "Standby", vibe: str = None, memory_status: str = None) -> str:
    """The full LiveHud box: every line exactly 80 terminal columns."""
    mode = state.get("mode") or "Base"
    no_access = _memory_status_text(memory_status)
    if no_access:
        past_text = "No memory access"
    elif not _one_line(past) or loaded == 0:
        past_text = "Fresh session"
    else:
        past_text = gauge_words(past)
    present_text = gauge_words(present) if _one_line(present) else "Awaiting the first task"
    future_text = gauge_words(future) if _one_line(future) else "No next step recorded"
    memory_text = no_access or f"{loaded or 0} files loaded │ {pending or 0} pending write"
    rule = "═" * INNER
    lines = [
        "╔" + rule + "╗",
        "║" + _center("◈ RLM-MEM LIVEHUD ◈", INNER) + "║",
        _line(f" Session: {'Active' if session_active else 'New'}  │  Mode: {_one_line(mode)}"),
        "╠" + rule + "╣",
        *(_line(row) for row in _slider_rows(state)),
        "╠" + rule + "╣",
        _line(" MEMORY PROTOCOL"),
        _line(_gauge_row("├─", "🧠", "Past", past_text)),
        _line(_gauge_row("├─", "👁️", "Present", present_text)),
        _line(_gauge_row("└─", "🔮", "Future", future_text)),
        "╠" + rule + "╣",
        _line(" SYSTEM STATE"),
        _line(f" ├─ 💾 Context: {truncate(_one_line(context) or 'Stable', 20)}  │  "
              f"🔧 Tools: {truncate(_one_line(tools) or 'Standby', 20)}"),
        _line(f" ├─ 📂 Memory:  {memory_text}"),
        _line(f" └─ ⚡ Vibe:    {_one_line(vibe) or vibe_for(mode)}"),
        "╚" + rule + "╝",
    ]
    return "\n".join(lines)


def _center(text: str, width: int) -> str:
    left = (width - display_width(text)) // 2
    return pad(" " * left + text, width)


def render_statusline(state: dict, loaded, pending, past: str, max_width: int = 120) -> str:
    """One line for Claude Code's status line: mode, memory counts and the Past gauge, at most 120 columns."""
    mode = _one_line(state.get("mode")) or "Base"
    if loaded is None:
        memory = "🧠 no memory access"
    else:
        memory = f"🧠 {loaded} loaded · {pending or 0} pending"
    line = f"◈ RLM-MEM │ Mode: {mode} │ {memory}"
    past_text = gauge_words(past) if _one_line(past) else ""
    if past_text:
        line += f" │ Past: {past_text}"
    return truncate(line, max_width)
