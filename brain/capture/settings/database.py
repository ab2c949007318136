"""What a project's database is set to, as its SQL files and its migrations in code write it.

SQL: scheduled jobs, server and role settings, columns, dbt model configs.

- `cron.schedule('nightly-digest', '30 2 * * *', $$...$$)` (pg_cron; `schedule_in_database` too) is the job's
  schedule: `cron job nightly-digest`. A job is one per database, whichever migration file schedules it.
- `SET statement_timeout = '30s'`, `ALTER SYSTEM SET max_connections = 200`, `ALTER ROLE app SET ...` (`role app
  statement_timeout`), `ALTER DATABASE db SET ...`.
- `ALTER TABLE t ALTER COLUMN c SET DEFAULT v` and a `c type ... DEFAULT v` line in `CREATE TABLE t (...)`:
  `t.c default`; a column's type there, or changed or added by `ALTER TABLE` (`ALTER COLUMN c TYPE varchar(64)`,
  SQL Server's `ALTER COLUMN c nvarchar(16)`, MySQL's `MODIFY`, `ADD COLUMN`): `t.c type`.
- dbt's `{{ config(materialized='incremental', unique_key='id') }}`: `config.materialized`...
Keys of the first three kinds hold for the whole database: sql_wide_key says which.

Migrations and schema files in code set columns: `TABLE.COLUMN default`, `type`, and the length each framework
names in its own word (Rails' `limit`, Django's `max_length`, EF Core's `maxLength`).

- Rails (db/schema.rb, db/migrate/*.rb): a `create_table "orders"` block's `t.integer "quantity",
  default: 1`; `add_column`, `change_column`, `change_column_default :orders, :quantity, from: 1, to: 2`.
- Django: a model's fields (`class Order(models.Model):` / `code = models.CharField(max_length=24)`), and
  its migrations' `AddField` / `AlterField(model_name="order", name="code", field=models.CharField(...))`
  and `CreateModel` fields, all keyed by the model's name in lower case as migrations write it.
- EF Core (Migrations/*.cs): `AlterColumn<string>(name: "Code", table: "Orders", type: "nvarchar(16)",
  maxLength: 16, ...)`, `AddColumn`, a `CreateTable`'s `table.Column<string>(type: ..., maxLength: ...)`.
A column is one per database whichever file sets it (schema_key): the newest migration's value replaces the one
an older migration or the schema file set. Some migrations say what they replace (Rails' `from: 15`, EF Core's
`oldType:`): stated_old gives it, for the change when nothing else showed the old value.
"""
import re

from brain.capture.settings.lines import COLUMN_ATTRIBUTES, clean_value

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
    text = _COMMENT.sub("", text)
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


def _starts_statement(text: str, at: int) -> bool:
    """Whether nothing but comments stands between the statement before `at` (its `;`) and `at`."""
    before = text[text.rfind(";", 0, at) + 1:at]
    return all(not line.strip() or line.strip().startswith("--") for line in before.splitlines())


def sql_wide_key(key: str) -> bool:
    """Whether a SQL key holds for the whole database, whichever file sets it (a job, a role's setting)."""
    return key.startswith(_WIDE) or key.endswith((" default", " type"))


# --- columns as migrations in code set them ------------------------------------------------------------------------
# What each framework's migrations and schemas write: a text holding none of these sets no column
_SCHEMA_WORDS = ("create_table", "add_column", "change_column", "models.", "migrationBuilder", "table.Column")
_SCHEMA_KEY = re.compile(r"^\w+\.\w+ (?:%s)$" % "|".join(COLUMN_ATTRIBUTES))

# a literal, or an enum's member (`Status.RECEIVED`); a constant's name (`max_length=CODE_LEN`) is set elsewhere
_LITERAL_VALUE = r"""("[^"]*"|'[^']*'|-?\d+(?:\.\d+)?|True|False|None|true|false|nil|[A-Z]\w*\.[A-Za-z_]\w*)(?![\w.])"""
# Rails
_NAME = r"""[:"']?(\w+)["']?"""
_RAILS_TABLE = re.compile(rf"^[ \t]*create_table[ \t(]+{_NAME}", re.MULTILINE)
_RAILS_COLUMN = re.compile(rf"^[ \t]*t\.(\w+)[ \t(]+{_NAME}(.*)$", re.MULTILINE)
_RAILS_CHANGE = re.compile(rf"^[ \t]*(add_column|change_column)[ \t(]+{_NAME}\s*,\s*{_NAME}\s*,\s*:?(\w+)(.*)$",
                           re.MULTILINE)
_RAILS_DEFAULT = re.compile(rf"^[ \t]*change_column_default[ \t(]+{_NAME}\s*,\s*{_NAME}\s*,\s*(.*?)\)?[ \t]*$",
                            re.MULTILINE)
_OPTION = re.compile(r"\b(default|limit|to):\s*" + _LITERAL_VALUE)
# Django
_ARGUMENTS = r"([^()]*(?:\([^()]*\)[^()]*)*)"  # a call's arguments, holding calls of their own one level deep
_DJANGO_FIELD = re.compile(r"""migrations\.(?:AddField|AlterField)\(\s*model_name\s*=\s*["'](\w+)["']\s*,\s*"""
                           r"""name\s*=\s*["'](\w+)["']\s*,\s*field\s*=\s*models\.(\w+)\(""" + _ARGUMENTS + r"\)")
_DJANGO_MODEL = re.compile(r"""migrations\.CreateModel\(\s*name\s*=\s*["'](\w+)["']""")
_DJANGO_MODEL_FIELD = re.compile(r"""\(\s*["'](\w+)["']\s*,\s*models\.(\w+)\(""" + _ARGUMENTS + r"\)")
_DJANGO_CLASS = re.compile(r"^class\s+(\w+)\s*\([^)]*\bModel\)\s*:", re.MULTILINE)
_DJANGO_ATTRIBUTE = re.compile(r"^[ \t]+(\w+)\s*=\s*models\.(\w+)\(([^()\n]*(?:\([^()\n]*\)[^()\n]*)*)\)", re.MULTILINE)
_DJANGO_OPTION = re.compile(r"\b(max_length|default)\s*=\s*" + _LITERAL_VALUE)
# EF Core
_EF_CHANGE = re.compile(r"\.(?:AlterColumn|AddColumn)<[\w?]+>\(([^;]*?)\);", re.DOTALL)
_EF_TABLE = re.compile(r"\.CreateTable\(\s*name:\s*\"(\w+)\"")
_EF_COLUMN = re.compile(r"(?<!\w)(\w+)\s*=\s*table\.Column<[\w?]+>\(" + _ARGUMENTS + r"\)")
# What undoes a migration (EF Core's Down, Rails' `def down`) sets the values it replaced: read up to it
_UNDO = re.compile(r"\bvoid\s+Down\s*\(|^[ \t]*def\s+down\b", re.MULTILINE)
_EF_ARGUMENT = re.compile(r"\b(name|table|type|maxLength|defaultValue)\s*:\s*(\"[^\"]*\"|[\w.-]+)")


def schema_key(key: str) -> bool:
    """Whether a key names a column's attribute (`orders.quantity default`): one per database."""
    return bool(_SCHEMA_KEY.match(key))


def _value(raw: str):
    return clean_value(raw.strip().rstrip(","))


def read_schema(text: str) -> dict:
    """`TABLE.COLUMN attribute` -> value of the columns a migration or schema file in code sets (module doc)."""
    if not any(word in text for word in _SCHEMA_WORDS):
        return {}  # (most code is no migration: a substring test spares it the patterns)
    undo = _UNDO.search(text)
    text, out = text[:undo.start()] if undo else text, {}
    _rails(text, out)
    _django(text, out)
    _ef_core(text, out)
    return {key: value for key, value in out.items() if value is not None}


def _rails(text: str, out: dict) -> None:
    tables = [(m.start(), m.group(1)) for m in _RAILS_TABLE.finditer(text)]
    for m in _RAILS_COLUMN.finditer(text):
        table = next((name for at, name in reversed(tables) if at < m.start()), None)
        if table and m.group(1) not in ("index", "timestamps", "references", "belongs_to"):
            out[f"{table}.{m.group(2)} type"] = m.group(1)
            for option in _OPTION.finditer(m.group(3)):
                if option.group(1) != "to":
                    out[f"{table}.{m.group(2)} {option.group(1)}"] = _value(option.group(2))
    for m in _RAILS_CHANGE.finditer(text):
        out[f"{m.group(2)}.{m.group(3)} type"] = m.group(4)
        for option in _OPTION.finditer(m.group(5)):
            if option.group(1) != "to":
                out[f"{m.group(2)}.{m.group(3)} {option.group(1)}"] = _value(option.group(2))
    for m in _RAILS_DEFAULT.finditer(text):
        to = next((o.group(2) for o in _OPTION.finditer(m.group(3)) if o.group(1) == "to"), None)
        out[f"{m.group(1)}.{m.group(2)} default"] = _value(to if to is not None else m.group(3))


def _django(text: str, out: dict) -> None:
    for m in _DJANGO_FIELD.finditer(text):
        _django_field(m.group(1).lower(), m.group(2), m.group(3), m.group(4), out)
    classes = [(m.start(), m.group(1).lower()) for m in _DJANGO_CLASS.finditer(text)]
    for m in _DJANGO_ATTRIBUTE.finditer(text) if classes else ():
        model = next((name for at, name in reversed(classes) if at < m.start()), None)
        if model:
            _django_field(model, m.group(1), m.group(2), m.group(3), out)
    models = [(m.start(), m.group(1).lower()) for m in _DJANGO_MODEL.finditer(text)]
    for m in _DJANGO_MODEL_FIELD.finditer(text):
        model = next((name for at, name in reversed(models) if at < m.start()), None)
        if model:
            _django_field(model, m.group(1), m.group(2), m.group(3), out)


def _django_field(model: str, name: str, field: str, arguments: str, out: dict) -> None:
    out[f"{model}.{name} type"] = field
    for option in _DJANGO_OPTION.finditer(arguments):
        out[f"{model}.{name} {option.group(1)}"] = _value(option.group(2))


def _ef_core(text: str, out: dict) -> None:
    for m in _EF_CHANGE.finditer(text):
        arguments = dict((a.group(1), a.group(2).strip('"')) for a in _EF_ARGUMENT.finditer(m.group(1)))
        if arguments.get("name") and arguments.get("table"):
            _ef_column(arguments["table"], arguments["name"], arguments, out)
    tables = [(m.start(), m.group(1)) for m in _EF_TABLE.finditer(text)]
    for m in _EF_COLUMN.finditer(text):
        table = next((name for at, name in reversed(tables) if at < m.start()), None)
        if table:
            arguments = dict((a.group(1), a.group(2).strip('"')) for a in _EF_ARGUMENT.finditer(m.group(2)))
            _ef_column(table, arguments.get("name") or m.group(1), arguments, out)


def _ef_column(table: str, column: str, arguments: dict, out: dict) -> None:
    for attribute, key in (("type", "type"), ("maxLength", "maxLength"), ("defaultValue", "default")):
        if arguments.get(attribute):
            out[f"{table}.{column} {key}"] = arguments[attribute]


_RAILS_FROM = re.compile(r"\bfrom:\s*(\"[^\"]*\"|'[^']*'|[\w.:-]+)")
_EF_OLD = (("oldType", "type"), ("oldMaxLength", "maxLength"), ("oldDefaultValue", "default"))
_EF_OLD_ARGUMENT = re.compile(r"\b(oldType|oldMaxLength|oldDefaultValue)\s*:\s*(\"[^\"]*\"|[\w.-]+)")


def stated_old(text: str) -> dict:
    """`TABLE.COLUMN attribute` -> the value a migration says it replaces (module doc)."""
    if "from:" not in text and "oldType" not in text and "oldMaxLength" not in text and "oldDefault" not in text:
        return {}
    undo = _UNDO.search(text)
    text, out = text[:undo.start()] if undo else text, {}
    for m in _RAILS_DEFAULT.finditer(text):
        was = _RAILS_FROM.search(m.group(3))
        if was:
            out[f"{m.group(1)}.{m.group(2)} default"] = _value(was.group(1))
    for m in _EF_CHANGE.finditer(text):
        arguments = dict((a.group(1), a.group(2).strip('"')) for a in _EF_ARGUMENT.finditer(m.group(1)))
        olds = dict((a.group(1), a.group(2).strip('"')) for a in _EF_OLD_ARGUMENT.finditer(m.group(1)))
        if arguments.get("name") and arguments.get("table"):
            for old, key in _EF_OLD:
                if olds.get(old):
                    out[f"{arguments['table']}.{arguments['name']} {key}"] = olds[old]
    return {key: value for key, value in out.items() if value is not None}
