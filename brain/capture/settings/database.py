"""What a project's database is set to, as its SQL files write it: scheduled jobs, server and role settings,
columns, dbt model configs (columns set in code: settings/migrations).

- `cron.schedule('nightly-digest', '30 2 * * *', $$...$$)` (pg_cron; `schedule_in_database` too) is the job's
  schedule: `cron job nightly-digest`. A job is one per database, whichever migration file schedules it.
- `SET statement_timeout = '30s'`, `ALTER SYSTEM SET max_connections = 200`, `ALTER ROLE app SET ...` (`role app
  statement_timeout`), `ALTER DATABASE db SET ...`.
- `ALTER TABLE t ALTER COLUMN c SET DEFAULT v` and a `c type ... DEFAULT v` line in `CREATE TABLE t (...)`:
  `t.c default`; a column's type there, or changed or added by `ALTER TABLE` (`ALTER COLUMN c TYPE varchar(64)`,
  SQL Server's `ALTER COLUMN c nvarchar(16)`, MySQL's `MODIFY`, `ADD COLUMN`): `t.c type`. One `ALTER TABLE` may
  hold several such clauses, separated by commas (as Prisma and pg_dump write them).
- dbt's `{{ config(materialized='incremental', unique_key='id') }}`: `config.materialized`...
Keys of the first three kinds hold for the whole database: sql_wide_key says which.
"""
import re

from brain.capture.settings.lines import clean_value

_CRON = re.compile(r"\bcron\.schedule(?:_in_database)?\s*\(\s*'([^']+)'\s*,\s*'([^']+)'", re.IGNORECASE)
_SET = re.compile(r"^[ \t]*(?:ALTER\s+(SYSTEM|ROLE\s+\"?(\w+)\"?|USER\s+\"?(\w+)\"?|DATABASE\s+\"?(\w+)\"?)\s+)?SET\s+"
                  r"(?:SESSION\s+|LOCAL\s+)?([\w.]+)[ \t]*(?:=|TO)[ \t]*([^;\n]*[^;\s])[ \t]*;?[ \t]*$",
                  re.IGNORECASE | re.MULTILINE)
_ALTER_DEFAULT = re.compile(r"ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?([\w.\"]+)\s+ALTER\s+(?:COLUMN\s+)?"
                            r"\"?(\w+)\"?\s+SET\s+DEFAULT\s+([^;,]+?)\s*[;,]?\s*$", re.IGNORECASE | re.MULTILINE)
# A column's type: `ALTER COLUMN c TYPE varchar(64)` (Postgres), `ALTER COLUMN c nvarchar(16) NOT NULL` (SQL
# Server), `MODIFY COLUMN c varchar(64)` (MySQL), `ADD COLUMN c int DEFAULT 3`
_TYPE_END = (r"(?=\s*(?:NOT\b|NULL\b|DEFAULT\b|USING\b|COLLATE\b|REFERENCES\b|PRIMARY\b|UNIQUE\b|CHECK\b|"
             r"GENERATED\b|;|,|$))")
_TYPE = r"([A-Za-z][\w ]*?(?:\([\d, ]+\))?)" + _TYPE_END
_ALTER_TYPE = re.compile(r"ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?([\w.\"\[\]]+)\s+"
                         r"(?:ALTER\s+COLUMN\s+\"?(\w+)\"?\s+(?:SET\s+DATA\s+)?(?:TYPE\s+)?|"
                         r"MODIFY\s+(?:COLUMN\s+)?\"?(\w+)\"?\s+|"
                         r"ADD\s+(?:COLUMN\s+)?(?:IF\s+NOT\s+EXISTS\s+)?\"?(\w+)\"?\s+)"
                         r"(?!SET\b|DROP\b|DEFAULT\b)" + _TYPE,
                         re.IGNORECASE | re.MULTILINE)
_CREATE_TABLE = re.compile(r"CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w.\"]+)\s*\(", re.IGNORECASE)
_COLUMN_TYPE = re.compile(r"^\s*\"?\w+\"?\s+" + _TYPE, re.IGNORECASE)
_NOT_COLUMNS = ("CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN", "INDEX", "KEY")
_COLUMN = re.compile(r"^\s*\"?(\w+)\"?\s")
_DEFAULT = re.compile(r"\sDEFAULT\s+('[^']*'|[\w.:()-]+)", re.IGNORECASE)
_DBT_CONFIG = re.compile(r"\{\{\s*config\s*\((.*?)\)\s*\}\}", re.DOTALL)
_DBT_ARGUMENT = re.compile(r"(?<!\w)(\w+)\s*=\s*('[^']*'|\"[^\"]*\"|True|False|true|false|\d+(?:\.\d+)?)")
_WIDE = ("cron job ", "database ", "role ", "user ", "system ")


def _table(name: str) -> str:
    return name.replace('"', "").split(".")[-1]


_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.DOTALL)


def read_sql(text: str) -> dict:
    """key -> value of the settings a SQL file or fragment sets (see the module doc); comments say nothing."""
    text = _one_clause_each(_COMMENT.sub("", text))
    out = {}
    for m in _CRON.finditer(text):
        if len(m.group(2).split()) in (5, 6):
            out[f"cron job {m.group(1)}"] = m.group(2)
    for m in _SET.finditer(text):
        if not _starts_statement(text, m.start()):
            continue  # `UPDATE t\nSET status = 'done'`: a row's value, not a setting
        scope, role, user, database, name, value = m.groups()
        value = clean_value(value, ("--",))
        if value is None:
            continue
        if role or user:
            key = f"{'role' if role else 'user'} {role or user} {name}"
        elif database:
            key = f"database {database} {name}"
        else:
            key = f"system {name}" if scope else name
        out[key] = value
    for m in _ALTER_DEFAULT.finditer(text):
        out[f"{_table(m.group(1))}.{m.group(2)} default"] = clean_value(m.group(3), ("--",)) or m.group(3)
    for m in _ALTER_TYPE.finditer(text):
        out[f"{_table(m.group(1))}.{m.group(2) or m.group(3) or m.group(4)} type"] = " ".join(m.group(5).split())
    for m in _CREATE_TABLE.finditer(text):
        table, depth = _table(m.group(1)), 1
        body_start = m.end()
        end = body_start
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        for line in text[body_start:end].splitlines():
            column, default, kind = _COLUMN.match(line), _DEFAULT.search(line), _COLUMN_TYPE.match(line)
            if not column or column.group(1).upper() in _NOT_COLUMNS:
                continue
            if default:
                out[f"{table}.{column.group(1)} default"] = default.group(1).strip("'")
            if kind:
                out[f"{table}.{column.group(1)} type"] = " ".join(kind.group(1).split())
    for m in _DBT_CONFIG.finditer(text):
        for argument in _DBT_ARGUMENT.finditer(m.group(1)):
            out[f"config.{argument.group(1)}"] = argument.group(2).strip("'\"")
    return {key: value for key, value in out.items() if value}


_ALTER_TABLE = re.compile(r"ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?([\w.\"\[\]]+)\s+", re.IGNORECASE)


def _one_clause_each(text: str) -> str:
    """`text`, with each further clause of an `ALTER TABLE` holding several (`ALTER COLUMN a TYPE x, ALTER COLUMN b
    SET DEFAULT 8;`) added as an `ALTER TABLE` of its own, so that one pattern reads every clause."""
    more = []
    for m in _ALTER_TABLE.finditer(text):
        end = text.find(";", m.end())
        clauses, depth, quoted, start = [], 0, False, m.end()
        for i in range(m.end(), end if end >= 0 else len(text)):
            quoted ^= text[i] == "'"
            depth += (text[i] == "(") - (text[i] == ")")
            if text[i] == "," and depth == 0 and not quoted:
                clauses.append(text[start:i])
                start = i + 1
        clauses.append(text[start:end if end >= 0 else len(text)])
        more += [f"ALTER TABLE {m.group(1)} {' '.join(c.split())};" for c in clauses[1:] if c.strip()]
    return text + "\n" + "\n".join(more) if more else text


def _starts_statement(text: str, at: int) -> bool:
    """Whether nothing but comments stands between the statement before `at` (its `;`) and `at`."""
    before = text[text.rfind(";", 0, at) + 1:at]
    return all(not line.strip() or line.strip().startswith("--") for line in before.splitlines())


def sql_wide_key(key: str) -> bool:
    """Whether a SQL key holds for the whole database, whichever file sets it (a job, a role's setting)."""
    return key.startswith(_WIDE) or key.endswith((" default", " type"))
