"""Tests a typed memory's statement passes before it is kept: it names what it is about, and a change or choice
states its value. A memory is read later, alone, in another session: "it's the top priority next" or "bump the
version" says nothing there.
"""
from __future__ import annotations

import re

from brain.capture.alternatives import job_of
from brain.capture.rules import Family, on_text, rule
from brain.util.values import value_kinds

MEMORY = Family("memory", on_text)  # the statement a typed memory would hold

# Words that open a reply before its claim: "No, ...", "Actually, ...", "Not X, but ...".
_LEAD_IN = re.compile(r"^(?:(?:no|nope|nah|yes|yeah|ok(?:ay)?|so|and|also|then|well|actually|correction|decision|"
                      r"right|fine|sure|now|just|but|oh|hmm)\b[\s,.:;!-]*)+", re.IGNORECASE)
_NOT_BUT = re.compile(r"^not\s+[^,;]{1,40}?,?\s+but\s+", re.IGNORECASE)
_CALLED_WRONG = re.compile(r"^(?:that'?s|that is|this is|you'?re|you are|it'?s|it is)\s+(?:wrong|incorrect|not right)"
                           r"(?:\s+about\s+[^,;]{1,40})?[\s,.:;!-]+", re.IGNORECASE)
# What a statement cannot open on and still say what it is about.
_NOT_A_SUBJECT = frozenset("it it's its that that's this these those they they're them there there's here he she "
                           "we're which what one ones something anything everything nothing someone today tomorrow "
                           "yesterday now later soon yet again too also more less much many same other others "
                           "the a an".split())
_BRACKETS = (("(", ")"), ("[", "]"), ("{", "}"))


def claim(text: str) -> str:
    """The statement's claim without the words a reply opens with ("No, not zod. Use TypeBox" -> "Use TypeBox")."""
    rest = text.strip()
    while True:
        stripped = _CALLED_WRONG.sub("", _NOT_BUT.sub("", _LEAD_IN.sub("", rest)))
        if stripped == rest:
            return rest
        rest = stripped


@rule(MEMORY, catches=["The staging database listens on port 5433.", "No, the project is billing-prod.",
                       "Use vitest instead of jest.", "Actually, the app never creates streams.",
                       "Sidekiq concurrency is now 10."],
      leaves=["Not this week, but it's next on the list.", "it's the top priority next", "8.", "That one.",
              "[:create, :destroy]`, so the throttle now matches POST /session.", "2 in conf/trainer.yaml, batch_size.",
              "On top of that the entry expires after 10 minutes (expires_in."])
def names_subject(text: str) -> bool:
    """Whether a statement says what it is about: its claim opens on a word (not a number, a bracket, a pronoun or
    an adverb of time), holds three words at least, and its brackets and backticks close."""
    said = claim(text)
    words = said.split()
    if len(words) < 3 or not said[:1].isalpha():
        return False
    if words[0].lower().strip(",.:;!?") in _NOT_A_SUBJECT and not (words[0].lower() == "the" and len(words) > 3):
        return False
    return said.count("`") % 2 == 0 and all(said.count(a) == said.count(b) for a, b in _BRACKETS)


_NAME = re.compile(r"`[^`]+`|\b\w+[._/@:-]\w|(?<=[a-z])[A-Z]|\b[A-Za-z]+\d")
_SET_NUMBER = re.compile(r"(?:\b(?:to|at|by|of)|=|:)\s*\d|\d\s*%")
# Verbs asking for an amount: their value is a number ("raise the pool" says nothing until "to 25").
_AMOUNT_VERBS = frozenset("raise lower reduce increase decrease bump cut shorten extend lengthen halve double cap "
                          "limit".split())


@rule(MEMORY, catches=["Move the API to port 8090.", "Use System.Text.Json everywhere.", "Switch the tests to vitest.",
                       "Raise the ceiling to 8.", "Set up vitest.", "Lower the p95 budget to 250ms.",
                       "Replace Newtonsoft.Json with System.Text.Json."],
      leaves=["Bump the version for the resubmission.", "Make the local stack live somewhere else.",
              "Raise the pool too, Postgres has plenty of headroom.", "Switch it on in prod."])
def states_value(text: str) -> bool:
    """Whether a statement of a change or choice gives its value: a number for a verb of amount ("raise", "cut"),
    else a value (a number with a unit or a subject, a version, a host, a time), a name written as code (dotted,
    slashed, camelCase, `quoted`) or a tool for a known job."""
    said = claim(text)
    numbers = bool(value_kinds(said)) or bool(_SET_NUMBER.search(said))
    if said.split()[:1] and said.split()[0].lower() in _AMOUNT_VERBS:
        return numbers
    if numbers or _NAME.search(said):
        return True
    return any(job_of(word.strip(".,;:!?()'\"").lower()) for word in said.split()[1:])
