"""Which reader reads a file, by its name; what a setting's key is shared with.

`format_of(path)` names the format family of a file people configure or of code whose constants they set (None:
prose, data, tests: no settings read); `read_settings(path, text)` gives key -> value (strings: a list is its
items joined by ", "), at most MAX_KEYS of them. `same_family(a, b)` says whether two files set the same keys:
the variants of one file in its folder (values.yaml and values-prod.yaml, .env and .env.production,
application.yml and application-prod.yml, not fct_ad_spend.sql and fct_deals.sql), every migration of a folder,
every config/*.exs, a module and the package it was split into (settings.py, settings/prod.py);
`project_wide(path, key)` the keys that hold for the whole project whichever file sets them
(a database job's schedule, a tool's version).
"""
import re

from brain.capture.settings.code import read_constants, read_notebook, read_script
from brain.capture.settings.dockerfile import read_dockerfile
from brain.capture.settings.elixir import read_elixir_config
from brain.capture.settings.env_files import VERSION_FILES, read_env, read_version_file
from brain.capture.settings.ini_text import read_ini
from brain.capture.settings.json_text import read_json
from brain.capture.settings.lines import read_braced, read_crontab, read_generic
from brain.capture.settings.lockfiles import (read_gemfile_lock, read_mix_lock, read_package_lock,
                                              read_package_tables, read_pnpm_lock, read_yarn_lock)
from brain.capture.settings.manifests import (read_gemfile, read_go_mod, read_gradle, read_mix_exs, read_msbuild,
                                              read_podfile, read_pyproject, read_requirements)
from brain.capture.settings.database import read_sql, sql_wide_key
from brain.capture.settings.migrations import read_prisma, read_schema, schema_key, stated_old
from brain.capture.settings.terraform import read_hcl
from brain.capture.settings.toml_text import read_toml
from brain.capture.settings.yaml_text import is_manifest, read_manifest, read_yaml

MAX_KEYS = 300  # a file setting more is data (a lockfile read whole): its first keys are kept

_BY_NAME = {
    "package-lock.json": "npm-lock", "npm-shrinkwrap.json": "npm-lock", "yarn.lock": "yarn-lock",
    "pnpm-lock.yaml": "pnpm-lock", "poetry.lock": "package-tables", "cargo.lock": "package-tables",
    "uv.lock": "package-tables", "mix.lock": "mix-lock", "gemfile.lock": "gemfile-lock",
    "pyproject.toml": "pyproject", "gemfile": "gemfile", "go.mod": "go-mod", "mix.exs": "mix-exs",
    "build.gradle": "gradle", "build.gradle.kts": "gradle", "settings.gradle": "gradle",
    "settings.gradle.kts": "gradle", "dockerfile": "dockerfile", "containerfile": "dockerfile",
    ".tool-versions": "version-file", "makefile": "makefile", "podfile": "podfile", "procfile": "generic",
    ".npmrc": "ini",
    ".yarnrc": "generic", ".editorconfig": "ini",
}
_BY_SUFFIX = (
    (".yml", "yaml"), (".yaml", "yaml"), (".toml", "toml"), (".json", "json"), (".jsonc", "json"),
    (".json5", "json"), (".ini", "ini"), (".cfg", "ini"), (".properties", "ini"), (".service", "ini"),
    (".timer", "ini"), (".socket", "ini"), (".path", "ini"), (".mount", "ini"),
    (".env", "env"), (".tfvars", "tfvars"), (".tf", "hcl"), (".hcl", "hcl"), (".sql", "sql"),
    (".dockerfile", "dockerfile"), (".conf", "generic"), (".bicepparam", "generic"), (".bicep", "braced"),
    (".gemspec", "gemfile"), (".xcconfig", "generic"),
    (".sh", "script"), (".bash", "script"), (".zsh", "script"), (".sbatch", "script"), (".slurm", "script"),
    (".py", "code"), (".ts", "code"), (".tsx", "code"), (".js", "code"), (".jsx", "code"), (".mjs", "code"),
    (".cjs", "code"), (".go", "code"), (".rs", "code"), (".rb", "code"), (".kt", "code"), (".java", "code"),
    (".cs", "code"), (".swift", "code"), (".scala", "code"), (".ex", "code"), (".php", "code"), (".dart", "code"),
    (".h", "code"), (".hh", "code"), (".hpp", "code"), (".hxx", "code"), (".c", "code"), (".cc", "code"),
    (".cpp", "code"), (".cxx", "code"), (".ino", "code"), (".exs", "code"), (".prisma", "prisma"),
    (".ipynb", "notebook"), (".csproj", "msbuild"), (".fsproj", "msbuild"), (".vbproj", "msbuild"),
    (".props", "msbuild"),
)
# A template a tool renders into the file (Ansible's Jinja), or a sample of it people copy (`app.env.example`):
# read as the file it stands for; a template's `{{ }}` values are none
_TEMPLATE_SUFFIXES = (".j2", ".jinja2", ".jinja", ".example", ".sample", ".dist", ".template", ".tmpl", ".tpl")
_UNIT_SUFFIXES = tuple(suffix + template for suffix in (".service", ".timer", ".socket", ".path", ".mount")
                       for template in ("",) + _TEMPLATE_SUFFIXES)
# Folders of a project's own commands: a file there without an extension is a script (`bin/backup-db`)
_SCRIPT_FOLDERS = frozenset("bin script scripts hack".split())
# Folders whose file named `config` is INI (not .kube's YAML nor .ssh's own format)
_INI_CONFIG_FOLDERS = frozenset((".git", ".dvc", ".cargo", ".hg"))
# Tests set values to test them: a test's constant is no setting of the project.
_TEST_NAME = re.compile(r"(?:^|[/_.-])(?:tests?|spec|__tests__)(?:[/_.-]|$)")
_READERS = {
    "yaml": read_yaml, "toml": read_toml, "json": read_json, "ini": read_ini, "env": read_env, "sql": read_sql,
    "hcl": read_hcl, "tfvars": lambda text: read_hcl(text, tfvars=True), "dockerfile": read_dockerfile,
    "npm-lock": read_package_lock, "yarn-lock": read_yarn_lock, "pnpm-lock": read_pnpm_lock,
    "package-tables": read_package_tables, "mix-lock": read_mix_lock, "gemfile-lock": read_gemfile_lock,
    "pyproject": read_pyproject, "gemfile": read_gemfile, "go-mod": read_go_mod, "mix-exs": read_mix_exs,
    "gradle": read_gradle, "msbuild": read_msbuild, "podfile": read_podfile, "requirements": read_requirements,
    "elixir-config": read_elixir_config,
    "generic": read_generic, "braced": read_braced, "crontab": read_crontab,
    "makefile": lambda text: read_generic(text, equals_only=True),
    "code": lambda text: {**read_constants(text), **read_schema(text)}, "script": read_script,
    "notebook": read_notebook, "prisma": read_prisma,
}


def file_name(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def format_of(path) -> str | None:
    """The format family a file's settings are read in, or None when it is no file people configure."""
    if not path:
        return None
    name = file_name(path).lower()
    template = next((suffix for suffix in _TEMPLATE_SUFFIXES if name.endswith(suffix)), None)
    if template and len(name) > len(template) and not name.startswith(".env"):
        return format_of(path[:-len(template)])  # a template or sample of the file (`restic.timer.j2`)
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name in VERSION_FILES:
        return "version-file"
    if name.startswith(".env") or name.endswith(".env"):
        return "env"
    folder = path.replace("\\", "/").rsplit("/", 2)[-2:-1]
    if name == "config" and folder and folder[0] in _INI_CONFIG_FOLDERS:
        return "ini"  # a tool's own config in its folder (.git/config, .dvc/config)
    if name.startswith(("dockerfile.", "containerfile.")):
        return "dockerfile"
    if name == "crontab" or name.endswith((".cron", ".crontab")) or "/cron.d/" in "/" + path.replace("\\", "/"):
        return "crontab"
    if name.startswith(("requirements", "constraints")) and name.endswith((".txt", ".in")):
        return "requirements"
    if name.endswith(".exs") and ("/config/" in "/" + path.replace("\\", "/") or name in ("config.exs",
                                                                                         "runtime.exs")):
        return "elixir-config"
    kind = next((kind for suffix, kind in _BY_SUFFIX if name.endswith(suffix)), None)
    if kind == "code" and _TEST_NAME.search(path.replace("\\", "/").lower()):
        return None
    if kind is None and "." not in name and folder and folder[0].lower() in _SCRIPT_FOLDERS:
        return "script"
    return kind


def _finished(value):
    if isinstance(value, tuple):
        return ", ".join(value) if value else None
    return value if isinstance(value, str) and value else None


def read_settings(path: str, text: str) -> dict:
    """key -> value of the settings `text` (a file's content or a fragment of it) sets, read as `path`'s format."""
    kind = format_of(path)
    if kind is None or not text:
        return {}
    if kind == "version-file":
        found = read_version_file(file_name(path).lower(), text)
    elif kind == "yaml" and is_manifest(text):
        found = read_manifest(text)
    else:
        found = _READERS[kind](text)
    out = {}
    for key, value in found.items():
        value = _finished(value)
        if value is not None and key:
            out[key] = value
            if len(out) >= MAX_KEYS:
                break
    return out


def replaced_in(path: str, text: str) -> dict:
    """key -> the value a file says it replaces (a migration's `from: 15`), for the keys it sets."""
    return stated_old(text) if format_of(path) == "code" else {}


def _stem(name: str) -> str:
    """A file name without its format's extension (`values-prod` of values-prod.yaml; `.env.production` stays)."""
    suffix = next((suffix for suffix, _ in _BY_SUFFIX if name.endswith(suffix)), "")
    return name[:-len(suffix)] if suffix and len(name) > len(suffix) else name


def same_family(a: str, b: str) -> bool:
    """Whether two files set the same keys (see the module doc): the same folder and format, and one's name the
    other's followed by a variant (values / values-prod, .env / .env.production, appsettings /
    appsettings.Development); or two migrations named by number or date; or two config/*.exs; or a module and
    the package it was split into (settings.py and settings/base.py)."""
    if a == b:
        return True
    folder_a, _, name_a = a.replace("\\", "/").rpartition("/")
    folder_b, _, name_b = b.replace("\\", "/").rpartition("/")
    kind = format_of(a)
    if kind is None or kind != format_of(b):
        return False
    if _split_into(folder_a, folder_b, name_b) or _split_into(folder_b, folder_a, name_a):
        return True
    if folder_a != folder_b:
        return False
    if kind == "elixir-config" or (name_a[:1].isdigit() and name_b[:1].isdigit()):
        return True
    if name_a.lower().endswith(_UNIT_SUFFIXES) or name_b.lower().endswith(_UNIT_SUFFIXES):
        return False  # a systemd unit's name is the unit: app-backup.service is no variant of app.service
    short, long = sorted((_stem(name_a.lower()), _stem(name_b.lower())), key=len)
    return len(long) > len(short) and long.startswith(short) and long[len(short)] in "-._"


def _split_into(folder: str, other_folder: str, other_name: str) -> bool:
    """Whether `folder` is the package a module was split into (app/settings/ of app/settings.py)."""
    stem = _stem(other_name.lower())
    return bool(stem) and folder.lower() == (f"{other_folder}/{stem}" if other_folder else stem).lower()


def project_wide(path: str, key: str) -> bool:
    """Whether `key` holds for the whole project whichever file sets it: a database job or setting or column (SQL,
    or a migration in code), a tool's version seen in a command's output (no path), a C or C++ header's macro or
    constant (every file including the header sees one `MQTT_PORT`, whichever header defines it), an MSBuild
    Directory.*.props property (every project below it)."""
    if not path:
        return True
    kind = format_of(path)
    if kind == "code" and file_name(path).lower().endswith(_HEADERS):
        return key.isupper()
    if kind == "msbuild" and file_name(path).lower().startswith("directory."):
        return True  # Directory.Build.props, Directory.Packages.props: every project below them
    return (kind == "sql" and sql_wide_key(key)) or (kind in ("code", "prisma") and schema_key(key))


_HEADERS = (".h", ".hh", ".hpp", ".hxx")
