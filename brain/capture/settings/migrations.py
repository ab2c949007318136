"""Columns as migrations and schema files in code set them: `TABLE.COLUMN default`, `type`, and the length each
framework names in its own word (Rails' `limit`, Django's `max_length`, EF Core's `maxLength`, Ecto's `size`).

- Rails (db/schema.rb, db/migrate/*.rb): a `create_table "orders"` block's `t.integer "quantity",
  default: 1`; `add_column`, `change_column`, `change_column_default :orders, :quantity, from: 1, to: 2`.
- Django: a model's fields (`class Order(models.Model):` / `code = models.CharField(max_length=24)`), and
  its migrations' `AddField` / `AlterField(model_name="order", name="code", field=models.CharField(...))`
  and `CreateModel` fields, all keyed by the model's name in lower case as migrations write it.
- EF Core (Migrations/*.cs): `AlterColumn<string>(name: "Code", table: "Orders", type: "nvarchar(16)",
  maxLength: 16, ...)`, `AddColumn`, a `CreateTable`'s `table.Column<string>(type: ..., maxLength: ...)`; its
  fluent configuration (`Entity<Reminder>().Property(r => r.Body).HasMaxLength(320)`), keyed by the entity.
- Ecto (priv/repo/migrations/*.exs, schemas): `create table(:loans) do add :days, :integer, default: 7`,
  `alter table(:loans) do modify :days, :integer, default: 14, from: {:integer, default: 7}`, a `schema
  "loans" do field :days, :integer, default: 7`.
- Alembic and SQLAlchemy: `op.create_table("t", sa.Column("c", sa.Integer(), server_default="5"))`,
  `op.add_column`, `op.alter_column("t", "c", server_default="90", existing_server_default="120")`; a model's
  `c: Mapped[int] = mapped_column(server_default="5")` or `c = Column(Integer, default=5)` under its
  `__tablename__`.
- Prisma (schema.prisma, read_prisma): a model's `maxAttempts Int @default(5)` and `@db.VarChar(2048)` types
  (the table is the model's name, or its `@@map`), and the datasource's and generator's settings.
A column is one per database whichever file sets it (schema_key): the newest migration's value replaces the one
an older migration or the schema file set. Some migrations say what they replace (Rails' and Ecto's `from:`, EF
Core's `oldType:`, Alembic's `existing_server_default`): stated_old gives it, for the change when nothing else
showed the old value.
"""
import re

from brain.capture.settings.lines import COLUMN_ATTRIBUTES, clean_value

# What each framework's migrations and schemas write: a text holding none of these sets no column
_SCHEMA_WORDS = ("create_table", "add_column", "change_column", "models.", "migrationBuilder", "table.Column",
                 "table(", "schema \"", "op.alter_column", "Column(", "mapped_column(", ".Property(")
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
# EF Core's fluent configuration: `b.Entity<Reminder>().Property(r => r.Body).HasMaxLength(320)`, also inside an
# `Entity<Reminder>(e => { ... })` block or an `IEntityTypeConfiguration<Reminder>`
_EF_ENTITY = re.compile(r"\b(?:Entity|IEntityTypeConfiguration)<(\w+)>")
_EF_CALL_ARGUMENTS = r"\((?:\"[^\"]*\"|[^()\"])*\)"  # (a string argument may hold brackets: "decimal(10,2)")
_EF_PROPERTY = re.compile(r"\.Property(?:<[\w?]+>)?\(\s*\w+\s*=>\s*\w+\.(\w+)\s*\)"
                          r"((?:\s*\.\w+(?:<[\w?]+>)?" + _EF_CALL_ARGUMENTS + ")+)")
_EF_FLUENT = re.compile(r"\.(HasMaxLength|HasDefaultValue|HasColumnType)\(\s*(\"[^\"]*\"|[^()\"]*?)\s*\)")
_EF_FLUENT_KEYS = {"HasMaxLength": "maxLength", "HasDefaultValue": "default", "HasColumnType": "type"}
_EF_ARGUMENT = re.compile(r"\b(name|table|type|maxLength|defaultValue)\s*:\s*(\"[^\"]*\"|[\w.-]+)")
# What undoes a migration (EF Core's Down, Rails' `def down`) sets the values it replaced: read up to it
_UNDO = re.compile(r"\bvoid\s+Down\s*\(|^[ \t]*def\s+down(?:grade)?\b", re.MULTILINE)
# Ecto
_ECTO_TABLE = re.compile(r"^[ \t]*(?:create|create_if_not_exists|alter)\s+table\(\s*[:\"']?(\w+)|"
                         r"^[ \t]*schema\s+\"(\w+)\"", re.MULTILINE)
_ECTO_COLUMN = re.compile(r"^[ \t]*(?:add|add_if_not_exists|modify|field)\s+:(\w+)\s*,\s*(:\w+|[A-Z][\w.]*)(.*)$",
                          re.MULTILINE)
_ECTO_OPTION = re.compile(r"\b(default|size):\s*" + _LITERAL_VALUE.replace("|nil|", "|nil|:\\w+|"))
_ECTO_FROM = re.compile(r"\bfrom:\s*(?:\{\s*(:\w+)\s*,([^}]*)\}|(:\w+))")
# Alembic and SQLAlchemy
_SA_TABLE = re.compile(r"""op\.(?:create_table|add_column)\(\s*["'](\w+)["']|"""
                       r"""^[ \t]*__tablename__\s*=\s*["'](\w+)["']""", re.MULTILINE)
_SA_COLUMN = re.compile(r"""(?:sa\.)?Column\(\s*["'](\w+)["']\s*,\s*""" + _ARGUMENTS + r"\)|"
                        r"^[ \t]+(\w+)\s*(?::\s*Mapped\[[^\n=]*\])?\s*=\s*(?:sa\.|orm\.)?(?:mapped_column|Column)\("
                        + _ARGUMENTS + r"\)", re.MULTILINE)
_SA_ALTER = re.compile(r"""op\.alter_column\(\s*["'](\w+)["']\s*,\s*["'](\w+)["']\s*,""" + _ARGUMENTS + r"\)")
_SA_OPTION = re.compile(r"(?<![\w.])(server_default|default|type_|existing_server_default)\s*=\s*"
                        r"(?:(?:sa\.)?text\(\s*)?"
                        r"(\"[^\"]*\"|'[^']*'|-?\d+(?:\.\d+)?|True|False|(?:sa\.)?[A-Z]\w*\([^()]*\))")
_SA_TYPE = re.compile(r"^\s*(?:sa\.)?([A-Z]\w*(?:\([^()]*\))?)")


def _owner(owners: list, at: int):
    """The name of the last of `owners` ((position, name), in order) that opens before `at`: the table, model or
    entity a column's line belongs to; None when none does."""
    return next((name for start, name in reversed(owners) if start < at), None)


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
    _ef_fluent(text, out)
    _ecto(text, out)
    _sqlalchemy(text, out)
    return {key: value for key, value in out.items() if value is not None}


def _rails(text: str, out: dict) -> None:
    tables = [(m.start(), m.group(1)) for m in _RAILS_TABLE.finditer(text)]
    for m in _RAILS_COLUMN.finditer(text):
        table = _owner(tables, m.start())
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
        model = _owner(classes, m.start())
        if model:
            _django_field(model, m.group(1), m.group(2), m.group(3), out)
    models = [(m.start(), m.group(1).lower()) for m in _DJANGO_MODEL.finditer(text)]
    for m in _DJANGO_MODEL_FIELD.finditer(text):
        model = _owner(models, m.start())
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
        table = _owner(tables, m.start())
        if table:
            arguments = dict((a.group(1), a.group(2).strip('"')) for a in _EF_ARGUMENT.finditer(m.group(2)))
            _ef_column(table, arguments.get("name") or m.group(1), arguments, out)


def _ef_fluent(text: str, out: dict) -> None:
    entities = [(m.start(), m.group(1)) for m in _EF_ENTITY.finditer(text)]
    for m in _EF_PROPERTY.finditer(text) if entities else ():
        entity = _owner(entities, m.start())
        for call in _EF_FLUENT.finditer(m.group(2)) if entity else ():
            if call.group(2):
                out[f"{entity}.{m.group(1)} {_EF_FLUENT_KEYS[call.group(1)]}"] = _value(call.group(2))


def _ef_column(table: str, column: str, arguments: dict, out: dict) -> None:
    for attribute, key in (("type", "type"), ("maxLength", "maxLength"), ("defaultValue", "default")):
        if arguments.get(attribute):
            out[f"{table}.{column} {key}"] = arguments[attribute]


_RAILS_FROM = re.compile(r"\bfrom:\s*(\"[^\"]*\"|'[^']*'|[\w.:-]+)")
_EF_OLD = (("oldType", "type"), ("oldMaxLength", "maxLength"), ("oldDefaultValue", "default"))
_EF_OLD_ARGUMENT = re.compile(r"\b(oldType|oldMaxLength|oldDefaultValue)\s*:\s*(\"[^\"]*\"|[\w.-]+)")


def stated_old(text: str) -> dict:
    """`TABLE.COLUMN attribute` -> the value a migration says it replaces (module doc)."""
    if "from:" not in text and "oldType" not in text and "oldMaxLength" not in text and "oldDefault" not in text \
            and "existing_server_default" not in text:
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
    _ecto_stated(text, out)
    for m in _SA_ALTER.finditer(text):
        was = {o.group(1): o.group(2) for o in _SA_OPTION.finditer(m.group(3))}.get("existing_server_default")
        if was is not None:
            out[f"{m.group(1)}.{m.group(2)} default"] = _value(was)
    return {key: value for key, value in out.items() if value is not None}


def _ecto_columns(text: str):
    """(table, _ECTO_COLUMN match) of each column line inside a `table(...)` or `schema "..."` block."""
    tables = [(m.start(), m.group(1) or m.group(2)) for m in _ECTO_TABLE.finditer(text)]
    for m in _ECTO_COLUMN.finditer(text) if tables else ():
        table = _owner(tables, m.start())
        if table is not None:
            yield table, m


def _ecto_stated(text: str, out: dict) -> None:
    for table, m in _ecto_columns(text):
        was = _ECTO_FROM.search(m.group(3))
        if was:
            if was.group(1) or was.group(3):
                out[f"{table}.{m.group(1)} type"] = (was.group(1) or was.group(3)).lstrip(":")
            for option in _ECTO_OPTION.finditer(was.group(2) or ""):
                out[f"{table}.{m.group(1)} {option.group(1)}"] = _value(option.group(2).lstrip(":"))


def _ecto(text: str, out: dict) -> None:
    for table, m in _ecto_columns(text):
        options = _ECTO_FROM.sub("", m.group(3))  # (what a `modify` replaced is stated_old's)
        if not m.group(2).startswith(":references"):
            out[f"{table}.{m.group(1)} type"] = m.group(2).lstrip(":")
        for option in _ECTO_OPTION.finditer(options):
            out[f"{table}.{m.group(1)} {option.group(1)}"] = _value(option.group(2).lstrip(":"))


def _sqlalchemy(text: str, out: dict) -> None:
    tables = [(m.start(), m.group(1) or m.group(2)) for m in _SA_TABLE.finditer(text)]
    for m in _SA_COLUMN.finditer(text) if tables else ():
        table = _owner(tables, m.start())
        column, arguments = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if table:
            _sqlalchemy_column(table, column, arguments, out)
    for m in _SA_ALTER.finditer(text):
        _sqlalchemy_column(m.group(1), m.group(2), m.group(3), out, first_is_type=False)


def _sqlalchemy_column(table: str, column: str, arguments: str, out: dict, first_is_type=True) -> None:
    kind = _SA_TYPE.match(arguments) if first_is_type else None
    if kind and not kind.group(1).startswith(("ForeignKey", "Identity", "Computed")):
        out[f"{table}.{column} type"] = kind.group(1).removesuffix("()")
    found = {o.group(1): o.group(2) for o in _SA_OPTION.finditer(arguments)}
    default = found.get("server_default", found.get("default"))
    if default is not None:
        out[f"{table}.{column} default"] = _value(default.strip("\"")).strip("'")  # (`text("'basic'")`)
    if found.get("type_"):
        out[f"{table}.{column} type"] = found["type_"].removeprefix("sa.")


_PRISMA_BLOCK = re.compile(r"^[ \t]*(model|datasource|generator)\s+(\w+)\s*\{(.*?)^[ \t]*\}", re.MULTILINE | re.DOTALL)
_PRISMA_FIELD = re.compile(r"^[ \t]*(\w+)\s+([A-Z]\w*(?:\[\])?\??)(.*)$", re.MULTILINE)
_PRISMA_DEFAULT = re.compile(r"@default\(\s*(\"[^\"]*\"|-?\d+(?:\.\d+)?|true|false|[A-Z_][A-Z0-9_]*)\s*\)")
_PRISMA_DB_TYPE = re.compile(r"@db\.(\w+(?:\([\d, ]*\))?)")
_PRISMA_MAP = re.compile(r"@@map\(\s*\"(\w+)\"\s*\)")
_PRISMA_SETTING = re.compile(r"^[ \t]*(\w+)\s*=\s*(.+?)\s*$", re.MULTILINE)


def read_prisma(text: str) -> dict:
    """key -> value of a Prisma schema (module doc); a fragment's fields, outside their model, are keyed `field
    default` (latest.Known.resolve completes them)."""
    out, blocks = {}, list(_PRISMA_BLOCK.finditer(text))
    for block in blocks:
        kind, name, inner = block.groups()
        if kind != "model":
            for m in _PRISMA_SETTING.finditer(inner):
                value = clean_value(m.group(2), ("//",))
                if value is not None and "(" not in value:
                    out[f"{kind} {name}.{m.group(1)}"] = value
            continue
        mapped = _PRISMA_MAP.search(inner)
        _prisma_fields(inner, f"{mapped.group(1) if mapped else name}.", out)
    if not blocks:
        _prisma_fields(text, "", out)
    return out


def _prisma_fields(text: str, prefix: str, out: dict) -> None:
    for m in _PRISMA_FIELD.finditer(text):
        field, kind, rest = m.groups()
        if kind.endswith("[]") or "@relation" in rest:
            continue  # a relation is no column
        db_type, default = _PRISMA_DB_TYPE.search(rest), _PRISMA_DEFAULT.search(rest)
        if db_type:  # (the database's type; Prisma's own `Int` would read as a change beside SQL's INTEGER)
            out[f"{prefix}{field} type"] = db_type.group(1)
        if default:
            out[f"{prefix}{field} default"] = default.group(1).strip('"')
