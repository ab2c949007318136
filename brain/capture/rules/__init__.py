"""Capture's phrase rules, each a named unit with its own cases.

A rule reads one kind of thing people write ("remember that ...", "not X but Y", "replace X with Y") and is declared
with `@rule(family, catches=[...], leaves=[...])`: what it must find, and a look-alike it must leave alone, written
beside it. `tests/test_capture_rules.py` runs every registered rule on its own cases, so changing one shows at once
what it now catches or lets through. A family says how a case is put to its rules (`Family.apply`): sentence rules
get each sentence of the case's text, change rules the text as a line of a turn.

Families and where their rules live:
- request, correction, preference, decision: `triggers` (a person's sentences);
- change: `said_changes` (value changes said in words: "replace Celery with arq", "cut the hold to 10 minutes");
- tool output and commands: `tool_events` (commit subjects, an error's cause line, the sentence explaining a fix).

Stdlib only: the capture worker imports these.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    """A text a rule is tried on. `before`: the turn before it (the assistant statement a reply answers);
    `gives`: what the rule must return for it, when the value matters (a change's pair, a cleaned request)."""

    text: str
    before: str = ""
    gives: object = None


@dataclass(frozen=True)
class Family:
    """Rules of one kind, and how a case is put to one of them: `apply(find, case)` returns what the rule finds."""

    name: str
    apply: object  # (rule function, Case) -> result, falsy when the rule finds nothing


@dataclass(frozen=True)
class Rule:
    name: str  # "family.function"
    family: Family
    find: object
    catches: tuple = field(default_factory=tuple)
    leaves: tuple = field(default_factory=tuple)

    def run(self, case: Case | str):
        """What the rule finds in `case` (a Case or a plain text)."""
        return self.family.apply(self.find, case if isinstance(case, Case) else Case(case))


def on_text(find, case: Case):
    """How a rule that reads one text (a command, an output, a statement) is put a case."""
    return find(case.text)


RULES: dict = {}  # name -> Rule, in the order they were declared


def rule(family: Family, *, catches, leaves):
    """Register the decorated function as a rule of `family`, with the texts it must catch and those it must
    leave alone (strings, or Case for a text that needs the turn before it or an expected result)."""
    if not catches or not leaves:
        raise ValueError("a rule needs at least one case it catches and one look-alike it leaves")

    def register(find):
        name = f"{family.name}.{find.__name__.lstrip('_')}"
        if name in RULES:
            raise ValueError(f"two rules named {name}")
        RULES[name] = Rule(name, family, find, tuple(catches), tuple(leaves))
        return find

    return register
