"""The LiveHud's six sliders and five modes (reference/livehud.md), and the words that may start a slider command.

A table and nothing else. The prompt hook checks every prompt for COMMAND_WORDS to decide whether to load the
command parser (brain/hud/state.py) at all, from a copy written out in brain/hooks/handlers.py (so that it never
loads this table; tests/test_hud.py keeps the two the same).
"""
from brain.util.tuple_type import tuple_type

Slider = tuple_type("Slider", "key label emoji default")  # not a dataclass: hooks import this module


SLIDERS = (
    Slider("Verbosity_Boost", "Verbosity", "🔊", 28),
    Slider("Humor_Amp", "Humor", "😂", 45),
    Slider("Creativity_Pulse", "Creativity", "🎨", 55),
    Slider("Morality_Compass", "Morality", "😇", 60),  # not ⚖️: see PRESENT_EMOJI in render.py
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


def norm(name: str) -> str:
    return "_".join(str(name).strip().lower().replace("-", " ").replace("_", " ").split())


_BY_NAME = {}
for _s in SLIDERS:
    _BY_NAME[norm(_s.key)] = _s
    _BY_NAME[norm(_s.label)] = _s


def slider_for(name: str) -> Slider:
    """The slider called `name` (label or key, any case; "humor", "Humor_Amp"). ValueError if there is none."""
    try:
        return _BY_NAME[norm(name)]
    except KeyError:
        known = ", ".join(s.label for s in SLIDERS)
        raise ValueError(f"unknown slider; sliders are {known}") from None


def mode_values(mode: str) -> dict:
    return {**DEFAULTS, **MODES[mode]}


# A prompt holding none of these holds no slider command ("Set Humor to 70%", "Max Tech_Depth", "Technical mode",
# "Reset sliders"): each slider's label, its key and the key's tail ("_amp"), and the two command nouns. A word
# like "filter" alone would load the command parser for every prompt about filtering a list.
COMMAND_WORDS = tuple(sorted({s.label.lower() for s in SLIDERS} | {s.key.lower() for s in SLIDERS}
                             | {"_" + s.key.lower().split("_", 1)[1] for s in SLIDERS} | {" mode", "slider"}))
