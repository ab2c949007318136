"""What the settings readers share: a value as written (quotes and a trailing comment off), what is no value
(a template, a reference resolved elsewhere, a script), and the generic reader of a config-like file made of
`key: value` or `key = value` lines.
"""
import re

MAX_VALUE = 200  # a longer value is a script or a blob, not a setting a person looks for again
LIST_ITEMS = 12  # a list of more scalars than this is data, not a setting

# `{{ .Values.x }}`, `${VAR}`, `<%= ENV["X"] %>`, `%{...}`, `#{...}`: a value worked out elsewhere
_TEMPLATE = ("{{", "}}", "${", "<%", "%{", "#{")


def unquote(text: str) -> str:
    """`text` without one pair of matching quotes around it."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        return text[1:-1]
    return text


def without_comment(text: str, marks=("#",)) -> str:
    """`text` up to a comment mark that stands outside quotes after a space (or at the start): `8080  # api`."""
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif any(text.startswith(mark, i) for mark in marks) and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip()
    return text.rstrip()


def clean_value(raw, marks=("#",)):
    """The value a setting line gives, as written, or None when it gives none a person would look for: empty,
    a template or a reference worked out elsewhere, or longer than MAX_VALUE."""
    if raw is None:
        return None
    if isinstance(raw, tuple):
        items = tuple(v for v in (clean_value(item, marks) for item in raw) if v is not None)
        return items if 0 < len(items) <= LIST_ITEMS else None
    text = unquote(without_comment(str(raw).strip(), marks).strip()).strip()
    if not text or len(text) > MAX_VALUE or any(mark in text for mark in _TEMPLATE):
        return None
    return text


def plain_value(value):
    """A parsed value (JSON's true, 8080, "x") as settings keep it, or None (see clean_value)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        items = tuple(v for v in (plain_value(item) for item in value) if v is not None)
        return items if 0 < len(items) <= LIST_ITEMS else None
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value).strip()
    if not text or len(text) > MAX_VALUE or any(mark in text for mark in _TEMPLATE):
        return None
    return text


_KEY = r"[A-Za-z_][\w.-]{0,80}"
# `key: value`, `key = value`, `key=value`, `param key = value` (a keyword before the name: Bicep, shell)
_SETTING = re.compile(rf"^[ \t]*(?:(?:param|set|var|let|const|export)[ \t]+)?({_KEY})[ \t]*(=|:(?=[ \t]))[ \t]*(\S.*)$")
_ASSIGNMENT = re.compile(rf"^[ \t]*(?:export[ \t]+|override[ \t]+)?({_KEY})[ \t]*(?::=|\?=|\+=|=)[ \t]*(\S.*)$")


def read_generic(text: str, *, equals_only: bool = False) -> dict:
    """key -> value of a config-like file's `key: value` / `key = value` lines (a later line wins). With
    `equals_only` (a Makefile, where `target: deps` is no setting), `=`, `:=` and `?=` only. Lines that call
    something (`key = compute(x)`) are code, not settings."""
    out = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";", "//", "--", "!")):
            continue
        m = (_ASSIGNMENT if equals_only else _SETTING).match(line)
        if not m:
            continue
        value = m.group(m.lastindex)
        if "(" in value and ")" in value and not value.lstrip().startswith(("'", '"')):
            continue
        value = clean_value(value.rstrip(";,"), ("#", ";") if not equals_only else ("#",))
        if value is not None:
            out[m.group(1)] = value
    return out


def label_of(item: dict):
    """(field, label): what names a list item in a key path, its `name`, `id` or `key` (a step `uses:
    actions/setup-node@v4` is actions/setup-node, a step `run: npm test` is npm test; a dependency list's
    `package`, `repo` or `chart`: dbt's packages.yml, pre-commit's hooks, a helmfile; a route's `path` or
    `source`: vercel.json's crons and rewrites; Azure Pipelines' `stage`, `deployment` and `displayName`), else
    (None, None)."""
    for field in ("name", "id", "key", "uses", "job", "stage", "deployment", "kind", "run", "package", "repo", "chart",
                  "path", "source", "service", "title", "label", "displayName"):
        value = item.get(field)
        if isinstance(value, str) and value and len(value) <= 60:
            return field, value.split("@", 1)[0] if field == "uses" else value
    return None, None


def flatten(node, prefix: str = "", out=None) -> dict:
    """key path -> value of a nested structure (dicts, lists, scalars): `a.b`, list items as `a[name]` (label_of),
    a list's only item as `a[0]`; a list of scalars is one value (a tuple). Items of a longer list that nothing
    names are left out: their positions move when an item comes or goes, and a position is no key."""
    out = {} if out is None else out
    if isinstance(node, dict):
        for key, value in node.items():
            flatten(value, f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(node, list):
        if node and all(not isinstance(item, (dict, list)) for item in node):
            if prefix:
                out[prefix] = tuple(item for item in node if item is not None)
            return out
        for index, item in enumerate(node):
            field, label = label_of(item) if isinstance(item, dict) else (None, None)
            if label is None and len(node) > 1:
                continue
            if label is not None and item[field] == label:  # the name is in the path: not a setting of its own
                item = {key: value for key, value in item.items() if key != field}
            flatten(item, f"{prefix}[{label if label is not None else index}]", out)
    elif node is not None and prefix:
        out[prefix] = node
    return out



def read_matching(text: str, pattern, *, groups=(1, 2), marks=("#",), keep=None) -> dict:
    """name -> value (see clean_value) of the lines `pattern` matches (and `keep(match)` accepts), from its
    `groups` (the name's, the value's); a later line for the same name wins."""
    out = {}
    for line in text.splitlines():
        m = pattern.match(line)
        if m and (keep is None or keep(m)):
            value = clean_value(m.group(groups[1]), marks)
            if value is not None:
                out[m.group(groups[0])] = value
    return out


LINE_CHARS = 100  # a setting's line longer than this is a script or a blob: not quoted


# A column's attributes as keys name them (`orders.code type`): the length in each framework's own word
COLUMN_ATTRIBUTES = ("default", "type", "limit", "max_length", "maxLength", "size")


def written_line(text: str, key: str, value: str):
    """The line of `text` that sets `key` to `value`, as written (`maxReplicas: 8` for `autoscaling.maxReplicas`,
    `export PORT=8090`), else the one line that is the value alone (a list's item), or None (for a key without a
    name, the one line holding the value)."""
    head, _, attribute = key.rpartition(" ")
    if head and attribute in COLUMN_ATTRIBUTES:  # `orders.code type`: the column's line, else the
        column = head.rsplit(".", 1)[-1]  # attribute's (`max_length=40` in a migration's AlterField)
        return written_line(text, column, value) or written_line(text, attribute, value)
    name = re.split(r"[.\s\[\],]+", key.strip(" ]"))[-1] if key.strip() else ""
    if name.isdigit():  # a position (`FROM 2`, the second stage) names nothing a line shows
        name = ""
    separated = value.isdigit() and len(value) >= 4  # `timeout: 90_000` is read as 90000
    lines = [line.strip().rstrip(",;") for line in text.splitlines()
             if value in line or (separated and value in line.replace("_", ""))]
    if not name and len(lines) != 1:
        return None
    named = next((line for line in lines if (not name or name in line) and len(line) <= LINE_CHARS), None)
    # else the one line that is the value alone: a list's item (`- "8443:443"`), a call's argument on its line
    alone = [line for line in lines if line.strip(" \t-\"',;)") == value]
    return named or (alone[0] if len(alone) == 1 and len(alone[0]) <= LINE_CHARS else None)


_BRACED_OPEN = re.compile(r"""^\s*(?:(?:resource|module)\s+)?['"]?([A-Za-z_][\w.-]{0,60})['"]?"""
                          r"""(?:[^:={\[]*?(?::|=)\s*(?:\w+\s+)?[{\[]|\s*(?:<[\w.<>, ]*>)?\s*\{)\s*(?://.*)?$""")
_BRACED_ENTRY = re.compile(r"^\s*([A-Za-z_][\w-]{0,60})\s*[:=]\s*([^{\[\s].*?)\s*$")


def read_braced(text: str) -> dict:
    """`key: value` or `key = value` lines in nested braces without commas (Bicep, Gradle's blocks): each key under
    the blocks it is inside (`api.properties.template.scale.minReplicas`, `jib.from.image`); a block with no name
    (a list's item) adds none."""
    out, parents = {}, []
    for line in text.splitlines():
        stripped = line.split("//", 1)[0].strip()
        if stripped[:1] in ("}", "]"):
            if parents:
                parents.pop()
            continue
        opens = _BRACED_OPEN.match(line)
        if opens or stripped in ("{", "["):
            parents.append(opens.group(1) if opens else None)
            continue
        m = _BRACED_ENTRY.match(line)
        if m:
            value = clean_value(m.group(2), ("//",))
            if value is not None:
                out[".".join([p for p in parents if p] + [m.group(1)])] = value
    return out


_CRON_LINE = re.compile(r"^[ \t]*((?:[\d*][\d*/,-]*[ \t]+){4}[\d*][\d*/,-]*|"
                        r"@(?:hourly|daily|weekly|monthly|yearly|reboot))"
                        r"[ \t]+(\S.*?)[ \t]*$")
COMMAND_KEY_CHARS = 60


def read_crontab(text: str) -> dict:
    """A crontab's jobs (`30 22 * * * /app/bin/report --send`): `COMMAND schedule` -> the schedule, the
    command cut to COMMAND_KEY_CHARS (a system crontab's user field stays part of it)."""
    out = {}
    for line in text.splitlines():
        m = _CRON_LINE.match(line)
        if m and not line.lstrip().startswith("#"):
            out[f"{m.group(2)[:COMMAND_KEY_CHARS].rstrip()} schedule"] = m.group(1)
    return out
