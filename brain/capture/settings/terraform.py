"""Terraform and other HCL: a block's literal attributes under the block's address.

`resource "aws_instance" "web" { instance_type = "t3.small" }` is `aws_instance.web.instance_type`; `variable
"region" { default = "eu-west-1" }` is `var.region`, which a .tfvars file's `region = "eu-central-1"` sets too;
`module "vpc" { version = "5.1.0" }` is `module.vpc.version`; a provider in `required_providers` (`aws = { source
= "hashicorp/aws", version = "~> 5.0" }`) is `provider aws version`, and `required_version` is `terraform
required_version`. An attribute that refers to something (`var.x`, `"${local.y}"`, a function call) is the other
thing's to say; so are the objects of a list (`container_definitions = jsonencode([{ name = "app" }, ...])`: each
container's `name` is not the task definition's).
"""
import re

from brain.capture.settings.lines import clean_value

_BLOCK = re.compile(r'^\s*([A-Za-z_][\w-]*)((?:\s+"[^"]*")*)\s*\{\s*$')
_ATTRIBUTE = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*=\s*(.*\S)")
_INLINE_OBJECT = re.compile(r'(?<![\w-])([A-Za-z_][\w-]*)\s*=\s*("[^"]*"|[\w.-]+)')
_LITERAL = re.compile(r'^(?:"[^"$]*"|-?\d+(?:\.\d+)?|true|false)$')
_ITEM = None  # on the path: inside a list (`jsonencode([ {...}, {...} ])`), whose items' names are not its block's


def _address(kind: str, labels: list) -> str:
    if kind == "variable" and labels:
        return f"var.{labels[0]}"
    if kind == "locals":
        return "local"
    if kind == "resource" and len(labels) == 2:
        return ".".join(labels)
    if kind in ("data", "module", "provider", "output") and labels:
        return ".".join([kind] + labels)
    return ".".join([kind] + labels)


def _key(path: list, name: str) -> str:
    if len(path) == 1 and path[0].startswith("var.") and name == "default":
        return path[0]
    if path[:2] == ["terraform", "required_providers"] and len(path) == 3 and name == "version":
        return f"provider {path[2]} version"
    if path == ["terraform"] and name == "required_version":
        return "terraform required_version"
    return ".".join(path + [name])


def read_hcl(text: str, *, tfvars: bool = False) -> dict:
    """key -> literal value of a Terraform file or fragment (a .tfvars file's top-level names are variables)."""
    out, path = {}, []
    for line in text.splitlines():
        code = line.split("#", 1)[0].split("//", 1)[0].rstrip()
        if not code.strip():
            continue
        block = _BLOCK.match(code)
        if block:
            labels = re.findall(r'"([^"]*)"', block.group(2))
            path.append(_address(block.group(1), labels) if not path else block.group(1))
            continue
        if code.strip().startswith(("}", "]", ")")):
            if path:
                path.pop()
            if code.rstrip(",").endswith(("{", "[")):  # `}, {`: the next item of a list
                path.append(_ITEM)
            continue
        attribute = _ATTRIBUTE.match(code)
        if code.endswith(("[", "{")) and not (attribute and attribute.group(2) == "{"):
            path.append(_ITEM)  # a list, or an object in one: its items are no attributes of the block
            continue
        if attribute and _ITEM in path:
            continue
        if attribute:
            name, raw = attribute.groups()
            if raw == "{":  # an object attribute: its keys under its name
                path.append(name)
            elif raw.startswith("{") and raw.endswith("}"):
                for inner, value in _INLINE_OBJECT.findall(raw):
                    if _LITERAL.match(value):
                        out[_key(path + [name], inner)] = clean_value(value)
            elif _LITERAL.match(raw):
                out[f"var.{name}" if tfvars and not path else _key(path, name)] = clean_value(raw)
            continue
    return {key: value for key, value in out.items() if value is not None}
