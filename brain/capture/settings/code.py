"""Settings written in source code and shell scripts.

In code, a constant given a literal is a setting (`HUBSPOT_MAX_RPS = 4`, `export const MAX_UPLOAD_MB = 25;`,
`const val MAX_DOCS = 64`, `pub const RETENTION_DAYS: u32 = 30;`, Go's `const maxRetries = 5`): an UPPER_CASE
name, or any name a `const` declares. A literal may be a quantity written as a product of numbers and a unit
(`20 * time.Minute`, `60 * 60 * 24 * 30`, `72.hours`): the number is what a person set; anything else computed
(`env("X")`, `base * 2`) is none. So is a literal written as configuration is in code, one to a line and ending
with a comma: an argument (`    retries=3,`, `schedule="0 6 * * *",`) or an entry of a dict or object
(`"retries": 3,`, `port: 5173,`, PHP's and Ruby's `'retries' => 3,`; a quoted key needs no comma); a value may be
a call of a few literals (`crontab(hour=7, minute=15)`), unless it reads the environment (`env("X")`). Named arguments
written inside one line's call are its settings too, keyed by the call (`RetryPolicy(max_retries=3, delay=60)`:
`RetryPolicy.max_retries`; `http.Client{Timeout: 10 * time.Second}`), or by the name the line gives it
(`daily = ScheduleDefinition(cron_schedule="0 7 * * *")`: `daily.cron_schedule`), unless the text gives one key
two values (two calls alike: which one a person means is unknown); a job list's schedules are keyed by their job
(`{"30 17 * * *", App.Reminder}`). An entry inside named dicts or objects is keyed by their names too
(`CELERY_BEAT_SCHEDULE.overdue-report.schedule`): an edit's fragment gives the entry alone, completed from the
keys known before (latest.Known.resolve). Variables are left alone: code assigns them all the time (`count = 0`), a
constant or an argument written out is what a person sets.

A typed declaration is one too (`static final int MAX_RETRIES = 5;`, `const int MaxRetries = 5;`, `constexpr
uint32_t kSampleMs = 45000;`), and so is a C or C++ macro given a literal (`#define MQTT_PORT 8884`) and an
Elixir module attribute (`@week_start :monday`: `@week_start`).

In a shell script (a SLURM batch file, a deploy script), a long option given one value (`#SBATCH
--partition=h100`: `--partition`) and a variable given a literal (`REGION=eu-west-1`). In a notebook's cell,
any name given a literal: a cell of parameters (`lr = 3e-4`); a whole notebook's JSON, its code cells.
"""
import re

from brain.capture.settings.lines import clean_value, read_matching

_NUMBER = r"-?\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?"
# A quantity: numbers multiplied, by a unit named as a library's constant (`time.Minute`, `TimeUnit.SECONDS`,
# `MINUTE`) or written as a method of the number (`72.hours`, `30.seconds`).
_UNIT = r"(?:[a-z]\w{0,20}\.[A-Z]\w{0,30}|[A-Z][A-Z_]{1,30})"
_PRODUCT = rf"(?:{_NUMBER}(?:[ \t]*\*[ \t]*{_NUMBER})*[ \t]*\*[ \t]*{_UNIT}|{_UNIT}[ \t]*\*[ \t]*{_NUMBER}" \
           rf"|{_NUMBER}(?:[ \t]*\*[ \t]*{_NUMBER})+|\d+\.(?:milli)?(?:seconds?|minutes?|hours?|days?|weeks?|months?" \
           rf"|years?|bytes?|kilobytes?|megabytes?|gigabytes?)\b)"
_LITERAL = rf"""({_PRODUCT}|0[xX][0-9A-Fa-f]{{1,16}}|{_NUMBER}[A-Za-z]{{0,3}}|"[^"\n]*"|'[^'\n]*'|true|false|True|""" \
           r"""False)"""
_MODIFIERS = r"(?:(?:export|pub(?:\(crate\))?|let|var|val|final|static|public|private|protected|internal|readonly|" \
             r"override|lateinit)\s+)*"
# The type a C, C++, Java or C# declaration gives before the name (`uint32_t`, `const char*`, `List<String>`)
_TYPE = r"(?:[A-Za-z_]\w{0,30}(?:(?:::|\.)\w{1,30}){0,4}(?:<[\w:<>, .?]{0,40}>)?(?:\[\])?[ \t]*[*&]?[ \t]+)?"
_CONSTANT = re.compile(rf"^\s*{_MODIFIERS}(const\s+|constexpr\s+)?{_MODIFIERS}{_TYPE}([A-Za-z_]\w{{1,60}})"
                       rf"\s*(?::\s*[\w<>\[\].?, ]{{1,40}})?\s*:?=\s*{_LITERAL}\s*[;,]?\s*(?:(?://|#).*)?$")
# C's and C++'s `#define MQTT_PORT 8884` (a value in parentheses too: `#define SAMPLE_MS (45 * 1000)`)
_DEFINE = re.compile(rf"^[ \t]*#[ \t]*define[ \t]+([A-Z][A-Z0-9_]{{2,60}})[ \t]+(?:{_LITERAL}|\({_LITERAL}\))"
                     rf"[ \t]*(?:(?://|/\*).*)?$")
# Elixir's module attribute given a literal (`@magic_link_minutes 30`, `@week_start :monday`): its constants
_ATTRIBUTE = re.compile(rf"^[ \t]*@([a-z_]\w{{1,60}})[ \t]+(?:{_LITERAL}|(:[a-z_]\w{{0,40}}))[ \t]*(?:#.*)?$")
# Attributes Elixir itself reads (`@doc false`, `@impl true`): no setting of the project's
_ELIXIR_ANNOTATIONS = frozenset("doc moduledoc typedoc impl spec type typep opaque callback behaviour derive "
                                "enforce_keys dialyzer compile deprecated since tag moduletag describetag "
                                "external_resource on_load vsn before_compile after_compile".split())
# An integer's C suffix (`90UL`, `2048u`): the number is what a person set
_C_SUFFIX = re.compile(r"^(\d+)[uUlL]{1,3}$")
_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]{1,40})=([\w.:/@+-]{1,80})(?![\w.:/@+=,-])")
_SHELL_VARIABLE = re.compile(r"^\s*(?:export\s+)?([A-Z][A-Z0-9_]{1,60})=(\"[^\"$`]*\"|'[^']*'|[\w.:/@+-]+)\s*(?:#.*)?$")


# A literal, or a call of a few (`timedelta(minutes=10)`, `crontab(hour=7, minute=15)`, `Timeout(30.0, connect=5.0)`):
# a value written, not computed.
_CALL_ARGUMENT = rf"(?:[A-Za-z_]\w{{0,30}}[ \t]*=[ \t]*)?(?:{_LITERAL[1:-1]})"
# or one of two literals a condition chooses (`retries: process.env.CI ? 2 : 0`)
_CHOSEN = rf"[A-Za-z_][\w.]{{0,40}}[ \t]*\?[ \t]*(?:{_LITERAL[1:-1]})[ \t]*:[ \t]*" \
          rf"(?:{_LITERAL[1:-1]}|undefined|null|None)"
_WRITTEN = rf"((?:{_LITERAL[1:-1]})|[A-Za-z_][\w.]{{0,40}}\({_CALL_ARGUMENT}(?:,[ \t]*{_CALL_ARGUMENT}){{0,3}}\)|" \
           rf"{_CHOSEN})"
_ARGUMENT = re.compile(rf"^\s+([a-z_][a-z0-9_]{{2,60}})={_WRITTEN},\s*(?:(?://|#).*)?$")
_ENTRY = re.compile(rf"""^\s+(?:"([A-Za-z_/][\w./:-]{{0,60}})"|'([A-Za-z_/][\w./:-]{{0,60}})'"""
                    rf"""|([A-Za-z_]\w{{1,60}})(?=\s*:\s*\S.*,))\s*:\s*{_WRITTEN}\s*,?\s*(?:(?://|#).*)?$""")
# A line opening a dict or an object the entries below belong to: `"overdue-report": {`, `default_args={`,
# `CELERY_BEAT_SCHEDULE = {`, `'defaults' => [` (their names make the entries' keys: two schedules apart)
_OPENS = re.compile(r"""^\s*(?:(?:export\s+)?(?:const|let|var)\s+)?(?:["']([\w.:-]{1,60})["']|([A-Za-z_]\w{0,60}))"""
                    r"""\s*(?::|=>|=)\s*(?:dict\(|[{\[])\s*(?:(?://|#).*)?$""")
# PHP's and Ruby's `'key' => value,` (a Laravel config/*.php, a Rails hash), indented or an edit cut at the key
_ARROW_ENTRY = re.compile(rf"""^\s*(?:"([A-Za-z_][\w.-]{{1,60}})"|'([A-Za-z_][\w.-]{{1,60}})'|:([A-Za-z_]\w{{1,60}}))"""
                          rf"""\s*=>\s*{_WRITTEN}\s*,?\s*(?:(?://|#).*)?$""")


# `env('app_domain')`, `os.getenv('port')`: read from the environment when the code runs, set elsewhere
_FROM_ENVIRONMENT = re.compile(r"^(?:\w+\.)*(?:env|getenv|get_env|environ\.get)\(", re.IGNORECASE)


# A class's constant (`static let maxRetries = 3`) and a settings class's typed field
# (`request_timeout: float = 5.0`, a pydantic setting; not a parameter's line, which ends with a comma)
_STATIC = re.compile(r"^\s*(?:\w+\s+)*static\s")
_TYPED_FIELD = re.compile(r"^\s+[a-z_]\w*\s*:\s*[\w\[\]|. ]{1,40}=\s*[^,]*$")


def _upper(name: str) -> bool:
    return name.isupper() and any(c.isalpha() for c in name) and len(name) >= 3


def read_constants(text: str) -> dict:
    """NAME -> literal of the constants `text` (code, or an edit's fragment of it) sets."""
    found = read_matching(text, _CONSTANT, groups=(2, 3), marks=("//", "#"),
                          keep=lambda m: m.group(1) or _upper(m.group(2)) or _STATIC.match(m.group(0))
                          or _TYPED_FIELD.match(m.group(0)))
    parents = []  # (indent, name) of the dicts and objects the line is inside (`"overdue-report": {`)
    for line in text.splitlines():  # (a constant of the same name wins: read above, kept below)
        indent = len(line) - len(line.lstrip())
        while parents and line.strip() and indent <= parents[-1][0]:
            parents.pop()
        opens = _OPENS.match(line)
        if opens:
            parents.append((indent, opens.group(1) or opens.group(2)))
            continue
        m = _ARGUMENT.match(line) or _ENTRY.match(line) or _ARROW_ENTRY.match(line)
        if m:
            name, value = next(g for g in m.groups()[:-1] if g), clean_value(m.group(m.lastindex), ("//", "#"))
            name = ".".join([parent for _, parent in parents] + [name])
            if value is not None and name not in found and not _FROM_ENVIRONMENT.match(value):
                found[name] = value
    for name, value in read_within_lines(text).items():
        found.setdefault(name, value)
    if "@" in text:
        for line in text.splitlines():
            m = _ATTRIBUTE.match(line)
            value = clean_value(m.group(2) or m.group(3), ("#",)) if m else None
            if value is not None and m.group(1) not in _ELIXIR_ANNOTATIONS:
                found.setdefault(f"@{m.group(1)}", value)
    if "define" in text:  # C's macros: the literal bare, or in parentheses
        for line in text.splitlines():
            m = _DEFINE.match(line)
            value = clean_value(m.group(2) or m.group(3), ("//", "/*")) if m else None
            if value is not None:
                found[m.group(1)] = value
    return {name: _without_separators(_C_SUFFIX.sub(r"\1", value)) for name, value in found.items()}


def _without_separators(value: str) -> str:
    """A number as set, without the separators it was written with (`30_000`)."""
    return value.replace("_", "") if value[:1].isdigit() else value


# `LEARNING_RATE = 3e-4`, `batch_size = 64`, `MODEL = "deberta-v3-base"`: a name given a literal on its own line
_ASSIGNMENT = re.compile(rf"^([A-Za-z_]\w{{0,60}})[ \t]*=[ \t]*{_LITERAL}[ \t]*(?:#.*)?$")


def read_assignments(code: str) -> dict:
    """name -> literal of the top-level lines of code that give a name a number, a string or a boolean (a
    notebook's parameters cell, where any name is a parameter); anything computed is left out."""
    return read_matching(code, _ASSIGNMENT)


def read_notebook(text: str) -> dict:
    """name -> literal of a Jupyter notebook's code cells (its JSON, as a Write or a Read shows it), read as
    read_assignments reads one cell; a later cell's value wins. Not a notebook's JSON (a fragment an edit cut
    out of one): read as code lines."""
    import json  # (capture only: no hook reads a notebook)

    try:
        cells = json.loads(text).get("cells")
    except (ValueError, AttributeError):
        return read_assignments(text)
    out = {}
    for cell in cells if isinstance(cells, list) else ():
        source = cell.get("source") if isinstance(cell, dict) and cell.get("cell_type") == "code" else None
        if isinstance(source, list):
            source = "".join(part for part in source if isinstance(part, str))
        if isinstance(source, str):
            out.update(read_assignments(source))
    return out


def read_script(text: str) -> dict:
    """`--option` -> value and VARIABLE -> literal of a shell script; an option given several values says
    nothing about which one holds, and is left out."""
    options = {}
    for m in _OPTION.finditer(text):
        options.setdefault(m.group(1), set()).add(m.group(2))
    out = {name: next(iter(values)) for name, values in options.items() if len(values) == 1}
    out.update(read_matching(text, _SHELL_VARIABLE))
    return out


# A named argument inside a call or a struct literal on one line: `max_retries=3`, `Timeout: 10 * time.Second`,
# `maxRetries = 5` (Kotlin); after `(`, `{` or `,`, so a parameter's type (`timeout: int = 10`) is no name.
_NAMED = re.compile(rf"([(,{{])[ \t]*([A-Za-z_]\w{{1,40}})[ \t]*(?:=|:(?!:))[ \t]*{_LITERAL}(?=[ \t]*[,)}}])")
# Standard types whose named arguments make up one value (a span of time, a date), not options of something
_VALUE_TYPES = frozenset("timedelta relativedelta duration period timespan datetime date time crontab".split())
_CALLER = re.compile(r"([A-Za-z_][\w.]{0,60})[ \t]*$")
# `dbt_daily = ScheduleDefinition(...)`, `const client = new Client({...})`: the name the line's call is given
_TARGET = re.compile(r"^[ \t]*(?:(?:export|const|let|var|val|final|private|public)[ \t]+)*([A-Za-z_][\w.]{0,60})"
                     r"[ \t]*(?::[ \t]*[\w<>\[\].?]{1,40}[ \t]*)?:?=(?!=)")


def read_within_lines(text: str) -> dict:
    """The settings written inside a line rather than one to a line: named arguments (read_named_arguments) and
    a job list's schedules (read_schedules); a named argument wins a key both give."""
    out = read_named_arguments(text)
    for key, value in read_schedules(text).items():
        out.setdefault(key, value)
    return out


def read_named_arguments(text: str) -> dict:
    """`Call.name` -> literal of the named arguments written inside one line's calls (see the module doc)."""
    seen = {}
    for line in text.splitlines():
        if "=" not in line and ":" not in line:
            continue
        stripped = line.lstrip()
        if stripped.startswith(("#", "//", "--", "*", "def ", "fun ", "func ", "function ")):
            continue  # a comment, or a definition's defaults (what a caller may leave out, not what it sets)
        target = _TARGET.match(line)
        for m in _NAMED.finditer(line):
            caller = _caller(line, m.start(1))
            if caller is None or caller.rsplit(".", 1)[-1].lower() in _VALUE_TYPES:
                continue  # `timedelta(days=14)` is one value, whatever it is given to
            if target and target.end() <= m.start(1):
                caller = target.group(1)  # two schedules in one file: by their names, not ScheduleDefinition's
            value = clean_value(m.group(3), ("//", "#"))
            if value is not None:
                seen.setdefault(f"{caller}.{m.group(2)}" if caller else m.group(2), set()).add(value)
    return {key: next(iter(values)) for key, values in seen.items() if len(values) == 1}


def _caller(line: str, at: int):
    """The name of the call or struct whose bracket encloses position `at` of `line` (`RetryPolicy`), or of the
    module a tuple starts with (Elixir's `{Oban.Plugins.Pruner, max_age: 604800}`), or of the call an options
    object is given to (`onCall({memory: "1GiB"})`); "" for an object opening its line (`  {memory: "1GiB"},`:
    its call is on the line above, which an edit's fragment may not show); None when nothing names it."""
    depth = 0
    for i in range(at, -1, -1):
        ch = line[i]
        if ch in ")}]":
            depth += 1
        elif ch in "({[":
            if depth == 0:
                if ch == "[":
                    return None
                m = _CALLER.search(line, 0, i)
                if m:
                    return m.group(1).lstrip(".")
                if ch != "{":
                    return None
                first = _TUPLE_HEAD.match(line, i + 1)
                if first:
                    return first.group(1)
                before = line[:i].rstrip()
                if before.endswith("("):  # an options object given to a call: `onCall({memory: "1GiB"})`
                    m = _CALLER.search(before, 0, len(before) - 1)
                    return m.group(1).lstrip(".") if m else None
                # an object opening its line (its call is on the line above), or given to a name (`x = {...}`)
                return "" if not before or (before.endswith("=") and before[-2:-1] not in "=!<>") else None
            depth -= 1
    return None


_TUPLE_HEAD = re.compile(r"(?<![\w. \t])[ \t]*([A-Z]\w*(?:\.[A-Z]\w*)*)[ \t]*,")
# A schedule paired with the job it runs, in a list of jobs: `{"30 17 * * *", MyApp.Workers.Reminder}`,
# `["0 3 * * *", "cleanup"]`, either way round
_FIELD = r"[\d*][\d*/,-]*"
_CRON = rf"""["']((?:{_FIELD}[ \t]+){{4,5}}{_FIELD})["']"""
_JOB = r"""([A-Z]\w*(?:\.[A-Z]\w*)+|["'][\w:.-]{3,60}["'])"""
_CRON_PAIR = re.compile(rf"[{{\[(][ \t]*(?:{_CRON}[ \t]*,[ \t]*{_JOB}|{_JOB}[ \t]*,[ \t]*{_CRON})[ \t]*[,}}\])]")


def read_schedules(text: str) -> dict:
    """`JOB schedule` -> cron expression of each job a list pairs with its schedule (see _CRON_PAIR), or a call
    registers with it (_call_schedules)."""
    out = {}
    for m in _CRON_PAIR.finditer(text):
        cron, job = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        out[f"{job.strip(chr(34) + chr(39))} schedule"] = cron
    for job, cron in _call_schedules(text):
        out.setdefault(f"{job} schedule", cron)
    return out


_CRON_LITERAL = re.compile(_CRON)
_JOB_NAME = re.compile(r"""["']([\w:.-]{3,60})["']""")
_CALL_TYPE = re.compile(r"<([A-Z]\w{2,60})>[ \t]*$")
CALL_REACH = 600  # characters back from a schedule to the call it is an argument of (one call, a few lines)


def _call_schedules(text: str) -> list:
    """(job, cron) of each schedule given to a call, on its lines or across them, with the job it runs named
    before it: the call's first quoted name (Hangfire's `AddOrUpdate<Job>("nightly-sync", j => ..., "0 2 * * *")`),
    else the type it is called for (`<ReconcileJob>`)."""
    found = []
    for m in _CRON_LITERAL.finditer(text):
        if text[max(0, m.start() - 80):m.start()].rstrip().endswith(("=", ":")):
            continue  # a named argument's value (`schedule="0 6 * * *"`): read_named_arguments keys it
        start = max(0, m.start() - CALL_REACH)
        opening = _opening(text, start, m.start())
        if opening is None:
            continue
        named = _JOB_NAME.search(text, opening + 1, m.start())
        typed = _CALL_TYPE.search(text, start, opening)
        job = named.group(1) if named else typed.group(1) if typed else None
        if job:
            found.append((job, m.group(1)))
    return found


def _opening(text: str, start: int, end: int):
    """Where the call that `text[end]` is an argument of opens its brackets, searched back to `start`; None when
    the brackets close first (the schedule is no argument there) or nothing opens one."""
    depth = 0
    for i in range(end - 1, start - 1, -1):
        char = text[i]
        if char in ")]}":
            depth += 1
        elif char in "([{":
            if depth == 0:
                return i if char == "(" else None
            depth -= 1
    return None
