"""Settings written in source code and shell scripts.

In code, a constant given a literal is a setting (`HUBSPOT_MAX_RPS = 4`, `export const MAX_UPLOAD_MB = 25;`,
`const val MAX_DOCS = 64`, `pub const RETENTION_DAYS: u32 = 30;`, Go's `const maxRetries = 5`): an UPPER_CASE
name, or any name a `const` declares; a computed value (`15 * time.Minute`, `env("X")`) is none. So is a literal
written as configuration is in code, one to a line and ending with a comma: an argument (`    retries=3,`,
`schedule="0 6 * * *",`) or an entry of a dict or object (`"retries": 3,`, `port: 5173,`, a quoted key needs no
comma); a value may be one call of a literal (`timedelta(minutes=10)`). Variables are left alone: code assigns
them all the time (`count = 0`), a constant or an argument written out is what a person sets.

In a shell script (a SLURM batch file, a deploy script), a long option given one value (`#SBATCH
--partition=h100`: `--partition`) and a variable given a literal (`REGION=eu-west-1`). In a notebook's cell,
any name given a literal: a cell of parameters (`lr = 3e-4`).
"""
import re

from brain.capture.settings.lines import clean_value, read_matching

_LITERAL = r"""(-?\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?[A-Za-z]{0,3}|"[^"\n]*"|'[^'\n]*'|true|false|True|False)"""
_MODIFIERS = r"(?:(?:export|pub(?:\(crate\))?|let|var|val|final|static|public|private|protected|internal|readonly|" \
             r"override|lateinit)\s+)*"
_CONSTANT = re.compile(rf"^\s*{_MODIFIERS}(const\s+)?{_MODIFIERS}([A-Za-z_]\w{{1,60}})"
                       rf"\s*(?::\s*[\w<>\[\].?, ]{{1,40}})?\s*:?=\s*{_LITERAL}\s*[;,]?\s*(?:(?://|#).*)?$")
_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]{1,40})=([\w.:/@+-]{1,80})(?![\w.:/@+=,-])")
_SHELL_VARIABLE = re.compile(r"^\s*(?:export\s+)?([A-Z][A-Z0-9_]{1,60})=(\"[^\"$`]*\"|'[^']*'|[\w.:/@+-]+)\s*(?:#.*)?$")


# A literal, or one call of one (`timedelta(minutes=10)`, `Duration.ofSeconds(30)`): a value written, not computed.
_WRITTEN = rf"((?:{_LITERAL[1:-1]})|[A-Za-z_][\w.]{{0,40}}\((?:[A-Za-z_]\w{{0,30}}=)?(?:{_LITERAL[1:-1]})\))"
_ARGUMENT = re.compile(rf"^\s+([a-z_][a-z0-9_]{{2,60}})={_WRITTEN},\s*(?:(?://|#).*)?$")
_ENTRY = re.compile(rf"""^\s+(?:"([A-Za-z_][\w.-]{{1,60}})"|'([A-Za-z_][\w.-]{{1,60}})'"""
                    rf"""|([A-Za-z_]\w{{1,60}})(?=\s*:\s*\S.*,))\s*:\s*{_WRITTEN}\s*,?\s*(?:(?://|#).*)?$""")


def _upper(name: str) -> bool:
    return name.isupper() and any(c.isalpha() for c in name) and len(name) >= 3


def read_constants(text: str) -> dict:
    """NAME -> literal of the constants `text` (code, or an edit's fragment of it) sets."""
    found = read_matching(text, _CONSTANT, groups=(2, 3), marks=("//", "#"),
                          keep=lambda m: m.group(1) or _upper(m.group(2)))
    for line in text.splitlines():  # (a constant of the same name wins: read above, kept below)
        m = _ARGUMENT.match(line) or _ENTRY.match(line)
        if m:
            name, value = next(g for g in m.groups()[:-1] if g), clean_value(m.group(m.lastindex), ("//", "#"))
            if value is not None and name not in found:
                found[name] = value
    return {name: value.replace("_", "") if value[:1].isdigit() else value for name, value in found.items()}


# `LEARNING_RATE = 3e-4`, `batch_size = 64`, `MODEL = "deberta-v3-base"`: a name given a literal on its own line
_ASSIGNMENT = re.compile(rf"^([A-Za-z_]\w{{0,60}})[ \t]*=[ \t]*{_LITERAL}[ \t]*(?:#.*)?$")


def read_assignments(code: str) -> dict:
    """name -> literal of the top-level lines of code that give a name a number, a string or a boolean (a
    notebook's parameters cell, where any name is a parameter); anything computed is left out."""
    return read_matching(code, _ASSIGNMENT)


def read_script(text: str) -> dict:
    """`--option` -> value and VARIABLE -> literal of a shell script; an option given several values says
    nothing about which one holds, and is left out."""
    options = {}
    for m in _OPTION.finditer(text):
        options.setdefault(m.group(1), set()).add(m.group(2))
    out = {name: next(iter(values)) for name, values in options.items() if len(values) == 1}
    out.update(read_matching(text, _SHELL_VARIABLE))
    return out
