"""LiveHud: text width, slider state and commands, the 80-column box, the status line."""
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brain.hud import render, sliders
from brain.hud import state as hud_state
from brain.hud.textwidth import display_width, pad, truncate

# --- textwidth -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, width", [
    ("abc", 3), ("", 0), ("中文", 4), ("ｶﾀｶﾅ", 4), ("🔊", 2), ("🧠 Past", 7),
    ("⚖️", 2), ("👁️", 2), ("⚖", 1),  # VS16 widens a text-default base to two columns
    ("e\u0301", 1), ("a\u200db", 2), ("\ufe0f", 0),  # combining mark, ZWJ, lone VS: zero
    ("🇫🇷", 2), ("👍🏻", 2), ("◈│█░═…", 6), ("\U0001FAE8", 2),  # flag, skin tone, ambiguous, newer emoji
])
def test_display_width(text, width):
    assert display_width(text) == width


def test_truncate_and_pad_never_split_a_cluster_or_overflow():
    assert truncate("hello world", 8) == "hello w…"
    assert truncate("short", 8) == "short"
    assert truncate("中文中文", 5) == "中文…"  # a wide char that does not fit is left out
    assert truncate("a⚖️b⚖️c", 4) == "a⚖️…"  # the VS16 stays with its base
    assert truncate("anything", 0) == ""
    for width in range(1, 12):
        for text in ("中文中文中文", "⚖️⚖️⚖️⚖️⚖️⚖️", "ab👁️cd🔊ef", "plain text here"):
            assert display_width(pad(text, width)) == width
            assert display_width(truncate(text, width)) <= width


# --- state -----------------------------------------------------------------------------------------------------

def test_state_round_trip_and_defaults(tmp_path):
    assert hud_state.load_hud_state(tmp_path) == {"mode": "Base", "sliders": sliders.DEFAULTS}
    state = hud_state.set_slider(hud_state.load_hud_state(tmp_path), "humor", 70)
    hud_state.save_hud_state(tmp_path, state)
    assert (tmp_path / "state" / "hud.json").is_file()
    loaded = hud_state.load_hud_state(tmp_path)
    assert loaded["sliders"]["Humor_Amp"] == 70 and loaded["mode"] == "Custom"
    assert not [p for p in (tmp_path / "state").iterdir() if p.name != "hud.json"]  # no temp files left


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b"\xff\xfe", b'{"sliders": "x", "mode": 5}', b""])
def test_load_never_raises_on_damaged_state(tmp_path, content):
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "hud.json").write_bytes(content)
    assert hud_state.load_hud_state(tmp_path) == hud_state.default_state()


def test_load_keeps_good_values_and_repairs_bad_ones(tmp_path):
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "hud.json").write_text(json.dumps(
        {"mode": "technical", "sliders": {"Tech_Depth": 90, "Humor_Amp": "lots", "Verbosity_Boost": 250, "Zzz": 3}}))
    state = hud_state.load_hud_state(tmp_path)
    assert state["mode"] == "Technical"
    assert state["sliders"]["Tech_Depth"] == 90
    assert state["sliders"]["Humor_Amp"] == 45  # bad value → default
    assert state["sliders"]["Verbosity_Boost"] == 100  # clamped
    assert "Zzz" not in state["sliders"]


def test_set_slider_names_values_and_errors():
    state = hud_state.default_state()
    for name in ("humor", "Humor", "HUMOR_AMP", "humor amp", "Humor_Amp"):
        hud_state.set_slider(state, name, 33)
        assert state["sliders"]["Humor_Amp"] == 33
    hud_state.set_slider(state, "Technicality", "80%")
    assert state["sliders"]["Tech_Depth"] == 80
    hud_state.set_slider(state, "tech_depth", 150)
    assert state["sliders"]["Tech_Depth"] == 100
    hud_state.set_slider(state, "verbosity", -4)
    assert state["sliders"]["Verbosity_Boost"] == 0
    with pytest.raises(ValueError):
        hud_state.set_slider(state, "happiness", 50)
    for bad in ("lots", None, float("nan"), True, "", [50]):
        with pytest.raises(ValueError):
            hud_state.set_slider(state, "humor", bad)


def test_modes_exactly_as_specified():
    expected = {
        "Research": {"Tech_Depth": 85, "Directness_Filter": 75, "Humor_Amp": 25},
        "Creative": {"Creativity_Pulse": 90, "Humor_Amp": 70, "Verbosity_Boost": 60},
        "Technical": {"Tech_Depth": 90, "Directness_Filter": 80, "Humor_Amp": 15},
        "Concise": {"Verbosity_Boost": 15, "Directness_Filter": 85},
        "Base": {},
    }
    assert sliders.DEFAULTS == {"Verbosity_Boost": 28, "Humor_Amp": 45, "Creativity_Pulse": 55, "Morality_Compass": 60,
                            "Directness_Filter": 65, "Tech_Depth": 50}
    for mode, changes in expected.items():
        state = hud_state.set_slider(hud_state.default_state(), "morality", 1)  # modes start from defaults, not from here
        hud_state.apply_mode(state, mode.lower())
        assert state == {"mode": mode, "sliders": {**sliders.DEFAULTS, **changes}}
    with pytest.raises(ValueError):
        hud_state.apply_mode(hud_state.default_state(), "Party")
    state = hud_state.apply_mode(hud_state.default_state(), "Creative")
    assert hud_state.reset(state) == hud_state.default_state()


def test_setting_sliders_back_to_a_preset_names_that_mode():
    state = hud_state.apply_mode(hud_state.default_state(), "Concise")
    hud_state.set_slider(state, "verbosity", 28)
    assert state["mode"] == "Custom"
    hud_state.set_slider(state, "directness", 65)
    assert state["mode"] == "Base"


# --- commands typed in a prompt --------------------------------------------------------------------------------

@pytest.mark.parametrize("prompt, actions", [
    ("Set Humor to 70%", [("set", "Humor_Amp", 70)]),
    ("set humor to 70", [("set", "Humor_Amp", 70)]),
    ("set Humor_Amp to 12 percent", [("set", "Humor_Amp", 12)]),
    ("Max Creativity", [("set", "Creativity_Pulse", 100)]),
    ("Min Verbosity", [("set", "Verbosity_Boost", 0)]),
    ("Reset sliders", [("reset",)]),
    ("Technical mode", [("mode", "Technical")]),
    ("research mode", [("mode", "Research")]),
    ("Switch to concise mode.", [("mode", "Concise")]),
    ("Please set tech depth to 150% and then max humor, thanks",
     [("set", "Tech_Depth", 100), ("set", "Humor_Amp", 100)]),
    ("Creative mode. Now, what rhymes with orange?", [("mode", "Creative")]),
])
def test_parse_slider_commands(prompt, actions):
    assert hud_state.parse_slider_commands(prompt) == actions


@pytest.mark.parametrize("prompt", [
    "set up the database to 5 replicas",
    "Set the timeout to 70%",
    "How do I enable creative mode in Minecraft?",
    "the app has a research mode that users like",
    "We want min verbosity in the production logs",
    "please reset the sliders component in the settings page",
    "maximum humor is hard to define",
    "",
])
def test_ordinary_prose_is_not_a_command(prompt):
    assert hud_state.parse_slider_commands(prompt) == []


def test_apply_prompt_commands_saves_only_on_change(tmp_path):
    assert hud_state.apply_prompt_commands(tmp_path, "what is the weather") is False
    assert not (tmp_path / "state").exists()  # ordinary prompts never touch the disk
    assert hud_state.apply_prompt_commands(tmp_path, "Set Humor to 70%") is True
    assert hud_state.load_hud_state(tmp_path)["sliders"]["Humor_Amp"] == 70
    assert hud_state.apply_prompt_commands(tmp_path, "set humor to 70") is False  # already there
    assert hud_state.apply_prompt_commands(tmp_path, "Technical mode") is True
    assert hud_state.load_hud_state(tmp_path)["mode"] == "Technical"
    assert hud_state.apply_prompt_commands(tmp_path, "Reset sliders") is True
    assert hud_state.load_hud_state(tmp_path) == hud_state.default_state()


def test_the_prompt_hook_writes_out_the_same_command_words():
    """hooks/handlers holds sliders.COMMAND_WORDS written out, so that no prompt loads the slider table for them:
    the two must stay the same list."""
    from brain.hooks.handlers import COMMAND_WORDS

    assert COMMAND_WORDS == sliders.COMMAND_WORDS


# --- the box ---------------------------------------------------------------------------------------------------

GAUGE_TEXTS = [
    "", "x", "Fixed the lock bug", "一二三四五六七八九十" * 8, "😂" * 60, "⚖️👁️" * 30,
    "word " * 40, "a" * 300, "line\nbreaks\tand\x1b[31m escapes", "مرحبا بالعالم", "e\u0301" * 90,
    "👨‍👩‍👧 family emoji and 🇫🇷 flags with 👍🏻 tones",
]


def _render(**overrides):
    args = dict(session_active=True, state=hud_state.default_state(), past="We fixed the lock timeout bug",
                present="Writing the LiveHud", future="Ship the installer", loaded=12, pending=0)
    args.update(overrides)
    return render.render_hud(**args)


def _assert_box(text):
    lines = text.split("\n")
    for line in lines:
        assert display_width(line) == 80, (display_width(line), line)
    assert lines[0].startswith("╔") and lines[0].endswith("╗")
    assert lines[-1].startswith("╚") and lines[-1].endswith("╝")
    assert all(line[0] in "║╠" and line[-1] in "║╣" for line in lines[1:-1])
    return lines


@pytest.mark.parametrize("gauge", GAUGE_TEXTS)
def test_every_line_is_80_columns(gauge):
    state = hud_state.set_slider(hud_state.default_state(), "humor", 100)
    _assert_box(_render(state=state, past=gauge, present=gauge, future=gauge, context=gauge, tools=gauge,
                        vibe=gauge or None))
    _assert_box(_render(state={"mode": gauge or "Base", "sliders": sliders.DEFAULTS}, past=gauge))


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=120), st.text(max_size=40), st.integers(0, 100))
def test_every_line_is_80_columns_for_any_text(text, mode, value):
    state = {"mode": mode, "sliders": {**sliders.DEFAULTS, "Tech_Depth": value}}
    _assert_box(_render(state=state, past=text, present=text, future=text, vibe=text or None, loaded=value))


def test_box_layout_and_anchors():
    state = hud_state.set_slider(hud_state.default_state(), "Humor", 70)
    lines = _assert_box(_render(state=state, loaded=3, pending=2))
    text = "\n".join(lines)
    assert "◈ RLM-MEM LIVEHUD ◈" in lines[1]
    assert re.search(r"Session: Active  │  Mode: Custom", text)
    assert "COGNITIVE SLIDERS" in text and "Current  Default" in text
    rows = re.findall(r"[├└]─ (\S+) (\w+)\s+\[([█░]{20})\]\s+(\d+)%\s+(\d+)%", text)
    assert [(r[1], int(r[3]), int(r[4])) for r in rows] == [
        ("Verbosity", 28, 28), ("Humor", 70, 45), ("Creativity", 55, 55), ("Morality", 60, 60),
        ("Directness", 65, 65), ("Technicality", 50, 50)]
    assert [r[0] for r in rows] == ["🔊", "😂", "🎨", "😇", "🎯", "🔬"]
    # equal widths whether a terminal draws an emoji's variation selector wide or narrow: the box has none
    assert "\ufe0f" not in text
    assert rows[1][2] == "█" * 14 + "░" * 6  # 70% = 14 cells of 5%
    assert "└─ 🔬 Technicality" in text and "├─ 🔊 Verbosity" in text
    assert re.search(r"├─ 🧠 Past:\s+We fixed the lock timeout bug\s+║", text)
    assert re.search(r"├─ 👀 Present:\s+Writing the LiveHud", text)
    assert re.search(r"└─ 🔮 Future:\s+Ship the installer", text)
    assert re.search(r"├─ 💾 Context: Stable  │  🔧 Tools: Standby", text)
    assert re.search(r"├─ 📂 Memory:\s+3 files loaded │ 2 pending write", text)
    assert re.search(r"└─ ⚡ Vibe:\s+Elevated", text)  # a custom mix
    # the header's column titles sit over the percentages
    header = next(line for line in lines if "Current" in line)
    row = next(line for line in lines if "Humor" in line)
    assert display_width(header[: header.index("Current") + 7]) == display_width(row[: row.index("70%") + 3])


@pytest.mark.parametrize("mode, vibe", [("Base", "Direct"), ("Research", "Analytical"), ("Creative", "Creative"),
                                        ("Technical", "Focused"), ("Concise", "Direct")])
def test_vibe_follows_mode(mode, vibe):
    text = _render(state=hud_state.apply_mode(hud_state.default_state(), mode))
    assert re.search(rf"⚡ Vibe:\s+{vibe}\s+║", text)
    assert re.search(r"⚡ Vibe:\s+Elevated", _render(state=hud_state.apply_mode(hud_state.default_state(), mode), vibe="Elevated"))


def test_memory_edge_cases():
    fresh = _render(loaded=0, past="something old", pending=None)
    assert re.search(r"🧠 Past:\s+Fresh session\s+║", fresh)
    assert re.search(r"📂 Memory:\s+0 files loaded │ 0 pending write", fresh)
    assert re.search(r"🧠 Past:\s+Fresh session", _render(past="   "))
    no_tools = _render(memory_status="no tool access")
    assert re.search(r"🧠 Past:\s+No memory access", no_tools)
    assert re.search(r"📂 Memory:\s+No tool access\s+║", no_tools)
    gone = _render(memory_status="inaccessible")
    assert re.search(r"🧠 Past:\s+No memory access", gone) and re.search(r"📂 Memory:\s+Inaccessible", gone)
    assert "Session: New" in _render(session_active=False)


def test_gauges_are_trimmed_to_nine_words():
    assert render.gauge_words("one two three four five six seven eight nine ten eleven") == \
        "one two three four five six seven eight nine…"
    assert render.gauge_words("Fixed the flaky lock test. Then we refactored everything else too") == \
        "Fixed the flaky lock test"
    assert render.gauge_words("Done. Then we refactored the whole store module today") == \
        "Done. Then we refactored the whole store module today"  # a 1-word sentence is too short alone
    assert render.gauge_words("two words") == "two words"
    assert render.gauge_words("multi\nline\n\ttext") == "multi line text"
    text = _render(past="alpha beta gamma delta epsilon zeta eta theta iota kappa lambda")
    assert "iota…" in text and "kappa" not in text


def test_statusline():
    state = hud_state.apply_mode(hud_state.default_state(), "Research")
    line = render.render_statusline(state, 12, 0, "We fixed the lock timeout bug")
    assert line == "◈ RLM-MEM │ Mode: Research │ 🧠 12 loaded · 0 pending │ Past: We fixed the lock timeout bug"
    assert "\n" not in line
    long = render.render_statusline(state, 12, 3, "中文" * 200)
    assert display_width(long) <= 120 and long.endswith("…")
    assert "no memory access" in render.render_statusline(state, None, None, "")
    assert "Past" not in render.render_statusline(state, 1, 0, "")


def test_hot_path_modules_load_no_third_party_code():
    import subprocess
    import sys

    code = ("import sys; import brain.hud.render, brain.hud.state, brain.context.project, brain.capture.candidates; "
            "heavy = {'yaml', 'jsonschema', 'filelock', 'frontmatter', 'click'} & set(sys.modules); "
            "assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)
