"""The units of brain/capture/tools, each with cases it must catch and look-alikes it must leave: install and
upgrade output, version commands, `sed -i`, a key's latest value, the value pairs and the request of a change."""
import pytest

from brain.capture.settings.lines import written_line
from brain.capture.tools.observe import output_line
from brain.capture.tools.commands import sed_edits, tool_version, versions_asked
from brain.capture.tools.files import apply_edits
from brain.capture.tools.latest import Known, SettingChange
from brain.capture.tools.packages import installed_versions
from brain.capture.tools.records import request, statement, value_pairs
from brain.capture.transcript import Turn


@pytest.mark.parametrize("command, output, expected", [
    ("pip install -U celery", "    Uninstalling celery-5.3.6:\n      Successfully uninstalled celery-5.3.6\n"
                              "Successfully installed celery-5.4.0 kombu-5.3.7", {"celery": ("5.3.6", "5.4.0"),
                                                                                  "kombu": (None, "5.3.7")}),
    ("mix deps.update phoenix", "Upgraded:\n  phoenix 1.7.10 => 1.7.12\n", {"phoenix": ("1.7.10", "1.7.12")}),
    ("dotnet add package Hangfire.AspNetCore --version 1.8.18",
     "info : Adding PackageReference for package 'Hangfire.AspNetCore' into project 'Ember.Api.csproj'.\n"
     "info : PackageReference for package 'Hangfire.AspNetCore' version '1.8.18' updated in file 'Ember.Api.csproj'.",
     {"hangfire.aspnetcore": (None, "1.8.18")}),
    ("bundle update rails", "Installing rails 7.1.3 (was 7.1.2)\nBundle updated!", {"rails": ("7.1.2", "7.1.3")}),
    ("cargo update -p serde", "    Updating serde v1.0.196 -> v1.0.197", {"serde": ("1.0.196", "1.0.197")}),
    ("brew upgrade node", "==> Upgrading node\n  node 20.1.0 -> 22.0.0", {"node": ("20.1.0", "22.0.0")}),
    ("apt-get install --only-upgrade nginx", "Unpacking nginx (1.24.0-2) over (1.22.1-1) ...",
     {"nginx": ("1.22.1", "1.24.0")}),  # the upstream version, not the package's revision
    ("sudo apt-get install -y nodejs", "Unpacking nodejs (20.11.1-1nodesource1) over (18.19.0-1nodesource1) ...",
     {"nodejs": ("18.19.0", "20.11.1")}),
    ("terraform init -upgrade", "- Installing hashicorp/aws v5.40.0...\n- Installed hashicorp/aws v5.40.0 (signed)",
     {"hashicorp/aws": (None, "5.40.0")}),
    ("pnpm update react", "dependencies:\n- react 18.2.0\n+ react 18.3.1\n", {"react": ("18.2.0", "18.3.1")}),
    ("poetry update celery", "  - Updating celery (5.3.6 -> 5.4.0)", {"celery": ("5.3.6", "5.4.0")}),
    ("go get github.com/go-chi/chi/v5@latest", "go: upgraded github.com/go-chi/chi/v5 v5.0.10 => v5.0.12",
     {"github.com/go-chi/chi/v5": ("5.0.10", "5.0.12")}),
    ("pip install -U sqlfluff 2>&1 | grep -E 'Found existing|Successfully installed'",  # filtered: no uninstall line
     "  Found existing installation: sqlfluff 2.3.5\nSuccessfully installed sqlfluff-3.0.7",
     {"sqlfluff": ("2.3.5", "3.0.7")}),
    ("dbt deps --upgrade", "11:03:41  Installing dbt-labs/dbt_utils\n11:03:42  Installed from version 1.3.0\n"
                           "11:03:42  Up to date!", {"dbt-utils": (None, "1.3.0")}),
    # look-alikes: a command that installs nothing, output without versions, a migration's arrow, a download
    ("pytest -q", "a 1.0 -> 1.1\n3 passed", {}),
    ("grep -i version package.json", '  "react": "18.3.1",\n+ react 18.3.1', {}),  # `-i` is no npm `i`
    ("npm install", "added 247 packages, and audited 248 packages in 5s", {}),
    ("alembic upgrade head", "Running upgrade 0042 -> 0043, add index", {}),
    ("pip install celery", "  Downloading celery-5.4.0-py3-none-any.whl (425 kB)", {}),
])
def test_installed_versions(command, output, expected):
    assert installed_versions(command, output) == expected


@pytest.mark.parametrize("command, output, expected", [
    ("node -v", "v20.11.1", ("node", "20.11.1")),
    ("python3.12 --version", "Python 3.12.1", ("python", "3.12.1")),
    ("go version", "go version go1.22.1 linux/amd64", ("go", "1.22.1")),
    ("terraform version", "Terraform v1.7.4\non linux_amd64", ("terraform", "1.7.4")),
    ("npx prisma --version", "prisma : 5.10.2", ("prisma", "5.10.2")),
    ("elixir --version", "Erlang/OTP 27 [erts-15.2.7] [source] [64-bit]\n\nElixir 1.18.4 (compiled with Erlang/OTP 27)",
     ("elixir", "1.18.4")),  # the runtime's line comes first
    ("ls -v", "a b", None),  # no version printed
    ("node -v && npm -v", "v20.11.1\n10.2.4", None),  # which line is whose: not said
    ("node script.js --version", "v1.0.0", None),  # a script's own option
    # the same asked on a server, in a container, in a pod
    ("ssh -p 2222 forge@lattice-prod php -v", "PHP 8.3.9 (cli) (built: Jul  2 2024)", ("php", "8.3.9")),
    ("docker compose exec -T db mysql --version", "mysql  Ver 8.4.2 for Linux on x86_64", ("mysql", "8.4.2")),
    ("docker compose run --rm web python --version", "Python 3.12.7", ("python", "3.12.7")),
    ("kubectl exec -n prod api-0 -- node -v", "v20.15.1", ("node", "20.15.1")),
    ("ssh web1 'cat /etc/os-release'", "VERSION=12", None),
])
def test_tool_version(command, output, expected):
    assert tool_version(command, output) == expected


@pytest.mark.parametrize("command, expected", [
    ("sed -i 's/replicas: 2/replicas: 3/' k8s/api.yaml && kubectl apply -f k8s/",
     [("k8s/api.yaml", "replicas: 2", "replicas: 3")]),
    ("sed -i.bak 's|PORT=8080|PORT=8090|' .env", [(".env", "PORT=8080", "PORT=8090")]),
    ("sed 's/a/b/' in.txt > out.txt", []),  # not in place
    ("sed -i 's/^PORT=.*/PORT=8090/' .env", []),  # a pattern, not the text it replaces
    ("sed -i 's/a/b/' *.yaml", []),  # which files: not said
])
def test_sed_edits(command, expected):
    assert sed_edits(command) == expected


def test_apply_edits_in_order_or_not_at_all():
    assert apply_edits("a: 1\nb: 1\n", [("a: 1", "a: 2", False), ("1", "3", True)]) == "a: 2\nb: 3\n"
    assert apply_edits("a: 1\n", [("a: 9", "a: 2", False)]) is None
    assert apply_edits(None, [("a", "b", False)]) is None


def test_written_line():
    assert written_line("replicaCount: 3\nautoscaling:\n  maxReplicas: 8\n", "autoscaling.maxReplicas", "8") == \
        "maxReplicas: 8"
    assert written_line('  "ReminderLeadHours": 48,\n', "Reminders.ReminderLeadHours", "48") == \
        '"ReminderLeadHours": 48'
    assert written_line("x: " + "y" * 200 + "\n", "x", "y" * 200) is None
    # a list's item and a call's argument on its own line are the value alone: that line, quotes and all
    assert written_line('services:\n  sql:\n    ports:\n      - "14330:1433"\n', "services.sql.ports",
                        "14330:1433") == '- "14330:1433"'
    assert written_line('Add<Job>(\n  "reconcile",\n  "0 5 * * *",\n  options);', "reconcile schedule",
                        "0 5 * * *") == '"0 5 * * *"'
    assert written_line("a: 4\nb: 4\n", "c", "4") is None
    # a column's attribute is found on the line naming the column
    alter = "ALTER TABLE shipment ALTER COLUMN tracking_number TYPE VARCHAR(64)"
    assert written_line(alter + ";", "shipment.tracking_number type", "VARCHAR(64)") == alter


def test_an_output_line_quoted_for_a_version():
    """The output's line naming the package and its version, as printed; of a long line, its words from the name
    to the version and the quote closing it."""
    nuget = ("info : PackageReference for package 'Hangfire.Core' version '1.8.18' updated in file "
             "'/home/dev/src/ember/src/Ember.Api/Ember.Api.csproj'.")
    assert output_line(nuget, "hangfire.core", "1.8.18") == "Hangfire.Core' version '1.8.18'"
    assert output_line("Terraform v1.7.5\non linux_amd64", "terraform", "1.7.5") == "Terraform v1.7.5"


def test_known_latest_value_same_file_then_family_then_project_wide():
    known = Known([("charts/api/values.yaml", "replicaCount", "2"), ("charts/api/values.yaml", "replicaCount", "3"),
                   ("charts/worker/values.yaml", "replicaCount", "1"), ("", "node version", "20.11.1"),
                   ("db/migrations/001_a.sql", "cron job digest", "0 3 * * *")])
    assert known.latest("charts/api/values.yaml", "replicaCount") == ("3", "charts/api/values.yaml")
    assert known.latest("charts/api/values-prod.yaml", "replicaCount") == ("3", "charts/api/values.yaml")
    assert known.latest("charts/web/values.yaml", "replicaCount") is None  # another chart's
    assert known.latest("", "node version") == ("20.11.1", "")
    assert known.latest("supabase/migrations/002_b.sql", "cron job digest") == ("0 3 * * *", "db/migrations/001_a.sql")


def test_known_completes_a_fragments_key_only_when_one_key_ends_in_it():
    known = Known([("values.yaml", "autoscaling.maxReplicas", "5"), ("values.yaml", "a.enabled", "true"),
                   ("values.yaml", "b.enabled", "false")])
    assert known.resolve("values.yaml", "maxReplicas") == "autoscaling.maxReplicas"
    assert known.resolve("values.yaml", "Replicas") == "Replicas"  # a part of a name is no key
    assert known.resolve("values.yaml", "enabled") == "enabled"  # two end in it: which one is not known


def _turn(role, text, uuid):
    return Turn(uuid=uuid, offset=0, role=role, text=text, timestamp="2026-01-01T00:00:00Z", session_id="s")


def test_value_pairs_name_the_key_beside_unspecific_values_and_keep_specific_ones_bare():
    turn = _turn("assistant", "Done: 10 login attempts per minute now.", "a")
    switch = SettingChange(turn, "values.yaml", "flags.batchDoorOpen", "false", "true", None, "values.yaml")
    assert value_pairs(switch) == [("batchDoorOpen = false", "batchDoorOpen = true")]
    image = SettingChange(turn, "k8s/api.yaml", "Deployment/api.spec.template.spec.containers[api].image",
                          "ghcr.io/acme/api:1.4.2", "ghcr.io/acme/api:1.5.0", None, "k8s/api.yaml")
    assert ("ghcr.io/acme/api:1.4.2", "ghcr.io/acme/api:1.5.0") in value_pairs(image)
    limit = SettingChange(turn, ".env", "LOGIN_LIMIT", "5", "10", None, ".env")
    assert value_pairs(limit) == [("LOGIN_LIMIT = 5", "LOGIN_LIMIT = 10"),
                                  ("5 login attempts", "10 login attempts"), ("5 attempts", "10 attempts")]
    timeout = SettingChange(turn, "config.yaml", "http.timeout", "30s", "45s", None, "config.yaml")
    assert ("30 seconds", "45 seconds") in value_pairs(timeout)
    dependency = SettingChange(turn, "package.json", "dependencies.react", "^18.2.0", "^18.3.1", None, "package.json")
    assert ("react 18.2.0", "react 18.3.1") in value_pairs(dependency)
    version = SettingChange(turn, "", "node version", "20.11.1", "22.1.0", "node -v", "")
    assert value_pairs(version)[0] == ("node 20.11.1", "node 22.1.0")


def test_the_request_is_the_persons_sentence_about_the_change():
    asked = _turn("user", "Thanks. Traffic is up: raise the ceiling to 8. Also fix the typo.", "u")
    reply = _turn("assistant", "Done.", "a")
    change = SettingChange(reply, "values.yaml", "autoscaling.maxReplicas", "5", "8", None, "values.yaml")
    assert request(change, [asked, reply]) == "Traffic is up: raise the ceiling to 8."
    unrelated = SettingChange(reply, "values.yaml", "image.tag", "a1", "b2", None, "values.yaml")
    assert request(unrelated, [asked, reply]) == ""
    assert request(change, [reply]) == ""  # no one asked in this exchange
    assert statement(change) == "autoscaling.maxReplicas = 8 (was 5) in values.yaml"
    elsewhere = change._replace(path="values-prod.yaml", line="maxReplicas: 8")
    assert statement(elsewhere) == "autoscaling.maxReplicas = 8 (was 5 in values.yaml) in values-prod.yaml " \
                                   "(`maxReplicas: 8`)"


def test_versions_asked_in_a_command_line_of_several():
    """Each version command of a longer command line, read from the one output line naming its tool; a bare
    version (`node -v`) in the middle says nothing of whose it is and is left out, one opening the output is the
    first command's and one ending it the last command's."""
    assert versions_asked("ssh forge@lattice-prod 'php -v | head -1; node -v; mysql --version'",
                          "PHP 8.3.9 (cli) (built: Jul  2 2024)\nv20.15.1\nmysql  Ver 8.4.2 for Linux on x86_64") == [
        ("php", "8.3.9"), ("mysql", "8.4.2")]
    assert versions_asked("docker compose up -d && docker compose run --rm web python --version",
                          " ✔ Container osprey-db-1  Started\nPython 3.12.7") == [("python", "3.12.7")]
    assert versions_asked("make build && ls", "Python 3.12.7") == []
    assert versions_asked("sudo apt-get install -y --only-upgrade dotnet-sdk-8.0 2>&1 | tail -3 && dotnet --version",
                          "Setting up dotnet-sdk-8.0 (8.0.408-1) ...\nSetting up dotnet-host (8.0.15-1) ...\n"
                          "8.0.408\n") == [("dotnet", "8.0.408")]
    assert versions_asked("dotnet --version && dotnet --list-sdks", "8.0.407\n8.0.407 [/usr/share/dotnet/sdk]") == [
        ("dotnet", "8.0.407")]
    assert versions_asked("node -v | tr -d v && ls", "20.11.1\npackage.json") == []
    # several lines naming the tool, all with one version: an installer's log and the tool's own line
    assert versions_asked("curl -sSfL https://x/install.sh | sh -s -- v1.59.1 && golangci-lint --version && make lint",
                          "golangci/golangci-lint info found version: 1.59.1 for v1.59.1/linux/amd64\n"
                          "golangci-lint has version 1.59.1 built with go1.22.3\ngolangci-lint run ./...") == [
        ("golangci-lint", "1.59.1")]
