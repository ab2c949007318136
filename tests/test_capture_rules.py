"""Every capture rule on its own cases: what it must catch and the look-alike it must leave alone, as declared beside
the rule (brain/capture/rules/). Changing one rule shows here what it now catches or lets through."""
import importlib
import pkgutil

import pytest

import brain.capture.rules as rules_package
from brain.capture.rules import RULES, Case, Family, rule

for _module in pkgutil.iter_modules(rules_package.__path__):  # every module of rules/: none is left untried
    importlib.import_module(f"{rules_package.__name__}.{_module.name}")


def _cases(attribute):
    return [pytest.param(r, case, id=f"{r.name}:{(case.text if isinstance(case, Case) else case)[:40]}")
            for r in RULES.values() for case in getattr(r, attribute)]


@pytest.mark.parametrize("found_rule, case", _cases("catches"))
def test_a_rule_catches_its_cases(found_rule, case):
    found = found_rule.run(case)
    assert found, f"{found_rule.name} missed {case!r}"
    expected = case.gives if isinstance(case, Case) else None
    if expected is not None:
        assert expected == found or (isinstance(found, list) and expected in found), (found_rule.name, found)


@pytest.mark.parametrize("found_rule, case", _cases("leaves"))
def test_a_rule_leaves_its_look_alikes(found_rule, case):
    assert not found_rule.run(case), f"{found_rule.name} took {case!r}: {found_rule.run(case)!r}"


def test_the_rules_are_registered():
    families = {r.family.name for r in RULES.values()}
    assert {"request", "correction", "preference", "decision", "change", "command", "output"} <= families
    assert len(RULES) >= 30


def test_a_rule_must_declare_both_kinds_of_case():
    family = Family("probe", lambda find, case: find(case.text))
    with pytest.raises(ValueError):
        rule(family, catches=["x"], leaves=[])(lambda text: text)
    with pytest.raises(ValueError):
        rule(family, catches=[], leaves=["x"])(lambda text: text)

