"""Terminal column width of text, so boxes drawn with emoji and CJK keep a straight right edge.

Rules (what current terminals do, computed with the stdlib `unicodedata` only):
- East Asian Wide/Fullwidth characters take 2 columns; since Unicode 9 that includes every emoji whose default
  presentation is emoji (🔊, 🧠). Unassigned code points in the emoji and CJK planes count as 2 as well, so emoji
  newer than Python's Unicode tables still line up.
- A narrow base followed by VS16 (U+FE0F, emoji presentation: ⚖️, 👁️) takes 2 columns in total.
- Combining marks, format characters (ZWJ, ZWNJ), variation selectors, control characters: 0 columns.
- An emoji skin-tone modifier after a base joins it (0); two regional indicators form one 2-column flag.
- Everything else, including East Asian Ambiguous (box drawing, ◈, …), is 1 column.
"""
import unicodedata

ELLIPSIS = "…"
_VS16 = "\ufe0f"
_ZWJ = "\u200d"


def _is_regional_indicator(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def _is_skin_tone(ch: str) -> bool:
    return 0x1F3FB <= ord(ch) <= 0x1F3FF


def char_width(ch: str) -> int:
    """Columns of one code point on its own (no context)."""
    cp = ord(ch)
    category = unicodedata.category(ch)
    if category in ("Mn", "Me", "Cf", "Cc") or 0xFE00 <= cp <= 0xFE0F or 0x1160 <= cp <= 0x11FF:
        return 0  # marks, ZWJ/VS and friends, controls, Hangul medial/final jamo
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 2
    if category == "Cn" and (0x1F000 <= cp <= 0x1FAFF or 0x20000 <= cp <= 0x3FFFD):
        return 2
    return 1


def clusters(s: str):
    """Yield (text, width) for each unit a terminal draws as one cell group; never split inside one."""
    text, width = "", 0
    for ch in s:
        w = char_width(ch)
        if text:
            prev = text[-1]
            joins = (
                w == 0
                or prev == _ZWJ
                or (_is_skin_tone(ch) and width > 0)
                or (_is_regional_indicator(ch) and _is_regional_indicator(prev) and len(text) == 1)
            )
            if joins:
                if ch == _VS16 and width == 1:
                    width = 2  # emoji presentation widens a text-default base (⚖ + VS16)
                elif _is_regional_indicator(ch):
                    width = 2  # a flag: two indicators, one 2-column glyph
                elif prev == _ZWJ:
                    width += w  # ZWJ itself is 0; the joined character still counts
                text += ch
                continue
            yield text, width
        text, width = ch, w
    if text:
        yield text, width


# One column each and never part of a cluster: printable ASCII, box drawing, block elements, most geometric shapes
# and the ellipsis. Deleting them first makes a HUD line cost a few microseconds instead of a per-character walk.
_SIMPLE = dict.fromkeys([*range(0x20, 0x7F), *range(0x2500, 0x25A0), *range(0x25A0, 0x25FD), 0x2026])
_JOINERS = frozenset(_VS16 + _ZWJ)


def display_width(s: str) -> int:
    """Columns `s` occupies in a terminal."""
    rest = s.translate(_SIMPLE)
    if not rest:
        return len(s)
    if any(ch in _JOINERS or _is_skin_tone(ch) or _is_regional_indicator(ch) for ch in rest):
        return sum(w for _, w in clusters(s))  # context matters: walk the clusters
    return len(s) - len(rest) + sum(char_width(ch) for ch in rest)


def truncate(s: str, width: int) -> str:
    """`s` cut to at most `width` columns, ending in "…" when something was cut."""
    if width <= 0:
        return ""
    if display_width(s) <= width:
        return s
    room = width - 1  # the ellipsis takes one column
    out, used = [], 0
    for text, w in clusters(s):
        if used + w > room:
            break
        out.append(text)
        used += w
    return "".join(out) + ELLIPSIS


def pad(s: str, width: int) -> str:
    """`s` made exactly `width` columns: truncated with "…" if too long, then padded with spaces."""
    s = truncate(s, width)
    return s + " " * (width - display_width(s))
