"""Every regular expression in brain/ runs in time linear in its input, on text no person would write.

Capture reads whole transcripts, and a transcript holds what tools printed: a minified bundle, a base64 blob, a
column of digits, ten thousand blank lines. A pattern that rescans the rest of a run from each of its positions
(`\\S+ not`, `^\\s*gem` over blank lines) turns 60 KB of such text into minutes of CPU in the background capture, or
in `remember`. So each pattern is run over runs of 20,000 characters built from short units; a pattern that
backtracks quadratically takes seconds there (hundreds of times the linear cost), so the bound below is loose.

Patterns are found two ways: compiled at module level (also inside lists, tuples and dicts), and written as a
literal in a call `re.<method>(r"...")` anywhere in brain/ (run the way that call runs it: `re.match` only at the
start).
"""
import ast
import importlib
import pkgutil
import random
import re
import time
from pathlib import Path

import pytest

import brain

BRAIN = Path(brain.__file__).parent
LENGTH = 20_000
SECONDS = 0.5  # per pattern and input; linear patterns take milliseconds, quadratic ones seconds to minutes
UNITS = ["1", "1 ", "1.", "1:", "1,", "1-", "1%", "1e", "0x", "1.2.", "1 a ", "a", "A", "a ", "ab ", "a1", "Aa",
         "A_", "a_", "a-", "a.", "a/", "a=", "a@", "a+", "a\n", "a(", "a)", "a]", "a: ", "a b ", "-a ", "-", "/a",
         " ", "\t", "\n", " \n", "\n ", "`", "`a", '"a', "'a", "* ", "**", "#", "$", "$a", "(", "[", "{", "{{",
         "}", "<", "<a", "<a>", "\\", "|", "~", "%", "+", "e", ".", "http://", "the ", "not ", "1 not ",
         "port 1 ", "x: 1\n", "  a\n"]


def _module_patterns() -> dict:
    found = {}
    for info in pkgutil.walk_packages(brain.__path__, "brain."):
        module = importlib.import_module(info.name)
        stack = list(vars(module).items())
        while stack:
            name, value = stack.pop()
            if isinstance(value, re.Pattern):
                found.setdefault((value.pattern, value.flags, "finditer"), f"{info.name}.{name}")
            elif isinstance(value, (list, tuple, set, frozenset)) and len(value) < 1000:
                stack += [(f"{name}[]", v) for v in value]
            elif isinstance(value, dict) and len(value) < 1000:
                stack += [(f"{name}[{k!r}]", v) for k, v in value.items()]
    return found


def _literal_patterns() -> dict:
    found = {}
    for path in sorted(BRAIN.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                continue
            method = node.func.attr
            flag_node = next((k.value for k in node.keywords if k.arg == "flags"), None)
            if method == "compile" and len(node.args) > 1:
                flag_node = node.args[1]
            flags = eval(compile(ast.Expression(flag_node), "flags", "eval"), {"re": re}) if flag_node else 0
            way = method if method in ("match", "fullmatch") else "finditer"  # search, sub, split scan every start
            found.setdefault((node.args[0].value, int(flags), way), f"{path.relative_to(BRAIN.parent)}:{node.lineno}")
    return found


PATTERNS = {**_literal_patterns(), **_module_patterns()}


def _texts() -> dict:
    texts = {repr(u): (u * (LENGTH // len(u) + 1))[:LENGTH] for u in UNITS}
    rng = random.Random(7)
    texts["mixed"] = "".join(rng.choice("0123456789 .:-/*\"x,abcMm\n_=@`#(){}[]") for _ in range(LENGTH))
    return texts


def test_patterns_were_found():
    # The walk must see the patterns it is meant to check, or the test below checks nothing.
    names = set(PATTERNS.values())
    assert len(PATTERNS) > 100
    assert {"brain.capture.rules.said_changes._NOT", "brain.util.values._HOST"} <= names
    assert any(name.startswith("brain/hud/state.py:") for name in names)


@pytest.mark.parametrize("key", sorted(PATTERNS, key=PATTERNS.get), ids=lambda key: PATTERNS[key])
def test_pattern_is_linear_on_long_runs(key):
    source, flags, way = key
    pattern = re.compile(source, flags)
    slow = []
    for name, text in _texts().items():
        started = time.perf_counter()
        if way == "finditer":
            for _ in pattern.finditer(text):
                pass
        else:
            getattr(pattern, way)(text)
        took = time.perf_counter() - started
        if took > SECONDS:
            slow.append(f"{name}: {took:.2f} s")
    assert not slow, f"{PATTERNS[key]} backtracks on long runs: {slow}"
