"""Lockfiles: the version each package resolved to, as `package -> version`.

package-lock.json (the packages a project depends on directly: one `node_modules/` deep; lockfile v1's
`dependencies`), yarn.lock, pnpm-lock.yaml (the root importer's), poetry.lock / Cargo.lock / uv.lock (their
`[[package]]` tables), mix.lock and Gemfile.lock (its `specs:`, the gems at four spaces).
"""
import re

from brain.capture.settings.json_text import read_json
from brain.capture.settings.toml_text import read_toml
from brain.capture.settings.yaml_text import read_yaml

_NPM_PACKAGE = re.compile(r"^packages\.node_modules/((?:@[\w.-]+/)?[\w.-]+)\.version$")
_NPM_V1 = re.compile(r"^dependencies\.((?:@[\w.-]+/)?[\w.-]+)\.version$")


def _by_package(keys: dict, *patterns) -> dict:
    """package -> version of the key paths one of `patterns` matches (its group 1 names the package); a
    version written with its peers (pnpm's `18.3.1(react-dom@18.3.1)`) without them."""
    out = {}
    for key, value in keys.items():
        m = next((m for m in (pattern.match(key) for pattern in patterns) if m), None)
        if m and isinstance(value, str):
            out[m.group(1)] = value.split("(", 1)[0]
    return out


def read_package_lock(text: str) -> dict:
    return _by_package(read_json(text), _NPM_PACKAGE, _NPM_V1)


_YARN_ENTRY = re.compile(r"""^"?((?:@[\w.-]+/)?[\w.-]+)@[^\s:]*(?:,\s*[^:]+)?"?:\s*$""")
_YARN_VERSION = re.compile(r"""^\s+version:?\s+"?([^"\s]+)"?\s*$""")


def read_yarn_lock(text: str) -> dict:
    out, name = {}, None
    for line in text.splitlines():
        m = _YARN_ENTRY.match(line)
        if m:
            name = m.group(1)
            continue
        m = _YARN_VERSION.match(line)
        if m and name:
            out[name] = m.group(1)
            name = None
    return out


_PNPM_IMPORTER = re.compile(r"^importers\.\.\.(?:dev|optional)?[dD]ependencies\.((?:@[\w.-]+/)?[\w.-]+)\.version$")
_PNPM_ROOT = re.compile(r"^(?:dev|optional)?[dD]ependencies\.((?:@[\w.-]+/)?[\w.-]+)\.version$")


def read_pnpm_lock(text: str) -> dict:
    return _by_package(read_yaml(text), _PNPM_IMPORTER, _PNPM_ROOT)


_TABLE_PACKAGE = re.compile(r"^package\[([^\]]+)\]\.version$")


def read_package_tables(text: str) -> dict:
    """poetry.lock, Cargo.lock, uv.lock: `[[package]]` tables with a name and a version."""
    return _by_package(read_toml(text), _TABLE_PACKAGE)


_MIX_LOCK = re.compile(r'^\s*"([\w]+)":\s*\{:(?:hex|git),\s*:?[\w"]*,\s*"([^"]+)"')


def read_mix_lock(text: str) -> dict:
    return {m.group(1): m.group(2) for m in map(_MIX_LOCK.match, text.splitlines()) if m}


_GEM_SPEC = re.compile(r"^ {4}([\w.-]+) \(([^)\s]+)\)\s*$")


def read_gemfile_lock(text: str) -> dict:
    return {m.group(1): m.group(2) for m in map(_GEM_SPEC.match, text.splitlines()) if m}
