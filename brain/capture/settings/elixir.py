"""Elixir configuration (config/config.exs, dev.exs, prod.exs, runtime.exs): `config :app, Module, key: value`.

A keyword's key names the application, the module when there is one, and the keyword: `config :shop,
Shop.Repo, pool_size: 10` is `config :shop, Shop.Repo, pool_size`; `config :logger, level: :info` is
`config :logger, level`. The keywords may run over the lines after the `config` line, indented (an Edit's fragment
may hold such lines alone: their keys are the bare keywords). Literal values
only (strings, numbers, atoms, booleans): a value read from the environment is known at run time, not here. A
tuple's options are keyed by its module (`{Oban.Plugins.Pruner, max_age: 604800}`: `Oban.Plugins.Pruner.max_age`),
a schedule paired with its job by the job (`{"30 17 * * *", App.Reminder}`: `App.Reminder schedule`).
"""
import re

from brain.capture.settings.code import read_within_lines

_CONFIG = re.compile(r"^\s*config\s+:([\w]+)\s*,\s*(?:([A-Z][\w.]*)\s*,\s*)?(.*)$")
# A literal: a string, an atom, a number, a boolean, nil, or a module (`adapter: Swoosh.Adapters.Brevo`).
_KEYWORD = re.compile(r'(?:^|,)\s*([a-z_][\w]*):\s+("(?:[^"\\]|\\.)*"|:[\w]+|-?\d[\d_]*(?:\.\d+)?|true|false|nil'
                      r"|[A-Z]\w*(?:\.[A-Z]\w*)*)\s*(?=,|$)")
_CONTINUED = re.compile(r"^\s+[a-z_][\w]*:\s")
_KEYWORD_LINE = re.compile(r"^[a-z_][\w]*:\s")  # an Edit's fragment cut at the keyword, its indent left out


def read_elixir_config(text: str) -> dict:
    """key -> literal value of the `config` calls in an Elixir config file or fragment."""
    out, owner = {}, None
    fragment = not any(_CONFIG.match(line.split("#", 1)[0]) for line in text.splitlines())
    for line in text.splitlines():
        code = line.split("#", 1)[0].rstrip()
        m = _CONFIG.match(code)
        if m:
            owner = f"config :{m.group(1)}, {m.group(2)}," if m.group(2) else f"config :{m.group(1)},"
            rest = m.group(3)
        elif _CONTINUED.match(code) or (fragment and _KEYWORD_LINE.match(code)):  # a keyword of the config above
            # (in a fragment: of one not shown)
            rest = code
        else:
            if code.strip() and not code[:1].isspace():
                owner = None  # another statement: the keywords that follow are not this config's
            continue
        for keyword in _KEYWORD.finditer(rest.strip()):
            value = keyword.group(2)
            if value != "nil":
                number = value[:1].isdigit() or value[:1] == "-"
                out[f"{owner} {keyword.group(1)}" if owner else keyword.group(1)] = \
                    value.replace("_", "") if number else value.strip('"')
    # a plugin's options (`{Oban.Plugins.Pruner, max_age: 60 * 60 * 24 * 7}`) and a job list's schedules
    for key, value in read_within_lines(text).items():
        out.setdefault(key, value)
    return out
