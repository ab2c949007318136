"""Settings read by file format (brain/capture/settings): each reader, a file it must read into the expected keys
and look-alikes it must leave (comments, templates, code, scripts, references)."""
import pytest

from brain.capture.settings.formats import MAX_KEYS, format_of, project_wide, read_settings, same_family
from brain.capture.settings.lines import written_line


def settings(path: str, text: str) -> dict:
    return read_settings(path, text)


# ---------------------------------------------------------------------------------------------------- YAML
HELM_VALUES = """\
replicaCount: 2   # two pods
image:
  repository: ghcr.io/acme/api
  tag: "1.4.2"
autoscaling:
  enabled: true
  maxReplicas: 5
env:
  - name: LOG_LEVEL
    value: info
args: [--port, "8080"]
"""


def test_yaml_nested_keys_are_dotted_paths_and_list_items_are_named():
    assert settings("charts/api/values.yaml", HELM_VALUES) == {
        "replicaCount": "2", "image.repository": "ghcr.io/acme/api", "image.tag": "1.4.2",
        "autoscaling.enabled": "true", "autoscaling.maxReplicas": "5", "env[LOG_LEVEL].value": "info",
        "args": "--port, 8080"}


def test_yaml_leaves_scripts_templates_aliases_and_comments():
    text = ("# replicas: 9\nrun: |\n  export port: 1\n  echo done\nhost: \"{{ .Values.host }}\"\nbase: *defaults\n"
            "folded: >-\n  a: b\nurl: https://x.io:8080/a\ntime: '04:30'\n")
    assert settings("ci.yml", text) == {"url": "https://x.io:8080/a", "time": "04:30"}


def test_yaml_reads_an_edits_fragment_whose_parents_are_missing():
    assert settings("values.yaml", "    maxReplicas: 8\n") == {"maxReplicas": "8"}
    assert settings("values.yaml", "autoscaling:\n  enabled: true\n  maxReplicas: 8\n") == {
        "autoscaling.enabled": "true", "autoscaling.maxReplicas": "8"}


def test_github_actions_workflow():
    text = ("on:\n  schedule:\n    - cron: '0 3 * * *'\njobs:\n  test:\n    runs-on: ubuntu-22.04\n    env:\n"
            "      CI: true\n    steps:\n      - uses: actions/checkout@v4\n      - name: Set up node\n"
            "        uses: actions/setup-node@v3\n        with:\n          node-version: 18\n"
            "      - run: npm test\n")
    assert settings(".github/workflows/ci.yml", text) == {
        "on.schedule[0].cron": "0 3 * * *", "jobs.test.runs-on": "ubuntu-22.04", "jobs.test.env.CI": "true",
        "jobs.test.steps[actions/checkout].uses": "actions/checkout@v4",
        "jobs.test.steps[Set up node].uses": "actions/setup-node@v3",
        "jobs.test.steps[Set up node].with.node-version": "18"}


def test_yaml_items_nothing_names_are_no_keys_in_a_longer_list():
    """A position moves when an item comes or goes: `steps[3].run` was `poetry install`, then `ruff check`."""
    text = "ports:\n  - containerPort: 8080\nsteps:\n  - with: {a: 1}\n    shell: bash\n  - with: {a: 2}\n"
    assert settings("deploy.yaml", text) == {"ports[0].containerPort": "8080"}


# ---------------------------------------------------------------------------------------------------- Kubernetes
MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: api
          image: ghcr.io/acme/api:1.4.2
          resources:
            limits:
              memory: 512Mi
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: digest
spec:
  schedule: "30 4 * * *"
"""


def test_kubernetes_objects_own_their_keys():
    assert settings("k8s/api.yaml", MANIFEST) == {
        "Deployment/api.spec.replicas": "2",
        "Deployment/api.spec.template.spec.containers[api].image": "ghcr.io/acme/api:1.4.2",
        "Deployment/api.spec.template.spec.containers[api].resources.limits.memory": "512Mi",
        "CronJob/digest.spec.schedule": "30 4 * * *"}


def test_a_helm_template_is_not_read_as_its_values():
    text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n" \
           "  replicas: {{ .Values.replicaCount }}\n"
    assert settings("charts/api/templates/deployment.yaml", text) == {}


# ---------------------------------------------------------------------------------------------------- JSON
APP_JSON = """{
  "expo": {
    "name": "shop",
    "version": "1.2.0",
    "ios": {"bundleIdentifier": "app.shop", "buildNumber": "14"},
    "plugins": [
      "expo-router",
      ["expo-build-properties", {"ios": {"deploymentTarget": "15.1"}}]
    ]
  }
}"""


def test_json_app_config_with_named_plugin_options():
    assert settings("app.json", APP_JSON) == {
        "expo.name": "shop", "expo.version": "1.2.0", "expo.ios.bundleIdentifier": "app.shop",
        "expo.ios.buildNumber": "14", "expo.plugins.expo-build-properties.ios.deploymentTarget": "15.1"}


def test_json_fragment_reads_the_keys_its_braces_open():
    assert settings("app.json", '          "ios": {\n            "deploymentTarget": "16.0"\n          },') == {
        "ios.deploymentTarget": "16.0"}
    assert settings("appsettings.json", '    "ReminderLeadHours": 48,\n') == {"ReminderLeadHours": "48"}


def test_json_with_comments_and_package_json_dependencies():
    assert settings("tsconfig.json", '{\n  // strict\n  "compilerOptions": {"target": "ES2022"}\n}') == {
        "compilerOptions.target": "ES2022"}
    package = '{"name": "web", "dependencies": {"react": "^18.2.0"}, "engines": {"node": ">=20"}}'
    assert settings("package.json", package) == {"name": "web", "dependencies.react": "^18.2.0",
                                                  "engines.node": ">=20"}


def test_json_list_items_are_named_by_their_route():
    """A cron's schedule is the cron's at its path, whichever place the list gives it (vercel.json)."""
    crons = ('{"crons": [{"path": "/api/cron/a", "schedule": "0 8 * * *"}, '
             '{"path": "/api/cron/b", "schedule": "0 2 * * *"}]}')
    assert settings("vercel.json", crons) == {"crons[/api/cron/a].schedule": "0 8 * * *",
                                              "crons[/api/cron/b].schedule": "0 2 * * *"}


def test_json_leaves_templates():
    assert settings("config.json", '{"url": "${API_URL}", "port": 8080}') == {"port": "8080"}


# ---------------------------------------------------------------------------------------------------- TOML
def test_toml_tables_inline_tables_and_arrays():
    text = ('[package]\nname = "quarry"\nedition = "2021"\n\n[dependencies]\ntokio = { version = "1.36", features '
            '= ["full"] }\nserde = "1.0.197"  # serialization\n\n[profile.release]\nlto = true\n'
            'description = """\nlong = text\n"""\n')
    assert settings("Cargo.toml", text) == {
        "package.name": "quarry", "package.edition": "2021", "dependencies.tokio.version": "1.36",
        "dependencies.tokio.features": "full", "dependencies.serde": "1.0.197", "profile.release.lto": "true"}


def test_toml_array_of_tables_is_named_by_name():
    text = '[[package]]\nname = "celery"\nversion = "5.4.0"\n\n[[package]]\nname = "arq"\nversion = "0.25.0"\n'
    assert settings("netlify.toml", text) == {"package[celery].version": "5.4.0", "package[arq].version": "0.25.0"}


# ---------------------------------------------------------------------------------------------------- INI
def test_ini_sections_and_continued_values():
    text = "[metadata]\nname = x\n; a comment\n[flake8]\nmax-line-length = 100\nexclude =\n  .git,\n  build\n"
    assert settings("setup.cfg", text) == {"metadata.name": "x", "flake8.max-line-length": "100"}
    assert settings("application.properties", "server.port=8081\n# spring.x=1\n") == {"server.port": "8081"}


def test_ini_keys_indented_under_their_section_are_keys():
    """git and DVC indent every key: only a line under a key without a value continues it."""
    text = "[core]\n    remote = lab\n['remote \"lab\"']\n    url = s3://bucket/x\n"
    assert settings(".dvc/config", text) == {"core.remote": "lab", 'remote "lab".url': "s3://bucket/x"}
    assert settings("/home/me/app/.git/config", '[remote "origin"]\n\turl = git@host:a/b.git\n') == {
        'remote "origin".url': "git@host:a/b.git"}
    assert settings("~/.kube/config", "[x]\na = 1\n") != {"x.a": "1"}  # (YAML, not INI)


def test_elixir_module_attributes_given_a_literal_are_settings():
    text = "defmodule Rota do\n  @week_start :sunday\n  @link_minutes 60 # short\n  @doc false\n  @impl true\nend\n"
    assert settings("lib/grebe/rota.ex", text) == {"@week_start": ":sunday", "@link_minutes": "60"}


# ---------------------------------------------------------------------------------------------------- .env, versions
def test_env_files_with_export_quotes_comments_and_references():
    text = 'export DATABASE_URL=postgres://db/app\nPORT=8080 # api\nGREETING="hi #1"\nURL=${BASE}/x\n# X=1\n'
    assert settings(".env.production", text) == {"DATABASE_URL": "postgres://db/app", "PORT": "8080",
                                                  "GREETING": "hi #1"}


@pytest.mark.parametrize("name, text, expected", [
    (".nvmrc", "20.11.1\n", {"node": "20.11.1"}),
    (".python-version", "3.12.1\n", {"python": "3.12.1"}),
    (".ruby-version", "3.3.0", {"ruby": "3.3.0"}),
    (".tool-versions", "nodejs 20.11.1\npython 3.12.1 3.11.7\n# erlang 26\n",
     {"nodejs": "20.11.1", "python": "3.12.1"}),
    (".nvmrc", "", {}),
])
def test_version_files(name, text, expected):
    assert settings(name, text) == expected


# ---------------------------------------------------------------------------------------------------- manifests
@pytest.mark.parametrize("path, text, expected", [
    ("requirements-dev.txt", "celery==5.3.6\narq>=0.25  # jobs\n-r base.txt\nrequests\ngit+https://x/y\n",
     {"celery": "5.3.6", "arq": ">=0.25"}),
    ("pyproject.toml",
     '[project]\ndependencies = [\n  "celery==5.3.6",\n  "arq>=0.25",\n]\n[tool.ruff]\nline-length = 100\n',
     {"project.dependencies.celery": "5.3.6", "project.dependencies.arq": ">=0.25", "tool.ruff.line-length": "100"}),
    ("Gemfile", 'ruby "3.3.0"\ngem "rails", "~> 7.1.3"\ngem "puma"\n# gem "x", "1"\n',
     {"ruby": "3.3.0", "gem rails": "~> 7.1.3"}),
    ("go.mod", "module x\n\ngo 1.22\n\nrequire (\n\tgithub.com/go-chi/chi/v5 v5.0.12\n)\n",
     {"go": "1.22", "require github.com/go-chi/chi/v5": "v5.0.12"}),
    ("mix.exs",
     'def project do\n  [app: :shop, elixir: "~> 1.15"]\nend\ndefp deps do\n  [{:phoenix, "~> 1.7.10"}]\nend\n',
     {"elixir": "~> 1.15", "app": "shop", "deps.phoenix": "~> 1.7.10"}),
    ("build.gradle.kts", 'plugins {\n  id("org.springframework.boot") version "3.2.1"\n}\nkotlin { jvmToolchain(17) }\n'
                         'dependencies {\n  implementation("org.postgresql:postgresql:42.7.1")\n}\n',
     {"plugin org.springframework.boot": "3.2.1", "implementation org.postgresql:postgresql": "42.7.1"}),
    ("gradle/libs.versions.toml",
     '[versions]\nkotlin = "1.9.22"\n[libraries]\nx = { module = "a:b", version.ref = "kotlin" }\n',
     {"versions.kotlin": "1.9.22", "libraries.x.module": "a:b", "libraries.x.version.ref": "kotlin"}),
])
def test_package_manifests(path, text, expected):
    assert settings(path, text) == expected


# ---------------------------------------------------------------------------------------------------- lockfiles
@pytest.mark.parametrize("path, text, expected", [
    ("package-lock.json", '{"lockfileVersion": 3, "packages": {"": {"dependencies": {"react": "^18.2.0"}}, '
                          '"node_modules/react": {"version": "18.3.1"}, "node_modules/a/node_modules/b": '
                          '{"version": "1.0.0"}, "node_modules/@types/node": {"version": "20.11.5"}}}',
     {"react": "18.3.1", "@types/node": "20.11.5"}),
    ("yarn.lock", '"react@^18.2.0":\n  version "18.3.1"\n  resolved "https://x"\n', {"react": "18.3.1"}),
    ("pnpm-lock.yaml", "importers:\n  .:\n    dependencies:\n      react:\n        specifier: ^18.2.0\n"
                       "        version: 18.3.1(react-dom@18.3.1)\n", {"react": "18.3.1"}),
    ("poetry.lock", '[[package]]\nname = "celery"\nversion = "5.4.0"\n', {"celery": "5.4.0"}),
    ("Cargo.lock", '[[package]]\nname = "serde"\nversion = "1.0.197"\nsource = "x"\n', {"serde": "1.0.197"}),
    ("mix.lock", '%{\n  "phoenix": {:hex, :phoenix, "1.7.12", "abc", [:mix], [], "hexpm", "def"},\n}\n',
     {"phoenix": "1.7.12"}),
    ("Gemfile.lock", "GEM\n  specs:\n    rails (7.1.3)\n      actioncable (= 7.1.3)\n", {"rails": "7.1.3"}),
])
def test_lockfiles(path, text, expected):
    assert settings(path, text) == expected


def test_a_large_file_keeps_its_first_keys_only():
    text = "\n".join(f"KEY_{i}=v{i}" for i in range(MAX_KEYS + 50))
    assert len(settings(".env", text)) == MAX_KEYS


# ---------------------------------------------------------------------------------------------------- Dockerfile
def test_dockerfile_stages_args_env_and_command():
    text = ("ARG NODE_VERSION=20\nFROM node:${NODE_VERSION}-alpine AS deps\nFROM node:20-alpine AS build\n"
            "# FROM busybox\nENV PORT=8080 \\\n    LOG_LEVEL=info\nENV OLD value\nFROM gcr.io/distroless/nodejs20\n"
            "EXPOSE 8080\nCMD [\"server.js\"]\nRUN npm ci\n")
    assert settings("Dockerfile", text) == {
        "ARG NODE_VERSION": "20", "FROM build": "node:20-alpine", "ENV PORT": "8080", "ENV LOG_LEVEL": "info",
        "ENV OLD": "value", "FROM 3": "gcr.io/distroless/nodejs20", "EXPOSE": "8080", "CMD": '["server.js"]'}


# ---------------------------------------------------------------------------------------------------- SQL
def test_sql_jobs_settings_and_defaults():
    text = ("select cron.schedule('nightly-digest', '0 3 * * *', $$select send_digest()$$);\n"
            "ALTER ROLE authenticated SET statement_timeout = '8s';\nSET lock_timeout TO '2s';\n"
            "UPDATE jobs\nSET status = 'done';\n-- select cron.schedule('x', '1 2 3 4 5', 'y');\n"
            "ALTER TABLE orders ALTER COLUMN status SET DEFAULT 'pending';\n"
            "CREATE TABLE t (\n  id bigint primary key,\n  retries int not null DEFAULT 3\n);\n")
    found = settings("supabase/migrations/20240301_digest.sql", text)
    assert found == {"cron job nightly-digest": "0 3 * * *", "role authenticated statement_timeout": "8s",
                     "lock_timeout": "2s", "orders.status default": "pending", "t.retries default": "3",
                     "t.id type": "bigint", "t.retries type": "int"}


def test_dbt_model_config():
    assert settings("models/marts/fct.sql", "{{ config(materialized='incremental', unique_key='id') }}\nselect 1") == {
        "config.materialized": "incremental", "config.unique_key": "id"}


# ---------------------------------------------------------------------------------------------------- Terraform
TERRAFORM = """\
terraform {
  required_version = ">= 1.6"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}

variable "region" {
  type    = string
  default = "eu-west-1"
}

resource "aws_ecs_service" "api" {
  desired_count = 2   # two tasks
  name          = "${var.env}-api"
  cluster       = aws_ecs_cluster.main.id
}
"""


def test_terraform_addresses_literals_and_provider_versions():
    assert settings("infra/main.tf", TERRAFORM) == {
        "terraform required_version": ">= 1.6", "terraform.required_providers.aws.source": "hashicorp/aws",
        "provider aws version": "~> 5.0", "var.region": "eu-west-1", "aws_ecs_service.api.desired_count": "2"}


def test_tfvars_set_variables():
    assert settings("infra/prod.tfvars", 'region = "eu-central-1"\ncount = 3\n') == {
        "var.region": "eu-central-1", "var.count": "3"}


# ---------------------------------------------------------------------------------------------------- Elixir
def test_elixir_config_keywords_over_lines():
    text = ('import Config\n\nconfig :shop, Shop.Repo,\n  username: "postgres",\n  pool_size: 10,\n'
            '  url: System.get_env("DATABASE_URL")\n\nconfig :logger, level: :info\n# config :x, y: 1\n')
    assert settings("config/prod.exs", text) == {
        "config :shop, Shop.Repo, username": "postgres", "config :shop, Shop.Repo, pool_size": "10",
        "config :logger, level": ":info"}
    assert settings("config/prod.exs", "  pool_size: 20,\n") == {"pool_size": "20"}
    assert settings("config/prod.exs", "pool_size: 20,\n") == {"pool_size": "20"}  # an Edit's line, unindented
    assert settings("config/prod.exs", "config :shop, Shop.Mailer,\n  adapter: Swoosh.Adapters.Brevo,\n") == {
        "config :shop, Shop.Mailer, adapter": "Swoosh.Adapters.Brevo"}  # a module is a literal
    assert settings("config/prod.exs", "config :shop, Shop.Repo,\npool_size: 20\n") == {}  # col 0 in a file: no


# ---------------------------------------------------------------------------------------------------- generic
def test_generic_config_lines_leave_calls():
    assert settings("infra/staging.bicepparam", "using './main.bicep'\nparam location = 'westeurope'\n"
                                                "param minReplicas = 1\nparam tags = union(a, b)\n") == {
        "location": "westeurope", "minReplicas": "1"}
    assert settings("Makefile", "PORT ?= 8080\nbuild: deps\n\tgo build\n") == {"PORT": "8080"}


# ---------------------------------------------------------------------------------------------------- which files
@pytest.mark.parametrize("path", ["README.md", "notes.txt", "mix.lock.bak", "tests/test_app.py", "src/api_test.go",
                                  "web/Map.spec.tsx", "data.csv", ""])
def test_prose_data_and_tests_are_no_configuration(path):
    assert format_of(path) is None
    assert settings(path, "PORT = 8080\nname: x\n") == {}


# ---------------------------------------------------------------------------------------------------- code, scripts
@pytest.mark.parametrize("path, text, expected", [
    ("src/gullwing/hubspot_client.py", 'HUBSPOT_MAX_RPS = 10  # per token\nmax_retries = 3\n'
                                       'TIMEOUT = httpx.Timeout(30.0)\nDEBUG = True\nBATCH = 30_000\n',
     {"HUBSPOT_MAX_RPS": "10", "DEBUG": "True", "BATCH": "30000"}),
    ("web/src/limits.ts", 'export const MAX_UPLOAD_MB = 25;\nconst apiBase = "https://api.x.io";\nlet count = 0;\n',
     {"MAX_UPLOAD_MB": "25", "apiBase": "https://api.x.io"}),
    ("internal/hatch/client.go", "const maxRetries = 5\nconst HoldTTL = 15 * time.Minute\nvar current = 3\n"
                                 "const window = base * 2\n",
     {"maxRetries": "5", "HoldTTL": "15 * time.Minute"}),
    ("src/storage.rs", "pub const RETENTION_DAYS: u32 = 30;\nlet x = 5;\n", {"RETENTION_DAYS": "30"}),
    ("src/main/kotlin/Reminders.kt", "    private const val LEAD_HOURS = 24\n    val name = \"x\"\n",
     {"LEAD_HOURS": "24"}),
    ("src/main/java/app/Limits.java", "    private static final int MAX_RETRIES = 5;\n    int count = 0;\n"
                                      "    public static final String QUEUE = \"mail\";\n",
     {"MAX_RETRIES": "5", "QUEUE": "mail"}),
    ("Services/Retry.cs", "    public const int MaxAttempts = 4;\n    var delay = 30;\n", {"MaxAttempts": "4"}),
    ("include/config.h", "#pragma once\n#define MQTT_HOST \"broker.lan\"  // the greenhouse's\n#define MQTT_PORT 8883\n"
                         "#define KEEPALIVE_S (90UL)\n#define APP_SIZE 0x1E0000\n#define DEBUG\n"
                         "static const uint32_t SAMPLE_MS = 45000;\nconstexpr int kRetries = 3;\n",
     {"MQTT_HOST": "broker.lan", "MQTT_PORT": "8883", "KEEPALIVE_S": "90", "APP_SIZE": "0x1E0000",
      "SAMPLE_MS": "45000", "kRetries": "3"}),
    ("src/main.ino", "const char* WIFI_SSID = \"gh-iot\";\nint reading = 0;\n", {"WIFI_SSID": "gh-iot"}),
])
def test_constants_in_code(path, text, expected):
    assert settings(path, text) == expected


def test_arguments_and_entries_written_one_to_a_line_in_code():
    """Configuration written in code (an Airflow DAG, a Vite config): an argument or a dict entry given a literal
    (or a call of a few) on its own line; a variable assigned in a body, a computed argument and a nested
    object's first line are none."""
    dag = ('with DAG(\n    dag_id="orders_daily",\n    schedule="0 6 * * *",\n    default_args={\n'
           '        "retries": 1,\n        "retry_delay": timedelta(minutes=5),\n        \'owner\': \'data\',\n'
           '        "on_failure_callback": notify,\n    },\n    catchup=False,\n) as dag:\n'
           '    count = 0\n    total = compute(x),\n    x=foo(bar, baz),\n')
    assert settings("dags/orders_daily.py", dag) == {
        "dag_id": "orders_daily", "schedule": "0 6 * * *", "default_args.retries": "1",
        "default_args.retry_delay": "timedelta(minutes=5)", "default_args.owner": "data", "catchup": "False"}
    vite = "export default defineConfig({\n  server: { port: 5173 },\n  port: 5174,\n  timeout: 30\n})\n"
    assert settings("vite.config.ts", vite) == {"port": "5174"}
    # an edit's fragment, as capture reads one
    assert settings("dags/orders_daily.py", '    "retries": 3,') == {"retries": "3"}


def test_quantities_written_as_a_product_of_numbers_and_a_unit():
    """A constant's value may be a quantity as code writes one: numbers times a unit (Go's `time.Minute`), numbers
    multiplied (seconds in a month), a number's unit method (Ruby's `72.hours`); a product with a variable is
    computed, not set."""
    text = ("const HoldDuration = 20 * time.Minute\nconst hatchTimeout = 800 * time.Millisecond\n"
            "MAX_AGE = 60 * 60 * 24 * 30\nSKIP_CUTOFF = 48.hours\nLIMIT = PAGE * 4\nconst span = base * 2\n")
    assert read_settings("internal/hold.go", text) == {
        "HoldDuration": "20 * time.Minute", "hatchTimeout": "800 * time.Millisecond", "MAX_AGE": "60 * 60 * 24 * 30",
        "SKIP_CUTOFF": "48.hours", "LIMIT": "PAGE * 4"}


def test_named_arguments_inside_one_lines_call():
    """Options passed by name inside a call on one line are settings of that call (`RetryPolicy.max_retries`), or
    of the name the line gives it (two schedules in one file); a key given two values in one text, a span of time
    (`timedelta(days=7)` is one value) and a definition's defaults are none."""
    text = ('    retry=RetryPolicy(max_retries=3, delay=60, backoff=Backoff.EXPONENTIAL),\n'
            'daily = ScheduleDefinition(job=build_job, cron_schedule="30 5 * * *")\n'
            'hourly = ScheduleDefinition(job=sync_job, cron_schedule="0 * * * *")\n'
            'client := &http.Client{Timeout: 10 * time.Second}\n'
            'a = fetch(url, timeout=10)\nb = fetch(url, timeout=20)\n'
            'ttl = cache_for(timedelta(days=7))\n'
            'def connect(host, pool_size=5):\n')
    assert read_settings("src/app/jobs.py", text) == {
        "retry.max_retries": "3", "retry.delay": "60", "daily.cron_schedule": "30 5 * * *",
        "hourly.cron_schedule": "0 * * * *", "client.Timeout": "10 * time.Second", "a.timeout": "10",
        "b.timeout": "20"}
    assert read_settings("src/app/jobs.py", "    fetch(url, timeout=10)\n    fetch(url, timeout=20)\n") == {}


def test_schedules_paired_with_their_jobs_and_a_tuples_options():
    """A job list pairing a cron expression with the job it runs (Oban's crontab, a plain array) is each job's
    schedule; an Elixir tuple's options are keyed by its module."""
    config = ('config :forge, Oban,\n  repo: Forge.Repo,\n  plugins: [\n'
              '    {Oban.Plugins.Pruner, max_age: 60 * 60 * 24 * 7},\n'
              '    {Oban.Plugins.Cron, crontab: [{"30 17 * * *", Forge.Workers.Reminder}]}\n  ]\n')
    assert read_settings("config/config.exs", config) == {
        "config :forge, Oban, repo": "Forge.Repo", "Oban.Plugins.Pruner.max_age": "60 * 60 * 24 * 7",
        "Forge.Workers.Reminder schedule": "30 17 * * *"}
    assert read_settings("src/jobs.ts", 'export const JOBS = [["*/5 * * * *", "sync-orders"]];\n') == {
        "sync-orders schedule": "*/5 * * * *"}
    assert read_settings("src/jobs.ts", 'const when = ["every day", "0 3 * * *"];\n') == {}


def test_a_notebooks_code_cells():
    """A notebook written or read whole is JSON: its code cells' assignments are its settings (a later cell wins),
    its markdown none; a fragment an edit cut out of it is read as code."""
    import json

    notebook = json.dumps({"cells": [
        {"cell_type": "markdown", "source": ["growth = 0.5\n"]},
        {"cell_type": "code", "source": ["monthly_growth = 0.08\n", "horizon = 12\n", "df = load()\n"]},
        {"cell_type": "code", "source": "horizon = 18\n"}], "nbformat": 4})
    assert format_of("notebooks/capacity.ipynb") == "notebook"
    assert read_settings("notebooks/capacity.ipynb", notebook) == {"monthly_growth": "0.08", "horizon": "18"}
    assert read_settings("notebooks/capacity.ipynb", "monthly_growth = 0.15\n") == {"monthly_growth": "0.15"}


def test_a_value_written_as_a_call_of_a_few_literals():
    """Celery beat's `crontab(hour=7, minute=15)`, httpx's `Timeout(30.0, connect=5.0)`: a value written out, an
    entry's or an argument's like a number (keyed by the dicts it is in); a call given a name is computed."""
    text = ('CELERY_BEAT_SCHEDULE = {\n    "overdue-report": {\n        "schedule": crontab(hour=6, minute=45),\n'
            '        "args": build_args(period),\n    },\n}\n')
    assert read_settings("osprey/settings.py", text) == {
        "CELERY_BEAT_SCHEDULE.overdue-report.schedule": "crontab(hour=6, minute=45)"}
    assert read_settings("osprey/settings.py", '        "schedule": crontab(hour=7, minute=15),') == {
        "schedule": "crontab(hour=7, minute=15)"}


def test_php_and_ruby_arrays_with_arrows():
    """A Laravel config file is a PHP array: `'key' => literal,` lines (a call such as `env('X')` is worked out at
    run time); an edit's fragment may start at the key, without its indent."""
    text = ("<?php\nreturn [\n    'rounding_minutes' => 15,\n    'domain' => env('HORIZON_DOMAIN'),\n"
            "    'invoice_prefix' => 'INV-{Y}-{seq}',\n];\n")
    assert read_settings("config/lattice.php", text) == {"rounding_minutes": "15", "invoice_prefix": "INV-{Y}-{seq}"}
    assert read_settings("config/horizon.php", "'path' => 'ops/queues',") == {"path": "ops/queues"}
    assert read_settings("config/initializers/limits.rb", "  :limit => 10,\n") == {"limit": "10"}


def test_options_objects_given_to_a_call():
    """An options object is keyed by the call it is given to, or by the name the line gives it; one opening its
    own line (its call on the line above, out of an edit's fragment) by the option alone."""
    text = ('setGlobalOptions({region: "europe-west2"});\n'
            'export const nightly = onSchedule({schedule: "0 17 * * 4", timeZone: "Europe/London"}, run);\n'
            '  {memory: "256MiB", timeoutSeconds: 120},\n'
            'if (config == {retries: 2}) {}\n')
    assert read_settings("functions/src/index.ts", text) == {
        "setGlobalOptions.region": "europe-west2", "nightly.schedule": "0 17 * * 4",
        "nightly.timeZone": "Europe/London", "memory": "256MiB", "timeoutSeconds": "120"}


def test_android_gradle_properties_and_a_podfile():
    gradle = ("android {\n    defaultConfig {\n        minSdkVersion flutter.minSdkVersion\n"
              "        targetSdkVersion 33\n        versionName \"1.2.0\"\n    }\n}\n")
    assert read_settings("android/app/build.gradle", gradle) == {"targetSdkVersion": "33", "versionName": "1.2.0"}
    assert read_settings("android/app/build.gradle.kts", "        targetSdk = 34\n") == {"targetSdk": "34"}
    podfile = "platform :ios, '13.0'\n\ntarget 'Runner' do\n  pod 'Firebase/Messaging', '10.27.0'\nend\n"
    assert read_settings("ios/Podfile", podfile) == {"platform ios": "13.0", "pod Firebase/Messaging": "10.27.0"}


def test_systemd_units_and_templates_of_a_file_people_configure():
    """A systemd timer is INI; an Ansible template (`.j2`) is read as the file it renders, its `{{ }}` values
    worked out elsewhere."""
    timer = "[Timer]\nOnCalendar=*-*-* 22:30:00\nUnit={{ restic_unit }}\n"
    assert read_settings("roles/restic/templates/restic-backup.timer.j2", timer) == {
        "Timer.OnCalendar": "*-*-* 22:30:00"}
    assert format_of("deploy/restic-backup.timer") == "ini" and format_of("group_vars/all.yml.j2") == "yaml"
    assert format_of("notes.j2") is None


def test_shell_scripts_options_and_variables():
    text = ("#!/bin/bash\n#SBATCH --partition=h100\n#SBATCH --gres=gpu:4\nexport WANDB_PROJECT=wren\n"
            "srun python train.py --lr=1e-4\nsrun python eval.py --lr=2e-5\nOUT=$HOME/runs\n")
    assert settings("scripts/train.sbatch", text) == {"--partition": "h100", "--gres": "gpu:4",
                                                      "WANDB_PROJECT": "wren"}


def test_families_and_project_wide_keys():
    assert same_family("charts/api/values.yaml", "charts/api/values-prod.yaml")
    assert same_family(".env", ".env.production") and same_family("appsettings.json", "appsettings.Development.json")
    assert not same_family("k8s/api.yaml", "k8s/worker.yaml")
    assert not same_family("models/fct_ad_spend.sql", "models/fct_deals.sql")
    assert not same_family("charts/api/values.yaml", "charts/worker/values-prod.yaml")
    assert not same_family("values-dev.yaml", "values-prod.yaml")
    assert same_family("db/migrations/001_a.sql", "db/migrations/002_b.sql")
    assert same_family("config/config.exs", "config/prod.exs")
    assert project_wide("include/broker_config.h", "MQTT_PORT")  # one macro, whichever header defines it
    assert not project_wide("include/broker_config.h", "kRetries") and not project_wide("src/main.cpp", "MQTT_PORT")
    assert project_wide("supabase/migrations/0002.sql", "cron job nightly-digest")
    assert project_wide("", "node version")
    assert not project_wide("values.yaml", "replicaCount")


def test_msbuild_projects_package_versions_and_properties():
    """A .csproj's package items (either order of attributes, self-closed or with metadata inside, which is no
    property) and its one-line properties; central package versions in Directory.Packages.props."""
    project = ('<Project Sdk="Microsoft.NET.Sdk.Web">\n  <PropertyGroup>\n'
               '    <TargetFramework>net8.0</TargetFramework>\n'
               '  </PropertyGroup>\n  <ItemGroup>\n'
               '    <PackageReference Include="Microsoft.EntityFrameworkCore.SqlServer" Version="8.0.14" />\n'
               '    <PackageReference Version="1.8.17" Include="Hangfire.AspNetCore" />\n'
               '    <PackageReference Include="Microsoft.EntityFrameworkCore.Design" Version="8.0.14">\n'
               '      <PrivateAssets>all</PrivateAssets>\n    </PackageReference>\n  </ItemGroup>\n</Project>\n')
    assert read_settings("src/Ember.Api/Ember.Api.csproj", project) == {
        "TargetFramework": "net8.0", "PackageReference Microsoft.EntityFrameworkCore.SqlServer": "8.0.14",
        "PackageReference Hangfire.AspNetCore": "1.8.17",
        "PackageReference Microsoft.EntityFrameworkCore.Design": "8.0.14"}
    assert read_settings("Directory.Packages.props", '<PackageVersion Include="Serilog" Version="3.1.1" />') == {
        "PackageVersion Serilog": "3.1.1"}


def test_a_sample_of_a_file_and_a_script_without_an_extension():
    """`app.env.example` is read as the env file it is a sample of; a file without an extension in a project's
    bin/ or scripts/ folder as a shell script; an unknown name with a sample's suffix is no settings file."""
    assert read_settings("deploy/sable.env.example", "SABLE_SERVER__HOST=0.0.0.0\n") == {
        "SABLE_SERVER__HOST": "0.0.0.0"}
    assert format_of("config/database.yml.sample") == "yaml" and format_of("notes.example") is None
    assert read_settings("bin/backup-db", "#!/bin/bash\nset -euo pipefail\nRETAIN_DAYS=14\n") == {"RETAIN_DAYS": "14"}
    assert format_of("scripts/deploy") == "script" and format_of("app/bin") is None and format_of("README") is None


def test_a_schedule_given_to_a_call_across_lines_is_keyed_by_its_job():
    """Hangfire's `AddOrUpdate<Job>("name", j => ..., "cron", options)`: the schedule belongs to the call's first
    quoted name, else to the type it is called for; a schedule no call names a job for is left out."""
    code = ('jobs.AddOrUpdate<SettlementJob>(\n    "reconcile-settlements",\n'
            '    j => j.RunAsync(CancellationToken.None),\n'
            '    "0 2 * * *",\n    new RecurringJobOptions { TimeZone = TimeZoneInfo.Utc });\n'
            'RecurringJob.AddOrUpdate<ExpireTicketsJob>(j => j.Run(), "10 0 * * *");\n'
            'cron.schedule("0 7 * * *", () => send());\n')
    assert read_settings("src/Api/Jobs/JobRegistration.cs", code) == {
        "reconcile-settlements schedule": "0 2 * * *", "ExpireTicketsJob schedule": "10 0 * * *"}


def test_columns_that_migrations_and_schema_files_set():
    """A column's default, type and length, keyed `TABLE.COLUMN attribute`, as Rails, Django, EF Core and SQL
    write them; what undoes a migration (EF Core's Down) is not what it sets."""
    schema = ('ActiveRecord::Schema[7.1].define(version: 2024_01_02) do\n  create_table "services" do |t|\n'
              '    t.integer "slot_minutes", default: 15, null: false\n    t.timestamps\n  end\nend\n')
    assert read_settings("db/schema.rb", schema) == {
        "define.version": "20240102", "services.slot_minutes type": "integer", "services.slot_minutes default": "15"}
    migration = "  def change\n    change_column_default :services, :slot_minutes, from: 15, to: 20\n  end\n"
    assert read_settings("db/migrate/20240211_slot_default.rb", migration) == {"services.slot_minutes default": "20"}
    django = ('    operations = [\n        migrations.AlterField(\n            model_name="sample",\n'
              '            name="barcode",\n            field=models.CharField(max_length=40, unique=True),\n'
              '        ),\n    ]\n')
    assert {k: v for k, v in read_settings("lab/migrations/0004_widen_barcode.py", django).items()
            if k.startswith("sample.")} == {"sample.barcode type": "CharField", "sample.barcode max_length": "40"}
    ef = ('        protected override void Up(MigrationBuilder migrationBuilder)\n        {\n'
          '            migrationBuilder.AlterColumn<string>(\n                name: "Reference",\n'
          '                table: "Tickets",\n                type: "nvarchar(16)",\n                maxLength: 16,\n'
          '                oldType: "nvarchar(12)");\n        }\n'
          '        protected override void Down(MigrationBuilder migrationBuilder)\n        {\n'
          '            migrationBuilder.AlterColumn<string>(name: "Reference", table: "Tickets",\n'
          '                type: "nvarchar(12)");\n'
          '        }\n')
    assert {k: v for k, v in read_settings("src/Api/Migrations/20250410_WidenReference.cs", ef).items()
            if k.startswith("Tickets.")} == {"Tickets.Reference type": "nvarchar(16)",
                                             "Tickets.Reference maxLength": "16"}
    model = ("class Sample(models.Model):\n    barcode = models.CharField(max_length=24, unique=True)\n\n"
             "    def __str__(self):\n        return self.barcode\n")
    assert {k: v for k, v in read_settings("lab/models.py", model).items() if " " in k} == {
        "sample.barcode type": "CharField", "sample.barcode max_length": "24"}
    sql = ("CREATE TABLE shipment (\n  id bigserial PRIMARY KEY,\n  tracking_number VARCHAR(35) NOT NULL,\n"
           "  CONSTRAINT uq UNIQUE (tracking_number)\n);\n")
    assert read_settings("db/V1__init.sql", sql) == {"shipment.id type": "bigserial",
                                                     "shipment.tracking_number type": "VARCHAR(35)"}
    assert read_settings("db/V4__widen.sql", "ALTER TABLE shipment ALTER COLUMN tracking_number TYPE VARCHAR(64);") == {
        "shipment.tracking_number type": "VARCHAR(64)"}
    assert read_settings("db/V5.sql", "ALTER TABLE t ALTER COLUMN c DROP NOT NULL;\nALTER TABLE t MODIFY c INT;") == {
        "t.c type": "INT"}


def test_literals_a_condition_chooses_paths_as_keys_and_bicep():
    """A JS config's `retries: process.env.CI ? 2 : 0` is a setting; a proxy's `'/api': 'http://...'` is keyed
    by its path; Bicep's `key: value` lines in braces (no commas) are keyed by the blocks they are in, a list's
    item adding no name; a number written with separators is found on its line."""
    config = ("export default defineConfig({\n  retries: process.env.CI ? 2 : 0,\n"
              "  workers: process.env.CI ? 1 : undefined,\n  server: {\n    proxy: {\n"
              "      '/api': 'http://localhost:8080',\n    },\n  },\n  webServer: {\n    timeout: 60_000,\n  },\n});\n")
    assert read_settings("playwright.config.ts", config) == {
        "retries": "process.env.CI ? 2 : 0", "workers": "process.env.CI ? 1 : undefined",
        "server.proxy./api": "http://localhost:8080", "webServer.timeout": "60000"}
    assert written_line(config, "webServer.timeout", "60000") == "timeout: 60_000"
    bicep = ("param location string = resourceGroup().location\n"
             "resource api 'Microsoft.App/containerApps@2024-03-01' = {\n  name: 'ca-ember-api'\n  properties: {\n"
             "    template: {\n      containers: [\n        {\n          image: 'ghcr.io/x/api:1.2' // pinned\n"
             "        }\n      ]\n      scale: {\n        minReplicas: 1\n      }\n    }\n  }\n}\n")
    assert read_settings("infra/main.bicep", bicep) == {
        "api.name": "ca-ember-api", "api.properties.template.containers.image": "ghcr.io/x/api:1.2",
        "api.properties.template.scale.minReplicas": "1"}


def test_a_crontab_and_assignments_inside_gradle_blocks():
    """A crontab file's jobs are keyed by their command (supercronic's, /etc/cron.d's); in a Gradle build, an
    assignment inside a plugin's block (`jib { from { image = ... } }`) is keyed by its blocks, a top-level name
    or a value read by the Gradle rules once."""
    crontab = "# m h dom mon dow command\n0 2 * * * /app/wicket standings recompute --notify\n@daily /app/prune\n"
    assert read_settings("deploy/crontab", crontab) == {
        "/app/wicket standings recompute --notify schedule": "0 2 * * *", "/app/prune schedule": "@daily"}
    assert format_of("/etc/cron.d/backup") == "crontab" and format_of("ops/nightly.cron") == "crontab"
    gradle = ('group = "com.example"\njava {\n    toolchain {\n        languageVersion = JavaLanguageVersion.of(21)\n'
              '    }\n}\njib {\n    from {\n        image = "eclipse-temurin:17-jre"\n    }\n}\n'
              'tasks.withType<Test> {\n    useJUnitPlatform()\n}\n')
    assert read_settings("build.gradle.kts", gradle) == {"group": "com.example", "languageVersion": "21",
                                                         "jib.from.image": "eclipse-temurin:17-jre"}


def test_a_terraform_list_of_objects_is_no_attribute_of_its_block():
    """ECS containers in `jsonencode([...])`: each container's `name` and `essential` are not the task
    definition's (the last container's had been read as its own); the block's attributes around the list are."""
    text = ('resource "aws_ecs_task_definition" "app" {\n  cpu = 1024\n  container_definitions = jsonencode([\n'
            '    {\n      name      = "app"\n      essential = true\n    },\n    {\n      name = "datadog-agent"\n'
            '      essential = false\n    }\n  ])\n  subnets = [\n    "subnet-1",\n  ]\n  memory = 2048\n}\n')
    assert read_settings("terraform/ecs.tf", text) == {"aws_ecs_task_definition.app.cpu": "1024",
                                                       "aws_ecs_task_definition.app.memory": "2048"}


def test_systemd_units_of_different_names_are_no_family():
    """wicket-backup.service is another unit, not a variant of wicket.service; values-prod.yaml is values.yaml's."""
    assert not same_family("deploy/wicket.service", "deploy/wicket-backup.service")
    assert not same_family("deploy/wicket.service", "deploy/wicket-backup.timer.j2")
    assert same_family("charts/api/values.yaml", "charts/api/values-prod.yaml")


def test_xcconfig_a_static_constant_and_a_settings_class_field():
    """An Xcode build configuration's `KEY = value` lines; Swift's `static let` constant; a settings class's typed
    field (pydantic's `traces_sample_rate: float = 1.0`), but not a parameter's line or a field with no value."""
    xcconfig = "// base\nIPHONEOS_DEPLOYMENT_TARGET = 16.0\nMARKETING_VERSION = 1.1.0\n"
    assert read_settings("Config/Base.xcconfig", xcconfig) == {"IPHONEOS_DEPLOYMENT_TARGET": "16.0",
                                                               "MARKETING_VERSION": "1.1.0"}
    swift = "struct Rules {\n    static let cutoffHours = 12\n    let name = \"x\"\n}\n"
    assert read_settings("Sources/App/Rules.swift", swift) == {"cutoffHours": "12"}
    settings = ("class Settings(BaseSettings):\n    traces_sample_rate: float = 1.0\n    database_url: str\n\n"
                "def connect(\n    timeout: int = 10,\n):\n    pass\n")
    assert read_settings("app/settings.py", settings) == {"traces_sample_rate": "1.0"}
