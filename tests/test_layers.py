"""The layout is the architecture: which package may import which (ARCHITECTURE.md draws the same table).

Checked on the source with `ast`, every import counted (module level and inside functions):
- each package imports only the layers below it (LAYERS); nothing imports brain.hooks or brain.cli, and only the
  command line imports brain.mcp (the SDK loads for `rlm-mem mcp` alone, never in a hook);
- only brain.cli imports click; third-party packages only where THIRD_PARTY allows them;
- no import circle between modules;
- imports inside functions only in modules the hook process can load (the hot path, where start-up time is
  the budget), each with a comment saying why on its line;
- CPython's private modules (`_json`, `_sqlite3`...) and private names only in brain/cpython/fast.py, each kept
  there for a measured saving with its public fallback;
- no folder holds more than 15 modules.
"""
import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BRAIN = ROOT / "brain"

# brain.cpython (the C modules the hooks load directly) sits under everything; brain.safety under brain.util:
# every file brain/util/files.py writes passes its redactor.
BASE = {"brain.util", "brain.safety", "brain.cpython"}
LAYERS = {
    "brain.cpython": set(),
    "brain.safety": {"brain.cpython"},
    "brain.util": {"brain.safety", "brain.cpython"},
    "brain.context": BASE,
    "brain.hud": BASE,
    "brain.index": BASE | {"brain.context"},
    "brain.store": BASE | {"brain.safety", "brain.context", "brain.index"},
    "brain.recall": BASE | {"brain.safety", "brain.context", "brain.index", "brain.store"},
    "brain.garden": BASE | {"brain.safety", "brain.context", "brain.index", "brain.store", "brain.recall"},
    "brain.capture": BASE | {"brain.safety", "brain.context", "brain.index", "brain.store", "brain.recall"},
    "brain.narrative": BASE | {"brain.safety", "brain.context", "brain.index", "brain.store", "brain.recall"},
    "brain.sync": BASE | {"brain.safety", "brain.context", "brain.index", "brain.store"},
    "brain.session": BASE | {"brain.safety", "brain.context", "brain.hud", "brain.index", "brain.store",
                             "brain.recall", "brain.garden", "brain.capture", "brain.sync", "brain.narrative"},
    "brain.interop": BASE | {"brain.safety", "brain.context", "brain.index", "brain.store", "brain.recall",
                             "brain.capture"},
    "brain.setup": BASE | {"brain.context"},
    "brain.scripts": BASE | {"brain.store"},  # seed 000's facade
}
LIBRARY = set(LAYERS)
LAYERS["brain.web"] = LIBRARY - {"brain.scripts"}
LAYERS["brain.mcp"] = LIBRARY - {"brain.scripts"}
LAYERS["brain.hooks"] = LIBRARY - {"brain.scripts"}
LAYERS["brain.cli"] = LIBRARY | {"brain.web", "brain.mcp"}
# Third-party packages by where they may be used (the standard library is allowed everywhere).
THIRD_PARTY = {
    "click": {"brain.cli"},
    "filelock": {"brain.util"},
    "jsonschema": {"brain.store"},
    "fastjsonschema": {"brain.store"},
    "yaml": {"brain.interop", "brain.setup"},
    "frontmatter": {"brain.interop"},
    "mcp": {"brain.mcp"},  # the MCP SDK, and pydantic for its tools' typed signatures
    "pydantic": {"brain.mcp"},
}
MAX_MODULES_PER_FOLDER = 15


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _sources():
    return {_module_name(p): p for p in BRAIN.rglob("*.py")}


SOURCES = _sources()


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> list:
    """The modules an import statement loads (a `from pkg import mod` loads pkg.mod)."""
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    found = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in SOURCES]
    return found or [target]


def imports(path: Path):
    """(imported module, line number, inside a function?) for each import in the file."""
    module = _module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside.update(id(n) for n in ast.walk(node) if n is not node)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, id(node) in inside
        elif isinstance(node, ast.ImportFrom):
            for target in _resolve(module, path.name == "__init__.py", node):
                yield target, node.lineno, id(node) in inside


def graph() -> dict:
    out = {}
    for module, path in SOURCES.items():
        out[module] = {t for t, _, _ in imports(path) if t in SOURCES or t.split(".")[0] == "brain"}
    return out


def test_every_package_imports_only_the_layers_below_it():
    wrong = []
    for module, path in SOURCES.items():
        package = _package(module)
        if package == "brain":
            continue
        assert package in LAYERS, f"{module}: package {package} is not in the layer table"
        for target, line, _ in imports(path):
            if target.split(".")[0] != "brain":
                continue
            other = _package(target)
            if other not in (package, "brain") and other not in LAYERS[package]:
                wrong.append(f"{module}:{line} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_third_party_packages_only_where_allowed():
    wrong = []
    stdlib = set(sys.stdlib_module_names)
    for module, path in SOURCES.items():
        for target, line, _ in imports(path):
            top = target.split(".")[0]
            if top in stdlib or top == "brain" or top.startswith("_"):
                continue
            if _package(module) not in THIRD_PARTY.get(top, set()):
                wrong.append(f"{module}:{line} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_no_import_circle():
    edges = graph()
    index, low, stack, on_stack, circles, counter = {}, {}, [], set(), [], [0]

    def visit(node):  # Tarjan's strongly connected components
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in edges:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                part.append(item)
                if item == node:
                    break
            if len(part) > 1:
                circles.append(sorted(part))

    sys.setrecursionlimit(10_000)
    for node in sorted(edges):
        if node not in index:
            visit(node)
    assert not circles, circles


def hook_path() -> set:
    """Every module the hook process can load: what scripts/hook.py imports, followed through every import."""
    edges = graph()
    seen, todo = set(), [m for m in SOURCES if m.startswith("brain.hooks")]
    while todo:
        module = todo.pop()
        if module in seen or module not in edges:
            continue
        seen.add(module)
        todo += [t for t in edges[module] if t in edges]
        if module in SOURCES and SOURCES[module].name != "__init__.py":
            parent = module.rsplit(".", 1)[0]
            todo.append(parent)
    return seen | {m for m in SOURCES if m.startswith("brain.hooks")}


def test_imports_inside_functions_only_on_the_hook_path_each_with_a_reason():
    on_path = hook_path()
    wrong = []
    for module, path in SOURCES.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        for target, line, inside in imports(path):
            if not inside:
                continue
            if module not in on_path:
                wrong.append(f"{module}:{line} imports {target} inside a function, off the hook path")
            elif "#" not in lines[line - 1]:
                wrong.append(f"{module}:{line} imports {target} inside a function without a comment saying why")
    assert not wrong, "\n".join(wrong)


PRIVATE_ALLOWED = {"brain.cpython.fast"}


def test_private_cpython_modules_only_in_one_module():
    """A module or name starting with "_" from outside rlm-mem (`import _json`, `from collections import
    _tuplegetter`) is CPython's private API: it may change in any release. One module holds them all."""
    found = {}
    for module, path in SOURCES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names if alias.name.split(".")[0].startswith("_")]
            elif isinstance(node, ast.ImportFrom) and not node.level and not (node.module or "").startswith("brain"):
                private = (node.module or "").split(".")[0].startswith("_") and node.module != "__future__"
                names = [node.module] if private else []
                names += [f"{node.module}.{alias.name}" for alias in node.names if alias.name.startswith("_")]
            else:
                continue
            if names:
                found.setdefault(module, []).extend(f"{name} (line {node.lineno})" for name in names)
    assert len(PRIVATE_ALLOWED) <= 1 and set(found) <= PRIVATE_ALLOWED, found
    assert set(found) == PRIVATE_ALLOWED, "brain/cpython/fast.py imports nothing private: remove it from the table"


def test_the_library_never_imports_click():
    for module, path in SOURCES.items():
        if not module.startswith("brain.cli"):
            assert all(t.split(".")[0] != "click" for t, _, _ in imports(path)), module


@pytest.mark.parametrize("folder", sorted({p.parent for p in BRAIN.rglob("*.py")}), ids=lambda p: p.name)
def test_no_folder_over_fifteen_modules(folder):
    modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
    assert len(modules) <= MAX_MODULES_PER_FOLDER, sorted(p.name for p in modules)


def test_every_cli_command_is_listed_once_and_loads():
    """The CLI loads a command's module when the command runs (brain/cli/main.py's COMMANDS); each entry names a
    module of brain.cli and a click command in it."""
    import click

    from brain.cli.main import COMMANDS

    for name, target in COMMANDS.items():
        module, attr = target.split(":")
        assert module.startswith("brain.cli.") and module in SOURCES, target
        command = getattr(__import__(module, fromlist=[attr]), attr)
        assert isinstance(command, click.Command) and (command.name == name or name == "list"), (name, target)


def test_the_architecture_page_names_every_module():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    missing = []
    for module, path in SOURCES.items():
        if path.name == "__init__.py":
            continue
        package, name = module.rsplit(".", 1)
        if f"`{package.replace('.', '/')}`" not in text or f"`{name}`" not in text:
            missing.append(module)
    assert not missing, missing


def test_every_environment_variable_read_is_documented_in_the_readme():
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    names = set()
    for path in list(BRAIN.rglob("*.py")) + [ROOT / "scripts" / "hook.py"]:
        source = path.read_text(encoding="utf-8")
        names |= set(re.findall(r"""(?:environ|env)(?:\.get)?[\[(]\s*["']([A-Z][A-Z0-9_]+)["']""", source))
        names |= set(re.findall(r"""^[A-Z_]*ENV[A-Z_]* = ["']([A-Z][A-Z0-9_]+)["']""", source, re.M))
    assert names, "no environment variable found: the pattern is wrong"
    assert not {n for n in names if f"`{n}`" not in readme}, sorted(n for n in names if f"`{n}`" not in readme)


def test_no_module_over_800_lines_and_a_readme_a_newcomer_reads():
    """Issue 38's bounds: a module a newcomer can read whole; README.md a guide (figures live in bench/README.md)."""
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / "brain").rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800}
    assert not long, long
    assert len((ROOT / "README.md").read_text(encoding="utf-8")) <= 12_000
