"""Changes read from what the tools did (issue 34 item 1): history-like transcripts through the real capture path
(brain/capture/ingest.capture_transcript, a real store and search.db). For each format of brain/capture/settings
and for commands: an edit, a write over a file, a new file or a command's output records a typed memory "KEY =
NEW (was OLD) in PATH", derived from its turn, and the memory that stated the old value is marked replaced."""
import subprocess
from datetime import datetime, timedelta, timezone

import pytest
from harness.claude_code import fire
from harness.transcripts import (Assistant, Bash, Edit, MultiEdit, NotebookEdit, Read, Todo, User, Write,
                                 write_session)

from brain.capture.ingest import capture_transcript
from brain.index import search_index
from brain.scripts import ChunkStore


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


@pytest.fixture
def store(isolated_memory):
    return ChunkStore(str(isolated_memory))


def capture(tmp_path, store, project, sessions, files=None):
    """Each (session id, days ago, turns) written as Claude Code writes it and captured as the worker does.
    `files`: the project's files as the tools left them, kept across sessions (Claude Code's originalFile)."""
    now = datetime.now(timezone.utc).replace(microsecond=0)
    for sid, days_ago, turns in sessions:
        path = write_session(tmp_path / f"{sid}.jsonl", sid, project, now - timedelta(days=days_ago), turns,
                             files=files)
        report = capture_transcript(store, path, cwd=str(project), final=True)
        assert report.skipped_reason is None, report.skipped_reason


def change_memories(store, status="active") -> list:
    return [c for c in sorted(store.list_chunks(), key=lambda c: c.created) if c.kind == "change"
            and c.status == status]


def stated(store) -> list:
    """The live change memories' statements, without the line as written and the request, in order."""
    return sorted(c.content.split(' (asked: "', 1)[0].split(" (`", 1)[0] for c in change_memories(store))


def set_then_changed(tmp_path, store, project, path, first, edits=None, *, write=None, shared=True, ask="Do it."):
    """Session one writes `path` with `first`; session two edits it (`edits`: [(old, new)]) or writes it again
    (`write`). With `shared`, the second session's tools know the file (Claude Code's originalFile)."""
    files = {} if shared else None
    second = Write(path, write) if write is not None else \
        (Edit(path, *edits[0]) if len(edits) == 1 else MultiEdit(path, edits))
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Set it up."), Assistant("Written.", [Write(path, first)])]),
        ("s2", 2, [User(ask), Assistant("Changed.", [second])]),
    ], files=files)
    return stated(store)


def project_of(store):
    """The project id capture filed the sessions under."""
    return next(c.metadata.get("project") for c in store.list_chunks() if c.kind == "turn")


# ---------------------------------------------------------------------------------------------------- formats
def test_yaml_edit_of_a_file_the_session_did_not_see_supersedes_the_memory_of_the_old_value(tmp_path, store,
                                                                                          project):
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Set up the chart."), Assistant("Chart written.", [Write(
            "charts/api/values.yaml", "replicaCount: 2\nautoscaling:\n  enabled: false\n  maxReplicas: 5\n")])])])
    old = store.create_chunk("Decision: keep maxReplicas: 5 until the load test.", created=_days_ago(8),
                             chunk_type="decision", metadata={"kind": "decision", "project": project_of(store)}).id
    capture(tmp_path, store, project, [
        ("s2", 2, [User("Traffic is up: raise the ceiling to 8."),
                   Assistant("Done.", [Edit("charts/api/values.yaml", "  maxReplicas: 5\n", "  maxReplicas: 8\n")])])])
    (memory,) = change_memories(store)
    assert memory.content == ('autoscaling.maxReplicas = 8 (was 5) in charts/api/values.yaml (`maxReplicas: 8`) '
                              '(asked: "Traffic is up: raise the ceiling to 8.")')
    assert memory.type == "fact" and memory.links["derived_from"] and memory.links["supersedes"] == [old]
    turn = store.get_chunk(memory.links["derived_from"][0])
    assert turn.kind == "turn"
    assert {"old": "maxReplicas = 5", "new": "maxReplicas = 8"} in turn.metadata["extra"]["changes"]
    assert store.get_chunk(old).status == "superseded"


def _days_ago(days):
    return (datetime.now(timezone.utc) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_later_change_supersedes_the_earlier_change_memory_of_the_same_key(tmp_path, store, project):
    files = {}
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Chart."), Assistant("Written.", [Write("values.yaml", "replicaCount: 2\n")])]),
        ("s2", 6, [User("Three pods."),
                   Assistant("Done.", [Edit("values.yaml", "replicaCount: 2", "replicaCount: 3")])]),
        ("s3", 2, [User("Four."), Assistant("Done.", [Edit("values.yaml", "replicaCount: 3", "replicaCount: 4")])]),
    ], files=files)
    (first,) = change_memories(store, "superseded")
    (latest,) = change_memories(store)
    assert first.content.startswith("replicaCount = 3 (was 2) in values.yaml")
    assert latest.content.startswith("replicaCount = 4 (was 3) in values.yaml")
    assert first.links["superseded_by"] == [latest.id]


def test_a_new_file_setting_a_key_its_family_set_is_a_change_and_a_first_file_is_none(tmp_path, store, project):
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Chart."), Assistant("Written.", [Write("charts/api/values.yaml", "replicaCount: 3\n")])]),
        ("s2", 5, [User("The worker too."), Assistant("Written.", [Write("charts/worker/values.yaml",
                                                                          "replicaCount: 1\n")])]),
        ("s3", 2, [User("Prod values."), Assistant("Written.", [Write("charts/api/values-prod.yaml",
                                                                       "replicaCount: 4\n")])]),
    ])
    assert stated(store) == ["replicaCount = 4 (was 3 in charts/api/values.yaml) in charts/api/values-prod.yaml"]


def test_kubernetes_cronjob_schedule(tmp_path, store, project):
    manifest = ("apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: digest\nspec:\n  schedule: \"30 4 * * *\"\n"
                "  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers:\n"
                "            - name: digest\n              image: ghcr.io/acme/digest:1.2.0\n")
    assert set_then_changed(tmp_path, store, project, "k8s/digest.yaml", manifest,
                            [('  schedule: "30 4 * * *"', '  schedule: "0 5 * * *"')]) == [
        "CronJob/digest.spec.schedule = 0 5 * * * (was 30 4 * * *) in k8s/digest.yaml"]


def test_json_fragment_key_is_completed_from_the_file_known_before(tmp_path, store, project):
    app = ('{\n  "expo": {\n    "name": "shop",\n    "plugins": [\n      ["expo-build-properties", {\n'
           '        "ios": {\n          "deploymentTarget": "15.1"\n        }\n      }]\n    ]\n  }\n}\n')
    assert set_then_changed(tmp_path, store, project, "app.json", app,
                            [('"deploymentTarget": "15.1"', '"deploymentTarget": "16.0"')], shared=False) == [
        "expo.plugins.expo-build-properties.ios.deploymentTarget = 16.0 (was 15.1) in app.json"]


def test_toml_dependency_version(tmp_path, store, project):
    assert set_then_changed(tmp_path, store, project, "pyproject.toml",
                            '[project]\nname = "wren"\ndependencies = [\n  "celery==5.3.6",\n  "arq>=0.25",\n]\n',
                            [('"celery==5.3.6"', '"celery==5.4.0"')]) == [
        "project.dependencies.celery = 5.4.0 (was 5.3.6) in pyproject.toml"]


def test_ini_properties(tmp_path, store, project):
    assert set_then_changed(tmp_path, store, project, "src/main/resources/application.properties",
                            "server.port=8081\nspring.jpa.open-in-view=true\n",
                            [("spring.jpa.open-in-view=true", "spring.jpa.open-in-view=false")]) == [
        "spring.jpa.open-in-view = false (was true) in src/main/resources/application.properties"]


def test_env_file_written_over(tmp_path, store, project):
    assert set_then_changed(tmp_path, store, project, ".env", "export PORT=8080\nLOG_LEVEL=info\n",
                            write="export PORT=8090\nLOG_LEVEL=info\n") == ["PORT = 8090 (was 8080) in .env"]


def test_version_file(tmp_path, store, project):
    assert set_then_changed(tmp_path, store, project, ".nvmrc", "20.11.1\n", write="22.1.0\n") == [
        "node = 22.1.0 (was 20.11.1) in .nvmrc"]


@pytest.mark.parametrize("path, first, old, new, expected", [
    ("requirements.txt", "celery==5.3.6\narq==0.25\n", "celery==5.3.6", "celery==5.4.0",
     "celery = 5.4.0 (was 5.3.6) in requirements.txt"),
    ("Gemfile", 'source "https://rubygems.org"\ngem "rails", "~> 7.1.2"\n', '"~> 7.1.2"', '"~> 7.1.3"',
     "gem rails = ~> 7.1.3 (was ~> 7.1.2) in Gemfile"),
    ("go.mod", "module x\n\ngo 1.21\n", "go 1.21", "go 1.22", "go = 1.22 (was 1.21) in go.mod"),
    ("mix.exs", 'defp deps do\n  [{:phoenix, "~> 1.7.10"}]\nend\n', '"~> 1.7.10"', '"~> 1.7.12"',
     "deps.phoenix = ~> 1.7.12 (was ~> 1.7.10) in mix.exs"),
    ("build.gradle.kts", 'plugins {\n  id("org.springframework.boot") version "3.2.1"\n}\n', '"3.2.1"', '"3.2.2"',
     "plugin org.springframework.boot = 3.2.2 (was 3.2.1) in build.gradle.kts"),
    ("package.json", '{\n  "dependencies": {\n    "react": "^18.2.0"\n  }\n}\n', '"react": "^18.2.0"',
     '"react": "^18.3.1"', "dependencies.react = ^18.3.1 (was ^18.2.0) in package.json"),
    ("gradle/libs.versions.toml", '[versions]\nkotlin = "1.9.22"\n', 'kotlin = "1.9.22"', 'kotlin = "2.0.0"',
     "versions.kotlin = 2.0.0 (was 1.9.22) in gradle/libs.versions.toml"),
])
def test_package_manifests(tmp_path, store, project, path, first, old, new, expected):
    assert set_then_changed(tmp_path, store, project, path, first, [(old, new)]) == [expected]


def test_lockfile_read_again_after_an_install(tmp_path, store, project):
    lock = '[[package]]\nname = "celery"\nversion = "{}"\n\n[[package]]\nname = "arq"\nversion = "0.25.0"\n'
    capture(tmp_path, store, project, [
        ("s1", 9, [User("What's locked?"), Assistant("celery 5.3.6.", [Read("poetry.lock", lock.format("5.3.6"))])]),
        ("s2", 2, [User("Update celery."), Assistant("Updated.", [Bash("poetry update celery", "Writing lock file"),
                                                                 Read("poetry.lock", lock.format("5.4.0"))])]),
    ])
    assert stated(store) == ["celery = 5.4.0 (was 5.3.6) in poetry.lock"]


def test_dockerfile_base_image(tmp_path, store, project):
    assert set_then_changed(tmp_path, store, project, "Dockerfile",
                            "FROM node:20-alpine AS build\nWORKDIR /app\nENV PORT=8080\n",
                            [("FROM node:20-alpine AS build", "FROM node:22-alpine AS build")]) == [
        "FROM build = node:22-alpine (was node:20-alpine) in Dockerfile"]


def test_github_actions_workflow(tmp_path, store, project):
    workflow = ("on:\n  schedule:\n    - cron: '0 3 * * *'\njobs:\n  test:\n    runs-on: ubuntu-22.04\n"
                "    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-node@v3\n")
    assert set_then_changed(tmp_path, store, project, ".github/workflows/ci.yml", workflow,
                            [("ubuntu-22.04", "ubuntu-24.04"), ("setup-node@v3", "setup-node@v4")]) == [
        "jobs.test.runs-on = ubuntu-24.04 (was ubuntu-22.04) in .github/workflows/ci.yml",
        "jobs.test.steps[actions/setup-node].uses = actions/setup-node@v4 (was actions/setup-node@v3) "
        "in .github/workflows/ci.yml"]


def test_github_actions_schedule(tmp_path, store, project):
    workflow = "on:\n  schedule:\n    - cron: '0 3 * * *'\njobs:\n  sync:\n    runs-on: ubuntu-latest\n"
    assert set_then_changed(tmp_path, store, project, ".github/workflows/nightly.yml", workflow,
                            [("'0 3 * * *'", "'30 1 * * *'")]) == [
        "on.schedule[0].cron = 30 1 * * * (was 0 3 * * *) in .github/workflows/nightly.yml"]


def test_sql_new_migration_reschedules_a_cron_job(tmp_path, store, project):
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Send the digest nightly."), Assistant("Scheduled.", [Write(
            "supabase/migrations/20240301_digest.sql",
            "select cron.schedule('nightly-digest', '0 3 * * *', $$select send_digest()$$);\n")])]),
        ("s2", 2, [User("Have it go out half an hour earlier."), Assistant("New migration.", [Write(
            "supabase/migrations/20240402_digest_earlier.sql",
            "select cron.unschedule('nightly-digest');\n"
            "select cron.schedule('nightly-digest', '30 2 * * *', $$select send_digest()$$);\n")])]),
    ])
    assert stated(store) == ["cron job nightly-digest = 30 2 * * * (was 0 3 * * * in "
                             "supabase/migrations/20240301_digest.sql) in "
                             "supabase/migrations/20240402_digest_earlier.sql"]


def test_terraform_attribute(tmp_path, store, project):
    tf = 'resource "aws_ecs_service" "api" {\n  name          = "api"\n  desired_count = 2\n}\n'
    assert set_then_changed(tmp_path, store, project, "infra/ecs.tf", tf,
                            [("desired_count = 2", "desired_count = 3")], shared=False) == [
        "aws_ecs_service.api.desired_count = 3 (was 2) in infra/ecs.tf"]


def test_elixir_config_fragment(tmp_path, store, project):
    config = 'import Config\n\nconfig :shop, Shop.Repo,\n  username: "postgres",\n  pool_size: 10\n'
    assert set_then_changed(tmp_path, store, project, "config/prod.exs", config,
                            [("  pool_size: 10", "  pool_size: 20")], shared=False) == [
        "config :shop, Shop.Repo, pool_size = 20 (was 10) in config/prod.exs"]


def test_generic_config_lines(tmp_path, store, project):
    assert set_then_changed(tmp_path, store, project, "infra/staging.bicepparam",
                            "using './main.bicep'\nparam minReplicas = 1\n",
                            [("param minReplicas = 1", "param minReplicas = 2")]) == [
        "minReplicas = 2 (was 1) in infra/staging.bicepparam"]


def test_notebook_cell(tmp_path, store, project):
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Notebook."), Assistant("Cell set.", [NotebookEdit("train.ipynb", "params", "LR = 3e-4\n")])]),
        ("s2", 2, [User("Lower the learning rate."),
                   Assistant("Lowered.", [NotebookEdit("train.ipynb", "params", "LR = 1e-4\n")])]),
    ])
    assert stated(store) == ["LR = 1e-4 (was 3e-4) in train.ipynb"]


def test_a_notebook_written_whole_then_a_cell_edited(tmp_path, store, project):
    """A notebook created by a Write is JSON: its code cells' values are known, so the cell a NotebookEdit later
    replaces changes them."""
    import json

    notebook = json.dumps({"cells": [{"cell_type": "code", "id": "assumptions",
                                      "source": ["monthly_growth = 0.08\n", "horizon_months = 12\n"]}]})
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Capacity notebook."), Assistant("Written.", [Write("notebooks/capacity.ipynb", notebook)])]),
        ("s2", 2, [User("Growth is faster than we assumed, use 15%."), Assistant("Updated.", [
            NotebookEdit("notebooks/capacity.ipynb", "assumptions", "monthly_growth = 0.15\nhorizon_months = 12\n")])]),
    ])
    assert stated(store) == ["monthly_growth = 0.15 (was 0.08) in notebooks/capacity.ipynb"]


def test_a_constant_in_code_and_an_option_in_a_batch_script(tmp_path, store, project):
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Client."), Assistant("Written.", [
            Write("src/hubspot_client.py", "HUBSPOT_MAX_RPS = 10\n"),
            Write("scripts/train.sbatch", "#SBATCH --partition=a100\n")])]),
        ("s2", 2, [User("We hit 429s: four a second."),
                   Assistant("Lowered.", [Edit("src/hubspot_client.py", "HUBSPOT_MAX_RPS = 10", "HUBSPOT_MAX_RPS = 4"),
                                          Edit("scripts/train.sbatch", "--partition=a100", "--partition=h100")])]),
    ])
    assert stated(store) == ["--partition = h100 (was a100) in scripts/train.sbatch",
                             "HUBSPOT_MAX_RPS = 4 (was 10) in src/hubspot_client.py"]


def test_an_argument_and_a_dict_entry_changed_in_a_dag(tmp_path, store, project):
    dag = 'with DAG(\n    schedule="0 6 * * *",\n    default_args={\n        "retries": 1,\n    },\n):\n    pass\n'
    capture(tmp_path, store, project, [
        ("s1", 9, [User("The DAG."), Assistant("Written.", [Write("dags/orders.py", dag)])]),
        ("s2", 2, [User("It dies on the vacuum window."),
                   Assistant("More retries, an hour earlier.", [
                       Edit("dags/orders.py", '        "retries": 1,', '        "retries": 3,'),
                       Edit("dags/orders.py", '    schedule="0 6 * * *",', '    schedule="0 5 * * *",')])]),
    ])
    assert stated(store) == ["default_args.retries = 3 (was 1) in dags/orders.py",
                             "schedule = 0 5 * * * (was 0 6 * * *) in dags/orders.py"]


def test_a_file_replaced_in_its_folder_or_moved(tmp_path, store, project):
    """A workflow written anew and the old one removed (`git rm`) in one session, a model renamed (`git mv`): the
    folder's file changed, and the older memory naming the old file is replaced; the new file's keys continue the
    old one's (its name, the database image CI tests on; a key only one of them sets is no change); a file removed
    with nothing new beside it, or a new file of another kind, changes nothing."""
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Add CI for dbt."), Assistant("Written.", [
            Write(".github/workflows/dbt-ci.yml", "name: dbt ci\non: [pull_request]\njobs:\n  build:\n"
                                                  "    services:\n      postgres:\n        image: postgres:15\n")])])])
    old = store.create_chunk("Decision: CI runs dbt build from .github/workflows/dbt-ci.yml on every PR.",
                             created=_days_ago(8), chunk_type="decision",
                             metadata={"kind": "decision", "project": project_of(store)}).id
    capture(tmp_path, store, project, [
        ("s2", 2, [User("CI takes 11 minutes. Can we do slim CI?"), Assistant("New workflow.", [
            Write(".github/workflows/dbt-slim-ci.yml", "name: dbt slim ci\non: [pull_request]\njobs:\n  build:\n"
                                                       "    services:\n      postgres:\n        image: postgres:16\n"
                                                       "    timeout-minutes: 10\n"),
            Write("docs/ci.md", "# CI\n"),
            Bash("git rm -q .github/workflows/dbt-ci.yml && git status --short", "D  .github/workflows/dbt-ci.yml"),
            Bash("git rm -q scripts/old.sh", ""),
            Bash("git mv dbt/models/stg_shop_orders.sql dbt/models/stg_orders.sql", "")])]),
    ])
    assert stated(store) == [
        "file = .github/workflows/dbt-slim-ci.yml (was .github/workflows/dbt-ci.yml) from `git rm -q "
        ".github/workflows/dbt-ci.yml && git status --short`",
        "file = dbt/models/stg_orders.sql (was dbt/models/stg_shop_orders.sql) from `git mv "
        "dbt/models/stg_shop_orders.sql dbt/models/stg_orders.sql`",
        "jobs.build.services.postgres.image = postgres:16 (was postgres:15 in .github/workflows/dbt-ci.yml) in "
        ".github/workflows/dbt-slim-ci.yml",
        "name = dbt slim ci (was dbt ci in .github/workflows/dbt-ci.yml) in .github/workflows/dbt-slim-ci.yml"]
    assert store.get_chunk(old).status == "superseded"


# ---------------------------------------------------------------------------------------------------- commands
def test_install_output_and_version_commands(tmp_path, store, project):
    old = store.create_chunk("Decision: stay on celery 5.3.6 until arq is ready.", created=_days_ago(20),
                             chunk_type="decision", metadata={"kind": "decision"})
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Which node?"), Assistant("Node 20.", [Bash("node -v", "v20.11.1")])]),
        ("s2", 2, [User("Upgrade celery, and what node is this box on?"),
                   Assistant("Done.", [Bash("pip install -U celery",
                                            "  Attempting uninstall: celery\n    Found existing installation: celery "
                                            "5.3.6\n    Uninstalling celery-5.3.6:\n      Successfully uninstalled "
                                            "celery-5.3.6\nSuccessfully installed celery-5.4.0"),
                                       Bash("node --version", "v22.1.0")])]),
    ])
    assert stated(store) == ["celery version = 5.4.0 (was 5.3.6) from `pip install -U celery`",
                             "node version = 22.1.0 (was 20.11.1) from `node --version`"]
    assert any("(`Successfully installed celery-5.4.0`)" in c.content for c in change_memories(store))  # as seen
    assert store.get_chunk(old.id).status == "active"  # another project's memory (none given): not this one's
    mine = store.create_chunk("Decision: the worker runs celery 5.3.6.", created=_days_ago(20), chunk_type="decision",
                              metadata={"kind": "decision", "project": project_of(store)})
    capture(tmp_path, store, project, [("s3", 1, [User("Again."), Assistant("Done.", [Bash(
        "pip install -U celery", "Successfully uninstalled celery-5.3.6\nSuccessfully installed celery-5.4.1")])])])
    assert store.get_chunk(mine.id).status == "superseded"


def test_sed_in_place_on_a_config_file(tmp_path, store, project):
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Deploy."), Assistant("Written.", [Write("k8s/values.yaml", "replicas: 2\n")])]),
        ("s2", 2, [User("Scale."),
                   Assistant("Scaled.", [Bash("sed -i 's/replicas: 2/replicas: 3/' k8s/values.yaml")])]),
    ])
    assert stated(store) == ["replicas = 3 (was 2) in k8s/values.yaml"]


# ---------------------------------------------------------------------------------------------------- what is none
def test_what_records_no_change(tmp_path, store, project):
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Set up."), Assistant("Written.", [
            Write("values.yaml", "replicaCount: 2\n"), Write("src/app.py", "port = 8080\n"),
            Write(".env", "API_TOKEN=sk_live_51HqLyjWDarjtT1zdp7dc\n")])]),
        ("s2", 5, [User("Look."), Assistant("Same.", [Read("values.yaml", "replicaCount: 2\n"),
                                                     Edit("values.yaml", "# chart\n", "# the api chart\n")])]),
        ("s3", 2, [User("Code."), Assistant("Edited.", [Write("src/app.py", "port = 8090\n"),
                                                       Write(".env", "API_TOKEN=sk_live_51HqLyjWDarjtT1zdp7xx\n")])]),
    ])
    assert stated(store) == []  # a first write, a read of the same value, a variable in code, a secret


# ---------------------------------------------------------------------------------------------------- derived data
def test_settings_are_kept_on_turns_and_search_db_derives_them(tmp_path, store, project):
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Chart."),
                   Assistant("Written.", [Write("values.yaml", "replicaCount: 2\nimage:\n  tag: a1\n")])]),
        ("s2", 2, [User("Three."), Assistant("Done.", [Edit("values.yaml", "replicaCount: 2", "replicaCount: 3")])]),
    ])

    def rows():
        conn = search_index.connect(store.root, readonly=True)
        try:
            return sorted(conn.execute("SELECT path, key, value, id FROM settings").fetchall())
        finally:
            conn.close()

    before = rows()
    assert [(p, k, v) for p, k, v, _ in before] == [("values.yaml", "image.tag", "a1"),
                                                    ("values.yaml", "replicaCount", "2"),
                                                    ("values.yaml", "replicaCount", "3")]
    turn = store.get_chunk(before[-1][3])
    assert turn.kind == "turn" and turn.metadata["extra"]["settings"] == [
        {"path": "values.yaml", "key": "replicaCount", "value": "3"}]
    store.reindex()
    assert rows() == before


# ---------------------------------------------------------------------------------------------------- read back
def test_the_brief_and_recall_read_the_same_change(tmp_path, store, project, monkeypatch):
    """Through the real hooks: the next session's brief lists the change memory among the values changed lately,
    the decision it replaced is marked replaced by it, and the turn that stated the old value is marked too."""
    monkeypatch.setenv("RLM_MEM_BACKGROUND", "0")
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Chart for the api, autoscaling up to 5."), Assistant("Chart written.", [Write(
            "charts/api/values.yaml", "replicaCount: 2\nautoscaling:\n  enabled: true\n  maxReplicas: 5\n")])])])
    decided = store.create_chunk("Decision: the api autoscales to maxReplicas: 5 until the load test.",
                                 created=_days_ago(8), chunk_type="decision",
                                 metadata={"kind": "decision", "project": project_of(store)})
    capture(tmp_path, store, project, [
        ("s2", 2, [User("The load test passed: raise the ceiling to 8."),
                   Assistant("Raised.", [Edit("charts/api/values.yaml", "maxReplicas: 5", "maxReplicas: 8")])])])
    (memory,) = change_memories(store)
    base = {"session_id": "s3", "transcript_path": str(tmp_path / "s3.jsonl"), "cwd": str(project)}
    (start,) = fire("SessionStart", dict(base, source="startup"))
    lately = start.context.split("Values changed lately", 1)[1].split("\n- ", 1)[1].split("\n", 1)[0]
    assert memory.id in lately and "autoscaling.maxReplicas = 8 (was 5)" in lately
    (prompt,) = fire("UserPromptSubmit", dict(base, prompt="How many replicas can the api autoscale to?"))
    lines = prompt.context.splitlines()
    assert any(memory.id[-8:] in line and "maxReplicas = 8" in line for line in lines), prompt.context
    stale = [line for line in lines if "maxReplicas: 5" in line]
    assert stale and all("replaced" in line for line in stale), prompt.context
    assert store.get_chunk(decided.id).links["superseded_by"] == [memory.id]


def milestones(store, status=("active",)) -> list:
    return sorted(c.content for c in store.list_chunks() if c.kind == "milestone" and c.status in status)


def test_a_commit_naming_a_change_without_its_value_is_given_the_value(tmp_path, store, project):
    """"lower concurrency" says why, the edit before it what: the commit's memory holds both. A commit whose
    subject states the value, or one after no change since the previous commit, is kept as written."""
    values = "worker:\n  concurrency: 8\n  memory: 512Mi\n"
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Worker chart."), Assistant("Written.", [Write("charts/worker/values.yaml", values)])]),
        ("s2", 2, [User("RDS is running out of connections."), Assistant("Lowered and committed.", [
            Edit("charts/worker/values.yaml", "  concurrency: 8", "  concurrency: 4"),
            Bash('git commit -am "fix(worker): lower concurrency"', "[main 1a2b3c4] fix(worker): lower concurrency"),
            Edit("charts/worker/values.yaml", "  memory: 512Mi", "  memory: 1Gi"),
            Bash('git commit -am "fix(worker): memory 1Gi"', "[main 5d6e7f8] fix(worker): memory 1Gi"),
            Bash('git commit --allow-empty -m "chore: retrigger CI"', "[main 9a8b7c6] chore: retrigger CI")])]),
        ("s3", 1, [User("Pool size."), Assistant("Committed; the push failed.", [
            Edit("charts/worker/values.yaml", "  concurrency: 4", "  concurrency: 6"),
            Bash('git commit -qam "worker: six" && git push', "error: failed to push some refs", ok=False),
            Edit("charts/worker/values.yaml", "  memory: 1Gi", "  memory: 2Gi"),
            Bash('git commit -qam "chore: tidy the chart"', "[main 0a1b2c3] chore: tidy the chart")])]),
    ])
    # (a commit stating a value changed again later is history: superseded, as any memory of the old value)
    assert milestones(store, ("active", "superseded")) == [
                                 "Committed: chore: retrigger CI",
                                 "Committed: chore: tidy the chart [worker.memory = 2Gi (was 1Gi)]",
                                 "Committed: fix(worker): lower concurrency [worker.concurrency = 4 (was 8)]",
                                 "Committed: fix(worker): memory 1Gi"]


def test_commits_of_one_command_line_each_hold_the_files_staged_for_them(tmp_path, store, project):
    """`git add A && git commit && git add B && git commit`: two memories, each given the changes of its own files;
    a change no commit staged waits for the commit that takes everything."""
    files = {"app.json": '{\n  "Refunds": {\n    "WindowDays": 28\n  }\n}\n',
             "app.Production.json": '{\n  "Logging": {\n    "Level": "Information"\n  }\n}\n',
             "infra/app.yaml": "minReplicas: 1\n"}
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Config."), Assistant("Written.", [Write(path, text) for path, text in files.items()])]),
        ("s2", 2, [User("Refunds and logs."), Assistant("Done.", [
            Edit("app.json", '"WindowDays": 28', '"WindowDays": 14'),
            Edit("app.Production.json", '"Level": "Information"', '"Level": "Warning"'),
            Edit("infra/app.yaml", "minReplicas: 1", "minReplicas: 2"),
            Bash("git add app.json && git commit -m 'feat: refunds' && git add app.Production.json && "
                 "git commit -m 'chore: prod logs'", "[main 1a2b3c4] feat: refunds\n[main 5d6e7f8] chore: prod logs"),
            Bash("git commit -qam 'chore: the rest'", "[main 9a8b7c6] chore: the rest")])]),
    ], files={})
    assert milestones(store) == ["Committed: chore: prod logs [Logging.Level = Warning (was Information)]",
                                 "Committed: chore: the rest [minReplicas = 2 (was 1)]",
                                 "Committed: feat: refunds [Refunds.WindowDays = 14 (was 28)]"]


def test_a_completed_todo_that_only_repeats_a_commit_or_names_no_code_is_no_memory(tmp_path, store, project):
    """A todo done and committed in the same words says nothing the commit does not; one naming no code ("Ask
    Priya ...") was judged noise; one with a value no other memory holds stays. The session record lists all."""
    capture(tmp_path, store, project, [
        ("s1", 2, [User("Alerts to the new channel, and look at the null rate."), Assistant("Done.", [
            Todo([("Send failure alerts to #quarry-alerts", "completed"),
                  ("Null-rate check at 1% on customer_email", "completed"),
                  ("Ask Priya about the staging schema", "completed")]),
            Bash('git commit -am "feat(alerts): send failure alerts to #quarry-alerts"',
                 "[main 1a2b3c4] feat(alerts): send failure alerts to #quarry-alerts")])]),
    ])
    assert milestones(store) == ["Committed: feat(alerts): send failure alerts to #quarry-alerts",
                                 "Completed: Null-rate check at 1% on customer_email"]
    record = next(c.content for c in store.list_chunks() if c.kind == "session")
    assert "Done: Send failure alerts to #quarry-alerts; Null-rate check at 1% on customer_email; Ask Priya about " \
           "the staging schema." in record


def said_in_words(store) -> list:
    return sorted(c.content for c in store.list_chunks()
                  if c.kind in ("decision", "request", "preference", "correction") and c.status == "active")


def test_the_request_quoted_is_the_sentence_naming_the_key_then_the_new_value(tmp_path, store, project):
    """A message may state the old value in passing before it asks: the sentence naming the key is the request,
    then the one naming the new value; the old value's sentence only when nothing else asks."""
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Set it up."), Assistant("Written.", [Write("config.yaml", "port: 8080\nworkers: 3\n")])]),
        ("s2", 2, [User("The ops proxy there forwards to 8080 today. Change the default port to 9400."),
                   Assistant("Done.", [Edit("config.yaml", "port: 8080", "port: 9400")]),
                   User("Three was too stingy, 3 of them crawl. Ok."),
                   Assistant("Raised.", [Edit("config.yaml", "workers: 3", "workers: 6")])]),
    ], files={})
    asked = sorted(c.content.split(' (asked: "', 1)[-1] for c in change_memories(store))
    assert asked == ['Change the default port to 9400.")', 'Three was too stingy, 3 of them crawl.")'], asked


def test_words_a_change_of_their_exchange_holds_are_no_memory_of_their_own(tmp_path, store, project):
    """"move ours to 51821" names no subject: the change its exchange made does ("wg_listen_port = 51821 (was
    51820) in group_vars/vpn.yml"). A sentence the change quotes whole is held by the change's memory with its key
    and both values. A statement no change of its exchange holds stays a memory of its own."""
    vpn, cache = "wg_listen_port: 51820\nwg_network: 10.8.0.0/24\n", "backend: redis\nttl: 300\n"
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Set it up."), Assistant("Written.", [Write("group_vars/vpn.yml", vpn),
                                                             Write("config/cache.yaml", cache)])]),
        ("s2", 2, [User("The router holds 51820 now. Move ours to 51821."),
                   Assistant("Moved.", [Edit("group_vars/vpn.yml", "wg_listen_port: 51820", "wg_listen_port: 51821")]),
                   User("Move the session cache to Memcached."),
                   Assistant("Switched.", [Edit("config/cache.yaml", "backend: redis", "backend: memcached")]),
                   User("We decided to run the local Redis on port 6380."),
                   Assistant("Noted, nothing to change yet.")]),
    ], files={})
    assert "wg_listen_port = 51821 (was 51820) in group_vars/vpn.yml" in stated(store)
    kept = said_in_words(store)
    assert not any("51821" in text for text in kept), kept
    assert not any("Memcached" in text for text in kept) and any("6380" in text for text in kept), kept
    held = 'backend = memcached (was redis) in config/cache.yaml (`backend: memcached`) (asked: "Move the session cache'
    assert held + ' to Memcached.")' in [
        c.content for c in change_memories(store)]


def test_a_decision_in_no_word_its_change_lacks_is_no_memory_of_its_own(tmp_path, store, project):
    """The reply's "Default seed is 1234." names the key and the value, and says nothing the change's memory
    ("seed = 1234 (was 42) in conf/config.yaml", asked: "default 1234 ...") does not; "0 6 * * * (06:00 UTC, so
    7am in summer)" says when that is, and stays."""
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Set it up."), Assistant("Written.", [Write("conf/config.yaml", "seed: 42\nepochs: 3\n"),
                                                             Write("wrangler.toml", 'crons = ["0 7 * * *"]\n')])]),
        ("s2", 2, [User("default 1234, the same seeds as the paper"),
                   Assistant("Default seed is 1234.", [Edit("conf/config.yaml", "seed: 42", "seed: 1234")]),
                   User("move the digest an hour earlier"),
                   Assistant("The digest cron is now 0 6 * * * (06:00 UTC, so 7am in summer).",
                             [Edit("wrangler.toml", '"0 7 * * *"', '"0 6 * * *"')])]),
    ], files={})
    assert "seed = 1234 (was 42) in conf/config.yaml" in stated(store), stated(store)
    kept = said_in_words(store)
    assert not any("Default seed" in text for text in kept), kept
    assert any("06:00 UTC" in text for text in kept), kept


def test_a_decision_saying_only_that_a_change_was_made_is_no_memory_of_its_own(tmp_path, store, project):
    """"Changed LeadHours to 24." adds to the change's memory only that a change was made, which it is."""
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Settings."), Assistant("Written.", [Write("appsettings.json",
                                                                    '{"Reminders": {"LeadHours": 48}}\n')])]),
        ("s2", 2, [User("48h is too far out, people forget by the day itself. make it 24"),
                   Assistant("Changed LeadHours to 24.", [Edit("appsettings.json", '"LeadHours": 48',
                                                                '"LeadHours": 24')]),
                   User("argh scratch that, 24h doesnt leave the desk time to refill a slot. go 36"),
                   Assistant("Set to 36.", [Edit("appsettings.json", '"LeadHours": 24', '"LeadHours": 36')])]),
    ], files={})
    assert "Reminders.LeadHours = 36 (was 24) in appsettings.json" in stated(store), stated(store)
    assert not any("LeadHours" in text for text in said_in_words(store)), said_in_words(store)


def test_a_change_replaces_only_the_memories_of_its_own_file_or_family(tmp_path, store, project):
    """Two model configs of one folder (Hydra's conf/model/) are alternatives, not variants of one file: taking
    deberta back to 128 tokens leaves roberta's 256, changed in the same turn as deberta's first change."""
    capture(tmp_path, store, project, [
        ("s1", 20, [User("Model configs."), Assistant("Written.", [
            Write("conf/model/roberta.yaml", "name: roberta-base\nmax_length: 128\n"),
            Write("conf/model/deberta.yaml", "name: deberta-v3-base\nmax_length: 128\n")])]),
        ("s2", 9, [User("256 tokens for both."), Assistant("Done.", [
            Edit("conf/model/roberta.yaml", "max_length: 128", "max_length: 256"),
            Edit("conf/model/deberta.yaml", "max_length: 128", "max_length: 256")])]),
        ("s3", 2, [User("deberta back to 128, leave roberta alone"), Assistant("Done.", [
            Edit("conf/model/deberta.yaml", "max_length: 256", "max_length: 128")])]),
    ], files={})
    assert {"max_length = 256 (was 128) in conf/model/roberta.yaml",
            "max_length = 128 (was 256) in conf/model/deberta.yaml"} <= set(stated(store)), stated(store)


def test_a_command_printing_a_constant_it_changed_changes_that_constant(tmp_path, store, project):
    """A bump script's output "FW_VERSION 0.4.0 -> 0.4.1" names include/version.h's FW_VERSION at the value it had:
    the change of that constant (the memory of 0.4.0 is replaced), not of a package called fw-version."""
    capture(tmp_path, store, project, [
        ("s1", 20, [User("Version header."), Assistant("Written.", [
            Write("include/version.h", '#pragma once\n#define FW_VERSION "0.3.0"\n')])]),
        ("s2", 9, [User("call it 0.4.0"), Assistant("Done.", [
            Edit("include/version.h", '"0.3.0"', '"0.4.0"')])]),
        ("s3", 2, [User("release it, patch bump"), Assistant("Bumped and tagged.", [
            Bash("git add -A && ./scripts/bump_version.sh patch",
                 "FW_VERSION 0.4.0 -> 0.4.1 (tagged fw-v0.4.1)\nb3e9c40 fw: bump version to 0.4.1")])]),
    ], files={})
    live = stated(store)
    assert any(text.startswith("FW_VERSION = 0.4.1 (was 0.4.0)") for text in live), live
    assert not any(text.startswith("FW_VERSION = 0.4.0") for text in live), live
    assert any("FW_VERSION 0.4.0 -> 0.4.1" in c.content for c in change_memories(store))  # the line printed


def test_a_new_migration_changes_a_column_an_earlier_file_set(tmp_path, store, project):
    """A column is one per database: the migration a later session writes changes the default the schema file
    (another folder) set (the migration says from what), and the type an earlier migration of its folder set."""
    schema = 'create_table "services" do |t|\n  t.integer "slot_minutes", default: 15\nend\n'
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Schema."), Assistant("Written.", [
            Write("db/schema.rb", schema),
            Write("db/migrations/V1__init.sql",
                  "CREATE TABLE shipment (\n  tracking_number VARCHAR(35) NOT NULL\n);\n")])]),
        ("s2", 2, [User("Slots of 20 minutes, and room for longer tracking numbers."), Assistant("Two migrations.", [
            Write("db/migrate/20240211103355_change_default_slot_minutes.rb",
                  "class X < ActiveRecord::Migration[7.1]\n  def change\n"
                  "    change_column_default :services, :slot_minutes, from: 15, to: 20\n  end\nend\n"),
            Write("db/migrations/V4__widen_tracking_number.sql",
                  "ALTER TABLE shipment ALTER COLUMN tracking_number TYPE VARCHAR(64);\n")])]),
    ], files={})
    assert {"services.slot_minutes default = 20 (was 15) in "
            "db/migrate/20240211103355_change_default_slot_minutes.rb",
            "shipment.tracking_number type = VARCHAR(64) (was VARCHAR(35) in db/migrations/V1__init.sql) in "
            "db/migrations/V4__widen_tracking_number.sql"} <= set(stated(store)), stated(store)


def test_ecto_and_alembic_migrations_change_the_column_their_first_migration_set(tmp_path, store, project):
    """Ecto's `modify ... from:` and Alembic's `alter_column(..., existing_server_default=)`: the new migration
    changes the default the first one set; what undoes it (`def downgrade`) sets nothing."""
    alembic = ('def upgrade():\n    op.alter_column("pickups", "slot_minutes", existing_type=sa.Integer(),\n'
               '                    server_default="90", existing_server_default="120")\n\n\n'
               'def downgrade():\n    op.alter_column("pickups", "slot_minutes", server_default="120")\n')
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Tables."), Assistant("Written.", [
            Write("priv/repo/migrations/20251010_create_loans.exs",
                  "def change do\n  create table(:tool_loans) do\n    add :loan_days, :integer, default: 7\n"
                  "  end\nend\n"),
            Write("alembic/versions/0001_init.py",
                  'def upgrade():\n    op.create_table(\n        "pickups",\n'
                  '        sa.Column("slot_minutes", sa.Integer(), server_default="120"),\n    )\n')])]),
        ("s2", 2, [User("Two weeks of loan, 90 minute slots."), Assistant("Migrations.", [
            Write("priv/repo/migrations/20251017_loan_days.exs",
                  "def change do\n  alter table(:tool_loans) do\n    modify :loan_days, :integer, default: 14,"
                  " from: {:integer, default: 7}\n  end\nend\n"),
            Write("alembic/versions/0003_pickup_slot_90.py", alembic)])]),
    ], files={})
    assert {"tool_loans.loan_days default = 14 (was 7) in priv/repo/migrations/20251017_loan_days.exs",
            "pickups.slot_minutes default = 90 (was 120) in alembic/versions/0003_pickup_slot_90.py"} <= \
        set(stated(store)), stated(store)


def test_a_prisma_migration_changes_what_the_schema_set(tmp_path, store, project):
    """Prisma's migration.sql alters two columns in one statement: each clause is read; the schema's
    `@default(5)` is the value the new default replaced."""
    schema = ('datasource db {\n  provider = "postgresql"\n}\n\nmodel Delivery {\n  id  String @id\n'
              '  maxAttempts Int @default(5)\n  responseBody String? @db.Text\n}\n')
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Schema."), Assistant("Written.", [Write("prisma/schema.prisma", schema)])]),
        ("s2", 2, [User("Eight attempts, and cap the stored body."), Assistant("Migration.", [
            Write("prisma/migrations/20250201094500_limits/migration.sql",
                  'ALTER TABLE "Delivery" ALTER COLUMN "responseBody" SET DATA TYPE VARCHAR(2048),\n'
                  'ALTER COLUMN "maxAttempts" SET DEFAULT 8;\n')])]),
    ], files={})
    path = "prisma/migrations/20250201094500_limits/migration.sql"
    assert {f"Delivery.maxAttempts default = 8 (was 5 in prisma/schema.prisma) in {path}",
            f"Delivery.responseBody type = VARCHAR(2048) (was Text in prisma/schema.prisma) in {path}"} <= \
        set(stated(store)), stated(store)


def test_a_settings_module_split_into_a_package_continues_its_keys(tmp_path, store, project):
    """settings.py split into settings/base.py: the new file's SESSION_COOKIE_AGE changes the module's."""
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Settings."), Assistant("Written.", [
            Write("osprey/settings.py", "DEBUG = False\nSESSION_COOKIE_AGE = 60 * 60 * 12\n")])]),
        ("s2", 2, [User("Split the settings; sessions last 8 hours."), Assistant("Split.", [
            Write("osprey/settings/base.py", "SESSION_COOKIE_AGE = 60 * 60 * 8\n"),
            Bash("git rm -q osprey/settings.py", "")])]),
    ])
    assert any(line.startswith("SESSION_COOKIE_AGE = 60 * 60 * 8 (was 60 * 60 * 12 in osprey/settings.py) in "
                               "osprey/settings/base.py") for line in stated(store)), stated(store)


def test_lines_a_command_printed_of_a_file_are_the_values_a_rewrite_replaced(tmp_path, store, project):
    """The Dockerfile a generator wrote was only ever seen through `grep -n`: its ARG lines are the old values."""
    capture(tmp_path, store, project, [
        ("s1", 9, [User("What versions does the release image use?"), Assistant("These.", [
            Bash("grep -n '^ARG\\|^FROM' Dockerfile",
                 "3:ARG OTP_VERSION=26.2.1\n4:ARG DEBIAN_VERSION=bullseye-20240130-slim\n9:FROM ${RUNNER_IMAGE}")])]),
        ("s2", 2, [User("Rebuild it on bookworm with OTP 26.2.3."), Assistant("Rewritten.", [
            Write("Dockerfile", "ARG OTP_VERSION=26.2.3\nARG DEBIAN_VERSION=bookworm-20240311-slim\n")])]),
    ])
    assert {"ARG OTP_VERSION = 26.2.3 (was 26.2.1) in Dockerfile",
            "ARG DEBIAN_VERSION = bookworm-20240311-slim (was bullseye-20240130-slim) in Dockerfile"} <= \
        set(stated(store)), stated(store)


@pytest.mark.parametrize("command", ["grep -rn PORT .", "cat .env .env.local", "grep -n PORT .env | head -1",
                                     "cat .env > /tmp/env", "grep -c PORT .env", "sed -i s/a/b/ .env"])
def test_lines_of_several_files_or_of_none_show_no_file(command):
    from brain.capture.tools.shown import shown_file
    assert shown_file(command, "PORT=1\n") is None


def test_ef_core_fluent_configuration_and_directory_build_props(tmp_path, store, project):
    """`Entity<Reminder>().Property(r => r.MessageBody).HasMaxLength(320)` is the column's length; a new
    Directory.Build.props setting a property a project file set changes it for every project."""
    context = ("protected override void OnModelCreating(ModelBuilder b)\n{\n"
               "    b.Entity<Reminder>().Property(r => r.MessageBody).HasMaxLength(320);\n}\n")
    csproj = ("<Project Sdk=\"Microsoft.NET.Sdk.Web\">\n  <PropertyGroup>\n"
              "    <InvariantGlobalization>true</InvariantGlobalization>\n  </PropertyGroup>\n</Project>\n")
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Scaffold."), Assistant("Written.", [Write("src/Data/AppDbContext.cs", context),
                                                            Write("src/Api/Api.csproj", csproj)])]),
        ("s2", 2, [User("Longer texts, and cultures on for every project."), Assistant("Done.", [
            Edit("src/Data/AppDbContext.cs", "HasMaxLength(320)", "HasMaxLength(480)"),
            Write("Directory.Build.props",
                  csproj.replace("true", "false").replace(' Sdk="Microsoft.NET.Sdk.Web"', ""))])]),
    ], files={})
    assert {"Reminder.MessageBody maxLength = 480 (was 320) in src/Data/AppDbContext.cs",
            "InvariantGlobalization = false (was true in src/Api/Api.csproj) in Directory.Build.props"} <= \
        set(stated(store)), stated(store)


def test_a_key_a_rewrite_moved_under_new_parents_is_changed_once(tmp_path, store, project):
    """A pipeline rewritten into stages: its first job's `pool.vmImage` replaced the top-level one (once)."""
    first = "trigger:\n  - main\npool:\n  vmImage: 'windows-latest'\nsteps:\n  - script: dotnet build\n"
    staged = ("stages:\n  - stage: Build\n    jobs:\n      - job: build\n        pool:\n"
              "          vmImage: 'ubuntu-latest'\n  - stage: Deploy\n    jobs:\n      - job: swap\n"
              "        pool:\n          vmImage: 'ubuntu-latest'\n")
    assert set_then_changed(tmp_path, store, project, "azure-pipelines.yml", first, write=staged) == [
        "stages[Build].jobs[build].pool.vmImage = ubuntu-latest (was windows-latest) in azure-pipelines.yml"]


def test_one_change_seen_in_several_places_is_one_memory(tmp_path, store, project):
    """A column widened in the model and its migration, a version in .tool-versions and `elixir --version`: one
    memory each (the file's); one key changed in two files (staging's and prod's values) stays two."""
    context = "b.Entity<Reminder>().Property(r => r.MessageBody).HasMaxLength(320);\n"
    migration = ('migrationBuilder.AlterColumn<string>(\n    name: "MessageBody",\n    table: "Reminders",\n'
                 '    type: "nvarchar(480)",\n    maxLength: 480,\n    oldType: "nvarchar(320)",\n'
                 '    oldMaxLength: 320);\n')
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Scaffold."), Assistant("Written.", [
            Write("src/Data/AppDbContext.cs", context), Write(".tool-versions", "elixir 1.16.1-otp-26\n"),
            Write("charts/app/values-staging.yaml", "replicaCount: 3\n"),
            Write("charts/app/values-prod.yaml", "replicaCount: 3\n"),
            Bash("elixir --version", "Erlang/OTP 26 [erts-14.2.1]\n\nElixir 1.16.1 (compiled with Erlang/OTP 26)")])]),
        ("s2", 2, [User("Longer texts, a newer elixir, four replicas everywhere."), Assistant("Done.", [
            Edit("src/Data/AppDbContext.cs", "HasMaxLength(320)", "HasMaxLength(480)"),
            Write("src/Data/Migrations/20251031_WidenBody.cs", migration),
            Edit(".tool-versions", "elixir 1.16.1-otp-26", "elixir 1.16.2-otp-26"),
            Bash("elixir --version", "Erlang/OTP 26 [erts-14.2.3]\n\nElixir 1.16.2 (compiled with Erlang/OTP 26)"),
            Edit("charts/app/values-staging.yaml", "replicaCount: 3", "replicaCount: 4"),
            Edit("charts/app/values-prod.yaml", "replicaCount: 3", "replicaCount: 4")])]),
    ], files={})
    assert stated(store) == [
        "Reminder.MessageBody maxLength = 480 (was 320) in src/Data/AppDbContext.cs",
        "elixir = 1.16.2-otp-26 (was 1.16.1-otp-26) in .tool-versions",
        "replicaCount = 4 (was 3) in charts/app/values-prod.yaml",
        "replicaCount = 4 (was 3) in charts/app/values-staging.yaml"], stated(store)
    widened = next(c.content for c in change_memories(store) if "MessageBody" in c.content)
    assert "; also `maxLength: 480` in src/Data/Migrations/20251031_WidenBody.cs" in widened, widened
    assert "; also `Elixir 1.16.2 (compiled with Erlang/OTP 26)` from `elixir --version`" in next(
        c.content for c in change_memories(store) if "elixir" in c.content)


def test_a_dvc_config_rewritten_changes_its_default_remote(tmp_path, store, project):
    """.dvc/config is INI whose keys are indented under their sections."""
    first = "[core]\n    remote = lab\n['remote \"lab\"']\n    url = s3://bucket/lab\n"
    assert set_then_changed(tmp_path, store, project, ".dvc/config", first,
                            write=first.replace("remote = lab", "remote = osprey")) == [
        "core.remote = osprey (was lab) in .dvc/config"]


def test_a_rewritten_vercel_json_moves_a_cron(tmp_path, store, project):
    first = ('{"crons": [{"path": "/api/cron/a", "schedule": "0 8 * * *"}, '
             '{"path": "/api/cron/b", "schedule": "0 2 * * *"}]}')
    assert set_then_changed(tmp_path, store, project, "vercel.json", first, write=first.replace("0 8", "0 9")) == [
        "crons[/api/cron/a].schedule = 0 9 * * * (was 0 8 * * *) in vercel.json"]


def test_an_image_registry_is_no_secret(tmp_path, store, project):
    """A registry's host and path is a setting: the redactor took it for a token, and the change was dropped."""
    assert set_then_changed(tmp_path, store, project, "charts/app/values-prod.yaml",
                            "image:\n  registry: ghcr.io/acme\n",
                            write="image:\n  registry: 482913306715.dkr.ecr.eu-central-1.amazonaws.com/acme\n") == [
        "image.registry = 482913306715.dkr.ecr.eu-central-1.amazonaws.com/acme (was ghcr.io/acme) in "
        "charts/app/values-prod.yaml"]


def test_a_setting_changed_back_replaces_the_memory_of_its_change_when_its_key_looks_random(tmp_path, store,
                                                                                                project):
    """`Refunds.WindowDays` alone has the mixed case and letters of a token: the redactor took the key kept on the
    turn for one, so the change back to 28 found no earlier change of its key and left "= 14 (was 28)" live."""
    files = {}
    settings = '{\n  "Refunds": {\n    "WindowDays": 28\n  }\n}\n'
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Config."), Assistant("Written.", [Write("src/Api/appsettings.json", settings)])]),
        ("s2", 6, [User("Cut the refund window to 14 days."), Assistant("Done.", [Edit(
            "src/Api/appsettings.json", '"WindowDays": 28', '"WindowDays": 14')])]),
        ("s3", 2, [User("Legal says it must stay 28, put it back."), Assistant("Done.", [Edit(
            "src/Api/appsettings.json", '"WindowDays": 14', '"WindowDays": 28')])]),
    ], files=files)
    (cut,) = change_memories(store, "superseded")
    (back,) = change_memories(store)
    assert cut.content.startswith("Refunds.WindowDays = 14 (was 28) in src/Api/appsettings.json")
    assert back.content.startswith("Refunds.WindowDays = 28 (was 14) in src/Api/appsettings.json")
    assert cut.links["superseded_by"] == [back.id]


def test_a_new_header_defines_a_macro_another_header_defined(tmp_path, store, project):
    """A C macro is one per program whichever header defines it: a new header moving the broker's port out of
    config.h changes it; a Java constant edited in place is a change too."""
    config = '#pragma once\n#define MQTT_HOST "broker.lan"\n#define MQTT_PORT 8883\n#define TOPIC "gh/v1"\n'
    limits = "class Limits {\n    static final int MAX_RETRIES = 3;\n}\n"
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Firmware config."), Assistant("Written.", [
            Write("include/config.h", config), Write("src/main/java/app/Limits.java", limits)])]),
        ("s2", 2, [User("The broker moves to the farm server, and retry five times."), Assistant("Split out.", [
            Write("include/broker_config.h",
                  '#pragma once\n#define MQTT_HOST "mqtt.farm.example"\n#define MQTT_PORT 8884\n'),
            Edit("include/config.h", '#define MQTT_HOST "broker.lan"\n#define MQTT_PORT 8883\n',
                 '#include "broker_config.h"\n'),
            Edit("src/main/java/app/Limits.java", "MAX_RETRIES = 3;", "MAX_RETRIES = 5;")])]),
    ], files={})
    assert {"MQTT_HOST = mqtt.farm.example (was broker.lan in include/config.h) in include/broker_config.h",
            "MQTT_PORT = 8884 (was 8883 in include/config.h) in include/broker_config.h",
            "MAX_RETRIES = 5 (was 3) in src/main/java/app/Limits.java"} <= set(stated(store)), stated(store)


def test_a_value_said_without_its_old_one_is_left_to_the_edit_that_sets_it(tmp_path, store, project):
    """"Bump the workers to 6 replicas" names no old value; the edit setting worker.replicaCount 4 -> 6 knows it.
    Resolving one from older memories found the api's "5 replicas" and marked the api's memory replaced."""
    values = "api:\n  replicaCount: 3\nworker:\n  replicaCount: 4\n"
    capture(tmp_path, store, project, [
        ("s1", 20, [User("Prod values."), Assistant("Written.", [Write("charts/app/values-prod.yaml", values)])]),
        ("s2", 9, [User("bump prod api to 5 replicas, the big onboarding is next month"),
                   Assistant("Done.", [Edit("charts/app/values-prod.yaml", "  replicaCount: 3\n",
                                            "  replicaCount: 5\n")])]),
        ("s3", 2, [User("bump prod workers to 6 replicas, the queue doubled"),
                   Assistant("Done.", [Edit("charts/app/values-prod.yaml", "  replicaCount: 4\n",
                                            "  replicaCount: 6\n")])]),
    ], files={})
    assert {"api.replicaCount = 5 (was 3) in charts/app/values-prod.yaml",
            "worker.replicaCount = 6 (was 4) in charts/app/values-prod.yaml"} <= set(stated(store)), stated(store)


def test_a_migration_a_command_wrote_says_what_it_replaced(tmp_path, store, project):
    """`dotnet ef migrations add` writes the migration, Claude reads it: its `oldType:` is the value replaced (no
    other value of the column known); reading it again later changes nothing."""
    migration = ('    protected override void Up(MigrationBuilder migrationBuilder)\n    {\n'
                 '        migrationBuilder.AlterColumn<string>(\n            name: "Reference",\n'
                 '            table: "Tickets",\n            type: "nvarchar(16)",\n'
                 '            oldType: "nvarchar(12)");\n'
                 '    }\n    protected override void Down(MigrationBuilder migrationBuilder)\n    {\n'
                 '        migrationBuilder.AlterColumn<string>(name: "Reference", table: "Tickets",'
                 ' type: "nvarchar(12)");'
                 '\n    }\n')
    path = "src/Api/Migrations/20250412101933_WidenTicketReference.cs"
    capture(tmp_path, store, project, [
        ("s1", 3, [User("Widen the ticket reference to 16."), Assistant("Generated it.", [
            Bash("dotnet ef migrations add WidenTicketReference", "Done. To undo this, use 'ef migrations remove'"),
            Read(path, migration)])]),
        ("s2", 1, [User("Show me that migration again."), Assistant("Here.", [Read(path, migration)])]),
    ])
    assert stated(store) == [f"Tickets.Reference type = nvarchar(16) (was nvarchar(12)) in {path}"]


def test_a_workflow_replaced_in_a_later_session_with_its_job_renamed(tmp_path, store, project):
    """The file that replaced another continues its keys even when a parent was renamed (the job `test` became
    `pest`): the one key of the old file ending the same way is the one it set before."""
    old = ("jobs:\n  test:\n    steps:\n      - uses: shivammathur/setup-php@v2\n        with:\n"
           "          php-version: '8.2'\n")
    new = old.replace("  test:", "  pest:").replace("'8.2'", "'8.3'")
    capture(tmp_path, store, project, [
        ("s1", 9, [User("CI."), Assistant("Written.", [Write(".github/workflows/ci.yml", old)])]),
        ("s2", 2, [User("Move CI to tests.yml on PHP 8.3."), Assistant("Replaced.", [
            Write(".github/workflows/tests.yml", new), Bash("git rm -q .github/workflows/ci.yml", "")])]),
    ])
    assert "jobs.pest.steps[shivammathur/setup-php].with.php-version = 8.3 (was 8.2 in .github/workflows/ci.yml) in " \
           ".github/workflows/tests.yml" in stated(store)


def test_two_entries_of_one_name_in_a_settings_module_are_told_apart_by_their_dicts(tmp_path, store, project):
    """Celery beat's schedules: each entry's `schedule` is keyed by its entry's name, so moving one is a change of
    that one (the first entry's schedule had hidden it: the file's other `schedule` stood for both)."""
    settings = ('CELERY_BEAT_SCHEDULE = {\n    "nightly-digest": {\n        "schedule": crontab(hour=22, minute=0),\n'
                '    },\n    "overdue-report": {\n        "schedule": crontab(hour=6, minute=45),\n    },\n}\n')
    assert set_then_changed(tmp_path, store, project, "osprey/settings.py", settings, [
        ('        "schedule": crontab(hour=6, minute=45),', '        "schedule": crontab(hour=7, minute=15),')]) == [
        "CELERY_BEAT_SCHEDULE.overdue-report.schedule = crontab(hour=7, minute=15) (was crontab(hour=6, minute=45)) "
        "in osprey/settings.py"]



def test_a_version_asked_on_a_server_and_the_other_tools_a_version_output_names(tmp_path, store, project):
    """`php -v` over ssh is the server's PHP; `flutter --version` also says which Dart it ships."""
    def flutter(version, dart):
        return f"Flutter {version} • channel stable\nTools • Dart {dart} • DevTools 2.34.3"

    capture(tmp_path, store, project, [
        ("s1", 9, [User("Versions?"), Assistant("Here.", [
            Bash("ssh -p 2222 forge@lattice-prod php -v", "PHP 8.2.20 (cli) (built: Jun  4 2024)"),
            Bash("flutter --version", flutter("3.19.6", "3.3.4"))])]),
        ("s2", 2, [User("After the upgrades?"), Assistant("Here.", [
            Bash("ssh -p 2222 forge@lattice-prod php -v", "PHP 8.3.9 (cli) (built: Jul  2 2024)"),
            Bash("flutter --version", flutter("3.22.2", "3.4.3"))])]),
    ])
    assert stated(store) == [
        "dart version = 3.4.3 (was 3.3.4) from `flutter --version`",
        "flutter version = 3.22.2 (was 3.19.6) from `flutter --version`",
        "php version = 8.3.9 (was 8.2.20) from `ssh -p 2222 forge@lattice-prod php -v`"]


def test_a_commit_names_each_key_once_at_the_value_it_shipped(tmp_path, store, project):
    """A value set, corrected and then committed: the commit's memory gives the value it shipped, replacing the
    one before the session."""
    capture(tmp_path, store, project, [
        ("s1", 9, [User("Sentry."), Assistant("Written.", [Write("sentry.yaml", "tracesSampleRate: 1\n")])]),
        ("s2", 2, [User("Lower the sampling."), Assistant("Set, corrected, committed.", [
            Edit("sentry.yaml", "tracesSampleRate: 1", "tracesSampleRate: 0.1"),
            Edit("sentry.yaml", "tracesSampleRate: 0.1", "tracesSampleRate: 0.2"),
            Bash('git commit -qam "chore: sample less"', "[main 1a2b3c4] chore: sample less")])]),
    ])
    assert milestones(store) == ["Committed: chore: sample less [tracesSampleRate = 0.2 (was 1)]"]


def test_a_value_replacing_a_hidden_one_is_no_change():
    """What a secret's placeholder replaced is unknown: a key whose known value was redacted is no change."""
    from brain.capture.tools.latest import Known, settle
    from brain.capture.tools.observe import Observation

    class Turn:
        uuid, timestamp, text = "t", "2026-01-01T00:00:00Z", ""

    known = Known([("wg0.conf", "Peer.PublicKey", "[REDACTED:token]")])
    _, changes = settle([Observation(Turn(), "wg0.conf", "Peer.PublicKey", "abc", None, False, None)], known)
    assert changes == []
