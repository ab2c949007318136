"""Environment files and version files.

.env files (`.env`, `.env.production`, `app.env`): `KEY=value` and `export KEY=value`; a quoted value keeps its
`#`, an unquoted one ends at ` #`. A value referring to another (`${DATABASE_URL}`) is none of its own.

Version files pin a tool's version for the folder: `.nvmrc` / `.node-version` (node), `.python-version`,
`.ruby-version`, `.terraform-version`, `.java-version`, `.go-version` (the file's first word), and
`.tool-versions` (asdf / mise: `nodejs 20.11.1` a line).
"""
import re

from brain.capture.settings.lines import read_matching

_ENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$")
VERSION_FILES = {".nvmrc": "node", ".node-version": "node", ".python-version": "python", ".ruby-version": "ruby",
                 ".terraform-version": "terraform", ".java-version": "java", ".go-version": "go",
                 ".bun-version": "bun"}


def read_env(text: str) -> dict:
    """KEY -> value of a .env file or fragment."""
    return read_matching(text, _ENV_LINE)


def read_version_file(name: str, text: str) -> dict:
    """{tool: version} of a version file named `name` (see the module doc)."""
    if name == ".tool-versions":
        out = {}
        for line in text.splitlines():
            parts = line.split("#", 1)[0].split()
            if len(parts) >= 2:
                out[parts[0]] = parts[1]
        return out
    tool = VERSION_FILES.get(name)
    first = next((line.split("#", 1)[0].strip() for line in text.splitlines() if line.split("#", 1)[0].strip()), "")
    if not tool or not first or " " in first or len(first) > 40:
        return {}
    return {tool: first}
