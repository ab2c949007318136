"""INI, cfg and properties files read as `section.key` -> value (setup.cfg, tox.ini, .editorconfig, systemd
units, application.properties, gradle.properties, .npmrc).

`[section]` names the keys after it; `key = value`, `key: value` (`;` and `#` start a comment). A line indented
under a key with no value on its own line continues that key (setup.cfg's lists): it is no key of its own; other
indented keys are keys (git's and DVC's config indent every key under its section).
"""
import re

from brain.capture.settings.lines import clean_value

_SECTION = re.compile(r"^\s*\[([^\]]{1,120})\]\s*$")
_PAIR = re.compile(r"^([A-Za-z0-9_@$][\w.@$/*:-]{0,120}?)\s*(?:=|:)\s*(.*)$")


def read_ini(text: str) -> dict:
    """key path -> value of an INI-like file or fragment (see the module doc)."""
    out, section, continued = {}, "", False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#;!":
            continue
        m = _SECTION.match(line)
        if m:
            section, continued = m.group(1).strip(), False
            if len(section) > 1 and section[0] == section[-1] and section[0] in "\"'":
                section = section[1:-1]  # DVC quotes a section naming a remote: `['remote "lab"']`
            continue
        if line[:1] in " \t" and continued:
            continue  # a continued value
        m = _PAIR.match(stripped)
        if not m:
            continue
        continued = not m.group(2).strip()
        value = clean_value(m.group(2), ("#", ";"))
        if value is not None:
            out[f"{section}.{m.group(1)}" if section else m.group(1)] = value
    return out
