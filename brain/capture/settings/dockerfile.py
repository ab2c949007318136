"""Dockerfiles: the base image of each stage, build arguments, environment, ports, the user, the command.

`FROM node:20-alpine AS build` is `FROM build` (a stage without a name: `FROM`, then `FROM 2`...) = the image;
`ARG NODE_VERSION=20` is `ARG NODE_VERSION`; `ENV PORT=8080 LOG=info` (or `ENV PORT 8080`) is `ENV PORT`...;
`EXPOSE`, `USER`, `WORKDIR`, `CMD`, `ENTRYPOINT` as written. Continued lines (`\\`) are one instruction; an image
written with a build argument (`node:${NODE_VERSION}`) is the argument's to say.
"""
import re

from brain.capture.settings.lines import clean_value

_INSTRUCTION = re.compile(r"^\s*([A-Za-z]+)\s+(.*)$")
_FROM = re.compile(r"^(?:--platform=\S+\s+)?(\S+)(?:\s+[Aa][Ss]\s+([\w.-]+))?\s*$")
_ENV_PAIR = re.compile(r"""(?<![\w.])([A-Za-z_][\w.]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S+)""")
_AS_WRITTEN = ("EXPOSE", "USER", "WORKDIR", "CMD", "ENTRYPOINT", "STOPSIGNAL")


def _instructions(text: str):
    pending = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        yield pending + stripped
        pending = ""
    if pending:
        yield pending


def read_dockerfile(text: str) -> dict:
    """instruction key -> value of a Dockerfile or fragment (see the module doc)."""
    out, stages = {}, 0
    for instruction in _instructions(text):
        m = _INSTRUCTION.match(instruction)
        if not m:
            continue
        name, rest = m.group(1).upper(), m.group(2).strip()
        if name == "FROM":
            image = _FROM.match(rest)
            if not image:
                continue
            stages += 1
            key = f"FROM {image.group(2)}" if image.group(2) else ("FROM" if stages == 1 else f"FROM {stages}")
            value = clean_value(image.group(1))
            if value is not None:
                out[key] = value
        elif name in ("ARG", "ENV"):
            pairs = _ENV_PAIR.findall(rest)
            if not pairs and name == "ENV" and " " in rest:  # the older `ENV KEY value`
                pairs = [tuple(rest.split(None, 1))]
            for key, value in pairs:
                value = clean_value(value)
                if value is not None:
                    out[f"{name} {key}"] = value
        elif name in _AS_WRITTEN:
            value = clean_value(rest)
            if value is not None:
                out[name] = value
    return out
