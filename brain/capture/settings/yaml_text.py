"""YAML read as key paths (Helm values, Compose files, CI workflows, Kubernetes manifests, app configs).

A tolerant reader of the block style people write by hand, not a YAML parser: it reads a whole file or the
fragment an Edit replaced (whose first line may be indented, whose parents may be missing), never raises, and
leaves what is no setting: block scalars (a `run: |` script), templates, anchors' targets. Nested keys become
dotted paths (`autoscaling.maxReplicas`); a list item is named by its `name`, `id` or action (`steps[Set up
node].with.node-version`, `containers[api].image`), else by its position.

A Kubernetes manifest often holds several objects (a Deployment and its Service, two CronJobs), so `spec.replicas`
alone does not say whose: read_manifest puts each document naming its `kind` and `metadata.name` under
`Kind/name.` (`Deployment/api.spec.replicas`, `CronJob/digest.spec.schedule`); its identity fields are the key,
not settings. A document without them (a Helm template's `name: {{ ... }}`) keeps its plain key paths.
"""
from brain.capture.settings.lines import clean_value, flatten

_BLOCK_SCALAR = ("|", ">")


def _logical_lines(text: str) -> list:
    """(indent, content) of each line holding something, comments and document markers aside; a document
    separator is (-1, "---")."""
    out = []
    for raw in text.expandtabs(2).splitlines():
        content = raw.strip()
        if not content or content.startswith("#"):
            continue
        if content.startswith("---") or content == "...":
            out.append((-1, "---"))
            continue
        out.append((len(raw) - len(raw.lstrip(" ")), content))
    return out


def _split_key(content: str):
    """(key, rest) of a `key: rest` line, or None. The colon must end the line or be followed by a space: a URL or
    a time (`https://x`, `04:30`) is not a key."""
    if content.startswith(("'", '"')):
        end = content.find(content[0], 1)
        if end < 0 or not content[end + 1:].lstrip().startswith(":"):
            return None
        key, rest = content[1:end], content[end + 1:].lstrip()[1:]
        return (key, rest.strip()) if not rest or rest[:1] in " \t" else None
    at = 0
    while True:
        at = content.find(":", at)
        if at < 0:
            return None
        if at + 1 == len(content) or content[at + 1] in " \t":
            key = content[:at].strip()
            if not key or key.startswith(("- ", "[", "{", "&", "*", "!")) or "#" in key or len(key) > 120:
                return None
            return key, content[at + 1:].strip()
        at += 1


def _flow(text: str):
    """A one-line flow collection (`[a, b]`, `{a: 1}`) as a tuple or dict of cleaned values (nested ones kept raw)."""
    inner = text[1:-1].strip()
    parts = [p.strip() for p in inner.split(",") if p.strip()] if inner else []
    if text.startswith("["):
        return tuple(clean_value(part) for part in parts)
    out = {}
    for part in parts:
        split = _split_key(part) or (None, None)
        if split[0] is not None:
            out[split[0]] = clean_value(split[1])
    return out


def _scalar(rest: str):
    rest = rest.strip()
    if rest.startswith("&"):  # an anchor before the value: `base: &base 8080`
        rest = rest.partition(" ")[2].strip()
    if rest.startswith("!"):  # a tag: `!!str 8080`, `!Ref X`
        rest = rest.partition(" ")[2].strip()
    if not rest or rest.startswith("*"):  # an alias: its value is elsewhere
        return None
    value = clean_value(rest)
    if isinstance(value, str) and len(value) >= 2 and value[0] + value[-1] in ("[]", "{}"):
        return _flow(value)
    return value


def _is_item(content: str) -> bool:
    return content == "-" or content.startswith("- ")


def _skip_deeper(lines, i: int, indent: int) -> int:
    while i < len(lines) and lines[i][0] > indent:
        i += 1
    return i


def _mapping(lines, i: int, indent: int, first=None):
    """A mapping whose keys stand at `indent`, from line i (or from `first`, the content after a list item's
    dash, which counts as a line at `indent`). Returns (dict, next line)."""
    node = {}
    while True:
        if first is not None:
            content, first = first, None
        elif i < len(lines) and lines[i][0] == indent and not _is_item(lines[i][1]):
            content = lines[i][1]
            i += 1
        else:
            break
        split = _split_key(content)
        if split is None:
            i = _skip_deeper(lines, i, indent)  # a plain line (a continued scalar): nothing to read
            continue
        key, rest = split
        if rest[:1] in _BLOCK_SCALAR and rest.rstrip("+-0123456789") in _BLOCK_SCALAR:
            i = _skip_deeper(lines, i, indent)  # a script or a text block: not a setting
            node[key] = None
            continue
        value = _scalar(rest) if rest else None
        if value is None and (not rest or rest.startswith(("&", "!")) and " " not in rest):  # `key:` or `key: &a`
            if i < len(lines) and lines[i][0] > indent:
                value, i = _block(lines, i, lines[i][0])
            elif i < len(lines) and lines[i][0] == indent and _is_item(lines[i][1]):
                value, i = _sequence(lines, i, indent)  # a list written at its key's indent
        node[key] = value
    return node, i


def _sequence(lines, i: int, indent: int):
    items = []
    while i < len(lines) and lines[i][0] == indent and _is_item(lines[i][1]):
        rest = lines[i][1][1:].strip()
        i += 1
        if not rest:
            if i < len(lines) and lines[i][0] > indent:
                item, i = _block(lines, i, lines[i][0])
                items.append(item)
            continue
        if _is_item(rest):  # `- - a`: a list in a list, rare in configuration
            i = _skip_deeper(lines, i, indent)
            continue
        if _split_key(rest) is not None:
            inner = indent + 2
            if i < len(lines) and lines[i][0] > indent:
                inner = lines[i][0]
            item, i = _mapping(lines, i, inner, first=rest)
            items.append(item)
            i = _skip_deeper(lines, i, indent)
        else:
            items.append(_scalar(rest))
            i = _skip_deeper(lines, i, indent)
    return items, i


def _block(lines, i: int, indent: int):
    if _is_item(lines[i][1]):
        return _sequence(lines, i, indent)
    return _mapping(lines, i, indent)


def read_documents(text: str) -> list:
    """The documents of `text` as nested dicts and lists. A fragment's lines at an indent lower than its first
    line's (the parents an Edit left out) continue at the top."""
    lines = _logical_lines(text)
    documents, current, i = [], {}, 0
    while i < len(lines):
        indent, content = lines[i]
        if indent < 0:
            if current:
                documents.append(current)
            current, i = {}, i + 1
            continue
        node, after = _block(lines, i, indent)
        if after == i:  # nothing could be read from this line
            i += 1
            continue
        i = after
        if isinstance(node, dict):
            current.update(node)
        elif node:  # a list at the top: a playbook, or list items an Edit replaced
            current.setdefault("", []).extend(node)
    if current:
        documents.append(current)
    return documents


def read_yaml(text: str) -> dict:
    """key path -> value of every document in `text` (a later document's key wins)."""
    out = {}
    for document in read_documents(text):
        items = document.pop("", None)
        flatten(document, "", out)
        if items:
            flatten(items, "", out)
    return out


# ---------------------------------------------------------------------------------------------------- Kubernetes
_IDENTITY = ("apiVersion", "kind", "metadata.name", "metadata.namespace")


def object_name(document: dict):
    """"Kind/name" of a manifest document, or None."""
    kind, metadata = document.get("kind"), document.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if isinstance(kind, str) and isinstance(name, str) and kind and name:
        return f"{kind}/{name}"
    return None


def read_manifest(text: str) -> dict:
    """key path -> value of the objects in a manifest file (see the module doc)."""
    out = {}
    for document in read_documents(text):
        document.pop("", None)
        owner = object_name(document)
        for key, value in flatten(document).items():
            if key not in _IDENTITY:
                out[f"{owner}.{key}" if owner else key] = value
    return out


def is_manifest(text: str) -> bool:
    """Whether a YAML file is a Kubernetes manifest: a top-level `apiVersion:` and `kind:`."""
    return "\napiVersion:" in "\n" + text and "\nkind:" in "\n" + text
