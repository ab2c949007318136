"""Settings an edit changed as written in a line, an option or a keyword argument: `waitlist-enabled: true` in a
configuration file (config_changes), `--partition=a100` (flag_changes), `materialized='view'` (argument_changes).
"""
import re

from brain.capture.tools.edits import findable
from brain.util.text import SWITCHES


# A setting on a line of its own in a configuration file: `waitlist-enabled: true`, `topic = "orders.v1"`.
_CONFIG_SUFFIXES = (".yml", ".yaml", ".toml", ".ini", ".cfg", ".conf", ".properties", ".env", ".tfvars", ".hcl",
                    ".tf")
_SETTING_LINE = re.compile(r"^[ \t]*(?:- )?([A-Za-z_][\w.-]{1,80})[ \t]*(?:=|:(?=[ \t]))[ \t]*"
                           r"[\"']?([^\s\"'#]{1,120})[\"']?[ \t]*(?:#[^\n]*)?\r?$", re.MULTILINE)


def _settings(text: str) -> dict:
    """name -> value of the settings `text` sets one to a line (a later line for the same name wins)."""
    return {m.group(1): m.group(2) for m in _SETTING_LINE.finditer(text)}


def _specific_name(name: str) -> bool:
    """A setting's name specific enough that a switch of it means something on its own: `waitlist-enabled`,
    `batchDoorOpen`, not `enabled` or `debug`, which many sections of a file (and other files) hold."""
    return len(name) >= 8 and (any(c in name for c in "-_.") or any(c.isupper() for c in name[1:]))


def _specific_word(value: str) -> bool:
    """A value a person would look for again: a switch (true, off), or a findable name (numbers are read
    elsewhere)."""
    return value.lower() in SWITCHES or (not value.replace(".", "").isdigit() and findable(value))


def config_changes(file_path: str, old: str, new: str) -> list:
    """("name = old value", "name = new value") for each setting an edit of a configuration file changed from one
    switch or name to another (`waitlist-enabled: false` into `true`, a topic renamed; a name's pair also bare:
    ("appointment-reminders", "clinic.reminders.v1")); numbers are edit_changes'."""
    if not file_path or not file_path.lower().endswith(_CONFIG_SUFFIXES) and \
            not file_path.replace("\\", "/").rsplit("/", 1)[-1].startswith(".env"):  # .env, .env.production
        return []
    before, after = _settings(old), _settings(new)
    pairs = []
    for name, value in before.items():
        if name in after and after[name] != value and _specific_word(value) and _specific_word(after[name]) \
                and (value.lower() not in SWITCHES or _specific_name(name)):
            pairs.append((f"{name} = {value}", f"{name} = {after[name]}"))
            if value.lower() not in SWITCHES:  # a renamed topic is also found by its names alone
                pairs.append((value, after[name]))
    return pairs


# A command-line option set in a file: `#SBATCH --partition=a100`, `--max-old-space-size=4096`, `ENTRYPOINT [...]`
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]{1,40})=([\w.:/@+-]{1,80})(?![\w.:/@+=,-])")  # not --env=K=V


def flag_changes(old: str, new: str) -> list:
    """("--name=old", "--name=new") for each option an edit gave another word, written once on each side
    (`--partition=a100` into `--partition=h100`: the option's name makes the pair findable; numbers, as in
    `--nodes=2`, are edit_changes')."""
    before, after = _flags(old), _flags(new)
    new_lines = {line.strip() for line in new.splitlines()}
    pairs = []
    for name, value in before.items():
        changed = after.get(name)
        if not changed or changed.lower() == value.lower() or changed.replace(".", "").isdigit() \
                or value.replace(".", "").isdigit():
            continue
        was, now = f"--{name}={value}", f"--{name}={changed}"
        # the same line with only the option's value changed: not another command given the option
        if any(was in line and line.strip().replace(was, now) in new_lines for line in old.splitlines()):
            pairs.append((was, now))
    return pairs


def _flags(text: str) -> dict:
    """option -> the one word `text` gives it (options given more than one left out)."""
    return _one_value_each((m.group(1), m.group(2)) for m in _FLAG.finditer(text))


def _one_value_each(pairs) -> dict:
    """name -> value of (name, value) pairs, for the names given one value only: a name given several says nothing
    about which one an edit changed."""
    found = {}
    for name, value in pairs:
        found.setdefault(name, set()).add(value)
    return {name: next(iter(values)) for name, values in found.items() if len(values) == 1}


# A keyword argument given a quoted word: `config(materialized='view')`, `Field(default="draft")`, a line of a
# call's arguments (`    materialized='incremental',`). After "(" or "," or alone on its line, and followed by "," or
# ")": a SQL predicate (`where status = 'active'`) or a markup attribute (`variant="primary"`) is no argument.
_QUOTED_ARGUMENT = re.compile(r"(?:[(,]|^)[ \t]*([A-Za-z_]\w{4,40})[ \t]*=[ \t]*(['\"])([A-Za-z][\w.-]{0,60})\2"
                              r"(?=[ \t]*[,)])", re.MULTILINE)


def argument_changes(old: str, new: str) -> list:
    """("name = old value", "name = new value") for each keyword argument an edit gave another quoted word
    (`config(materialized='view')` into `materialized='table'`), in any file: the name beside the value makes the
    pair specific even when the words are not ("view"). A name given several values on one side says nothing
    about which one changed, and is left out; numbers are edit_changes'."""
    before, after = _arguments(old), _arguments(new)
    return [(f"{name} = {value}", f"{name} = {after[name]}") for name, value in before.items()
            if name in after and after[name].lower() != value.lower()]


def _arguments(text: str) -> dict:
    """name -> the one quoted word `text` gives that keyword argument (names given more than one left out)."""
    return _one_value_each((m.group(1), m.group(3)) for m in _QUOTED_ARGUMENT.finditer(text))

