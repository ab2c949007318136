"""MEMORY_CANDIDATES: file names, the exact block, reading it back."""
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brain.safety.redact import redact
from brain.capture.candidates import (
    MemoryCandidate,
    format_candidates,
    parse_candidates,
    slug_filename,
)

SPEC_BLOCK = """## System Notes

[MEMORY_CANDIDATES]
1. user_prefers_dark_themes.md — category: present — tags: [preference, ui]
   ---
   User explicitly stated preference for dark mode interfaces.

2. staging_db_port_5433.md — category: past — tags: [database, staging]
   ---
   The staging database listens on port 5433, not 5432.
"""
SPEC_CANDIDATES = [
    MemoryCandidate("user_prefers_dark_themes.md", "present", ["preference", "ui"],
                    "User explicitly stated preference for dark mode interfaces."),
    MemoryCandidate("staging_db_port_5433.md", "past", ["database", "staging"],
                    "The staging database listens on port 5433, not 5432."),
]


def test_format_is_exactly_the_documented_block():
    assert format_candidates(SPEC_CANDIDATES) == SPEC_BLOCK
    as_dicts = [{"filename": c.filename, "category": c.category, "tags": list(c.tags), "content": c.content}
                for c in SPEC_CANDIDATES]
    assert format_candidates(as_dicts) == SPEC_BLOCK


def test_parse_the_documented_block():
    assert parse_candidates(SPEC_BLOCK) == SPEC_CANDIDATES


def test_format_multiline_content_and_normalisation():
    text = format_candidates([{"filename": "Deploy steps for staging!", "category": "Future", "tags": ("ops",),
                               "content": "first line\r\n  indented second   \n\nafter a blank\n\n"}])
    assert text == ("## System Notes\n\n[MEMORY_CANDIDATES]\n"
                    "1. deploy_steps_for_staging.md — category: future — tags: [ops]\n"
                    "   ---\n   first line\n     indented second\n\n   after a blank\n")
    assert parse_candidates(text) == [
        MemoryCandidate("deploy_steps_for_staging.md", "future", ("ops",),
                        "first line\n  indented second\n\nafter a blank")]


def test_format_rejects_unknown_category_and_names_unnamed_candidates():
    with pytest.raises(ValueError, match="category"):
        format_candidates([MemoryCandidate("a_b_c.md", "someday", (), "x")])
    text = format_candidates([{"content": "The CI cache key includes the lockfile hash", "category": "past"}])
    assert "1. ci_cache_key_includes_lockfile_hash.md — category: past — tags: []" in text


@pytest.mark.parametrize("text, name", [
    ("User prefers dark themes", "user_prefers_dark_themes.md"),
    ("Dark", "memory_note_dark.md"),
    ("dark mode", "memory_dark_mode.md"),
    ("", "memory_note_untitled.md"),
    ("!!!", "memory_note_untitled.md"),
    ("Café façade — naïve résumé", "cafe_facade_naive_resume.md"),
    ("already_a_name.md", "already_a_name.md"),
    ("one two three four five six seven eight nine ten eleven twelve",
     "one_two_three_four_five_six_seven_eight_nine_ten.md"),
    ("日本語のメモ about ports", "memory_about_ports.md"),
])
def test_slug_filename(text, name):
    assert slug_filename(text) == name


@given(st.text(max_size=200))
def test_slug_filename_always_follows_the_naming_rules(text):
    name = slug_filename(text)
    assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+){2,9}\.md", name)


def test_parse_is_lenient():
    text = """Some HUD output above.

[MEMORY_CANDIDATES]
1.  `port_for_staging_db.md` - category: Past - tags: [db,  staging ]
---
Staging listens on 5433.
It moved last week.
2) redis_is_used_for_sessions.md – category: present – tags: ["cache", 'redis']
   content without a separator line
3. no_tags_given_here.md — category: future

## Next section
1. not_a_candidate_at_all.md — category: past — tags: []
"""
    assert parse_candidates(text) == [
        MemoryCandidate("port_for_staging_db.md", "past", ("db", "staging"),
                        "Staging listens on 5433.\nIt moved last week."),
        MemoryCandidate("redis_is_used_for_sessions.md", "present", ("cache", "redis"),
                        "content without a separator line"),
        MemoryCandidate("no_tags_given_here.md", "future", (), ""),
    ]


def test_parse_without_heading_or_marker_and_stops_at_prose():
    block = SPEC_BLOCK.split("[MEMORY_CANDIDATES]\n", 1)[1]
    assert parse_candidates(block) == SPEC_CANDIDATES
    assert parse_candidates(SPEC_BLOCK + "\nThat is all for today.\n") == SPEC_CANDIDATES
    indented = "\n".join("  " + line if line else "" for line in SPEC_BLOCK.split("\n"))
    assert parse_candidates(indented) == SPEC_CANDIDATES
    assert parse_candidates("nothing here") == []
    assert parse_candidates("") == []


_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8)
_filename = st.lists(_word, min_size=3, max_size=10).map(lambda ws: "_".join(ws) + ".md")
_tag = st.text(st.characters(blacklist_characters=",[]'\"\n\r", blacklist_categories=("Cs", "Cc", "Zl", "Zp")),
               min_size=1, max_size=12).map(str.strip).filter(lambda t: t and redact(t) == t)  # (a secret is not kept)
_line = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\x85"),
                max_size=60).map(str.rstrip)
_content = st.lists(_line, max_size=6).map("\n".join).map(lambda s: s.strip("\n")).filter(
    # the block's own markers inside content cannot round-trip: item lines and a leading separator
    lambda s: not re.search(r"(?m)^\s*\d+[.)]\s.*category\s*:", s, re.IGNORECASE)
    and not re.match(r"\s*-{3,}\s*(\n|$)", s))
_candidate = st.builds(MemoryCandidate, _filename, st.sampled_from(["past", "present", "future"]),
                       st.lists(_tag, max_size=4), _content)


@settings(max_examples=300)
@given(st.lists(_candidate, min_size=1, max_size=5))
def test_round_trip(cands):
    assert parse_candidates(format_candidates(cands)) == cands


def test_a_name_holding_a_secret_becomes_a_redacted_slug_that_round_trips():
    """Found by the round trip above in a fresh clone: a name the redactor changed kept its marker's brackets, which
    the block's reader turned into other words."""
    for name, expected in (("0_kennwort_000.md", "0_kennwort_redacted_password.md"),
                           ("bot_token_ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8.md",
                            "bot_token_redacted_github_token.md")):
        cands = [MemoryCandidate(name, "past", [], "")]
        assert cands[0].filename == expected and parse_candidates(format_candidates(cands)) == cands
