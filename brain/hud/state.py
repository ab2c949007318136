"""LiveHud state (`<memory root>/state/hud.json`: mode and slider values) and the slider commands a person types.

`{"mode": "Base", "sliders": {"Verbosity_Boost": 28, ...}}`. Loading never raises on a missing or damaged file.
The command regexes compile on first use: rendering the HUD at every session start never needs them.
"""
import math
import os

from brain.hud.sliders import CUSTOM_MODE, DEFAULTS, MODES, SLIDERS, mode_values, slider_for
from brain.util import fastjson
from brain.util.files import atomic_write_json, read_json

HUD_FILE_LIMIT = 64 * 1024  # hud.json holds a mode and nine numbers


def default_state() -> dict:
    return {"mode": "Base", "sliders": dict(DEFAULTS)}


def state_path(root) -> str:
    return os.path.join(os.fspath(root), "state", "hud.json")


def load_hud_state(root) -> dict:
    """The saved state, or defaults for anything missing, damaged or out of range (never raises)."""
    state = default_state()
    try:
        raw = read_json(state_path(root), HUD_FILE_LIMIT)  # bounded, and never a FIFO or a device
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
        raise ValueError("the value is not a percentage (0 to 100)")
    if isinstance(value, str):
        text = value.strip().rstrip("%").strip()
        try:
            value = float(text)
        except ValueError:
            raise ValueError("the value is not a percentage (0 to 100)") from None
    if not isinstance(value, (int, float)) or math.isnan(value):
        raise ValueError("the value is not a percentage (0 to 100)")
    return int(round(min(100.0, max(0.0, float(value)))))


def _canonical_mode(mode: str):
    wanted = mode.strip().lower()
    if wanted == CUSTOM_MODE.lower():
        return CUSTOM_MODE
    return next((m for m in MODES if m.lower() == wanted), None)


def _settle_mode(state: dict) -> dict:
    # After a manual change the mode is whichever preset the values now equal, else Custom.
    state["mode"] = next((m for m in MODES if mode_values(m) == state["sliders"]), CUSTOM_MODE)
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
        raise ValueError(f"unknown mode; modes are {', '.join(MODES)}")
    state["sliders"] = mode_values(canonical)
    state["mode"] = canonical
    return state


def reset(state: dict) -> dict:
    """All sliders back to their defaults (Base mode)."""
    return apply_mode(state, "Base")


# --- commands typed in a prompt --------------------------------------------------------------------------------

def _alternation(names) -> str:
    # Longest first so "tech_depth" wins over "tech"; underscores may be typed as spaces or hyphens.
    import re  # compiled with the command patterns, on the first prompt that may hold a command

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
            clause=re.compile(r"[.!?](?=\s|$)|[;,\n]+|(?<!\s)\s+(?:and|then|&)\s+"),
            polite_head=re.compile(
                r"^(?:(?:please|pls|ok(?:ay)?|now|also|then|and|hey|kindly|(?:can|could|would)\s+you)[\s,]+)+"),
            polite_tail=re.compile(r"(?<![\s,])(?:[\s,]+(?:please|pls|thanks|thank\s+you))+$"),
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


