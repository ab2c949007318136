"""History G (held out): nine weeks of Claude Code sessions on "gullwing", a data-engineering pipeline in Python.

gullwing is the analytics pipeline of Kestrel, a small B2B software company: Dagster orchestrates ingestion of deals
from HubSpot (the CRM) and campaign stats from Google Ads into BigQuery, landing files in a GCS bucket first; dbt
models sit on top (DuckDB for local development, BigQuery in prod), Terraform holds the bucket and the loader's
service account, pytest and GitHub Actions check it, and run failures are posted to Slack. Over seven sessions
values change in varied ways: the GCP project id and the BigQuery location (wrong values written by the assistant,
corrected by the user), packaging (poetry replaced by uv because of slow CI), the landing bucket (renamed after a
409 from Terraform), the HubSpot sync schedule ("make it every 4 hours") and the source freshness thresholds with
it, the HubSpot client's request rate (10 down to 4 per second after 429s), the HubSpot retry policy (changed twice),
pandas replaced by polars after an OOM kill, the Google Ads lookback window (the reason found in one session, the
new value decided in the next), fct_ad_spend turned from a view into an incremental model (only the edit shows the
old value), a column renamed (cost to cost_usd), Python 3.10 to 3.12 (forced by a datetime.UTC import in CI),
requests replaced by httpx with a longer timeout, the Slack alert channel (renamed, the user only states the new
name), the dbt-bigquery pin (visible only in uv's output), the dbt build schedule (reason in one session, change in
the next), the Google Ads partition start date, the spend anomaly threshold ("make it 60"), the bytes-billed cap
(written by the assistant, cut by the user) and fct_deals' materialization. Commands fail and are fixed, the user
states rules and preferences, and the last session ends with open work.

Written without looking at the recall code, its lexicon or the other histories (only the transcript helpers, the
header of bench/coding_memory.py and history F, for its file layout, were read), so it checks that recall generalises
to a coding history nobody tuned against.
"""
from harness.transcripts import Assistant, Bash, Edit, Read, Todo, User, Write

PROJECT = "gullwing"

SESSIONS = [
    ("gw1-bootstrap", 61, [
        User("New project, codename gullwing: the analytics pipeline for Kestrel's sales and marketing data. We pull "
             "deals from HubSpot and campaign stats from Google Ads, land them in BigQuery and model them with dbt, "
             "and Dagster orchestrates all of it. Priya started a skeleton in the repo. Get it running locally. "
             "DuckDB for local dev please, I don't want to burn BigQuery money while we iterate."),
        Assistant("I'll look at what Priya left first, install it and try to start the Dagster UI.",
                  [Read("pyproject.toml",
                        "[tool.poetry]\nname = \"gullwing\"\nversion = \"0.1.0\"\ndescription = \"Kestrel analytics "
                        "pipeline\"\npackages = [{include = \"gullwing\", from = \"src\"}]\n\n"
                        "[tool.poetry.dependencies]\npython = \"^3.10\"\ndagster = \"1.7.9\"\n"
                        "dagster-webserver = \"1.7.9\"\ndagster-dbt = \"0.23.9\"\ndagster-gcp = \"0.23.9\"\n"
                        "dagster-slack = \"0.23.9\"\ndbt-core = \"1.7.14\"\ndbt-bigquery = \"1.7.9\"\n"
                        "dbt-duckdb = \"1.7.4\"\npandas = \"^2.2\"\nrequests = \"^2.32\"\ngoogle-ads = \"^24.1\"\n\n"
                        "[tool.poetry.group.dev.dependencies]\npytest = \"^8.2\"\nresponses = \"^0.25\"\n"
                        "ruff = \"^0.4\"\n"),
                   Bash("poetry install",
                        "Installing dependencies from lock file\n\nPackage operations: 127 installs, 0 updates, "
                        "0 removals\n\n  - Installing six (1.16.0)\n  ...\n  - Installing dagster (1.7.9)\n"
                        "  - Installing dbt-core (1.7.14)\n  - Installing dbt-bigquery (1.7.9)\n\n"
                        "Installing the current project: gullwing (0.1.0)"),
                   Bash("poetry run dagster dev",
                        "Traceback (most recent call last):\n  File \".venv/bin/dagster\", line 8, in <module>\n"
                        "    sys.exit(main())\n...\ndagster._core.errors.DagsterInvariantViolationError: No "
                        "arguments given and no [tool.dagster] block in pyproject.toml found.", ok=False)]),
        Assistant("dagster dev didn't know where the code lives: there is no [tool.dagster] block and no Definitions "
                  "object yet, only empty modules under src/gullwing. I added a [tool.dagster] block pointing at "
                  "gullwing.definitions and an empty Definitions object there. The UI is up on "
                  "http://127.0.0.1:3000, with no assets yet.",
                  [Edit("pyproject.toml", "[tool.poetry.group.dev.dependencies]\n",
                        "[tool.dagster]\nmodule_name = \"gullwing.definitions\"\n\n"
                        "[tool.poetry.group.dev.dependencies]\n"),
                   Write("src/gullwing/definitions.py",
                         "from dagster import Definitions\n\ndefs = Definitions(assets=[], schedules=[], "
                         "sensors=[], resources={})\n"),
                   Bash("poetry run dagster dev",
                        "2024-10-14 10:02:41 +0200 - dagster - INFO - Launching Dagster services...\n"
                        "2024-10-14 10:02:44 +0200 - dagster-webserver - INFO - Serving dagster-webserver on "
                        "http://127.0.0.1:3000 in process 41822")]),
        User("Now dbt. dev target on DuckDB, prod target on BigQuery, profile lives in the repo."),
        Assistant("Writing dbt/profiles.yml with the two targets and checking the dev one with dbt debug.",
                  [Write("dbt/profiles.yml",
                         "gullwing:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
                         "      path: \"{{ env_var('GULLWING_DUCKDB', '../.local/gullwing.duckdb') }}\"\n"
                         "      schema: marts\n      threads: 4\n    prod:\n      type: bigquery\n"
                         "      method: service-account\n      project: gullwing-prod\n      dataset: analytics\n"
                         "      location: US\n      keyfile: \"{{ env_var('GOOGLE_APPLICATION_CREDENTIALS') }}\"\n"
                         "      threads: 8\n      job_execution_timeout_seconds: 600\n"),
                   Bash("cd dbt && poetry run dbt debug --target dev",
                        "21:14:02  Running with dbt=1.7.14\n21:14:02  dbt version: 1.7.14\n"
                        "21:14:02  python version: 3.10.14\n21:14:02  Using profiles dir at /home/dev/.dbt\n"
                        "21:14:02  Using profiles.yml file at /home/dev/.dbt/profiles.yml\n"
                        "21:14:02  Runtime Error\n  Could not find profile named 'gullwing'\n"
                        "21:14:02  Encountered an error:\nRuntime Error\n  dbt debug failed", ok=False),
                   Write(".envrc", "export DBT_PROFILES_DIR=\"$PWD/dbt\"\n"
                         "export GULLWING_DUCKDB=\"$PWD/.local/gullwing.duckdb\"\n"),
                   Bash("direnv allow && cd dbt && poetry run dbt debug --target dev",
                        "21:15:40  Running with dbt=1.7.14\n21:15:40  Using profiles dir at /home/dev/gullwing/dbt\n"
                        "21:15:40  Connection:\n21:15:40    database: gullwing\n21:15:40    schema: marts\n"
                        "21:15:40    path: /home/dev/gullwing/.local/gullwing.duckdb\n"
                        "21:15:41  Connection test: [OK connection ok]\n\n21:15:41  All checks passed!")]),
        Assistant("The first dbt debug failed with \"Could not find profile named 'gullwing'\" because dbt looks in "
                  "~/.dbt by default. The profile stays in the repo, so .envrc now exports "
                  "DBT_PROFILES_DIR=$PWD/dbt (and GULLWING_DUCKDB for the local database file); with direnv allow "
                  "the dev target connects. The prod target uses project gullwing-prod, dataset analytics, "
                  "location US."),
        User("No, the project is gullwing-dw-prod. gullwing-prod is the old GA360 export project that finance owns, "
             "don't touch it. And all our data is in the EU multi-region. dbt writes to a dataset called marts; the "
             "raw loads go to raw_hubspot and raw_google_ads."),
        Assistant("Corrected: the prod target now uses project gullwing-dw-prod, dataset marts and location EU. The "
                  "loaders will write to the raw_hubspot and raw_google_ads datasets in gullwing-dw-prod, and "
                  "nothing in the repo references the finance project.",
                  [Edit("dbt/profiles.yml",
                        "      project: gullwing-prod\n      dataset: analytics\n      location: US\n",
                        "      project: gullwing-dw-prod\n      dataset: marts\n      location: EU\n"),
                   Bash("grep -rn 'gullwing-prod' --include='*.py' --include='*.yml' --include='*.tf' . | wc -l",
                        "0")]),
        User("HubSpot deals next. The private app token is in HUBSPOT_TOKEN. Pull deals modified since the last run "
             "through the search API, land them as JSONL in GCS and load into raw_hubspot.deals. Once a day is "
             "enough for now, 06:00 UTC."),
        Assistant("The client throttles itself to 10 requests per second (HUBSPOT_MAX_RPS = 10) and passes "
                  "timeout=10 on its requests. hubspot_deals reads the watermark (the newest hs_lastmodifieddate "
                  "already loaded), pulls everything modified since, writes one JSONL file per run under "
                  "gs://gullwing-landing/raw/hubspot/deals/ and loads it into gullwing-dw-prod.raw_hubspot.deals. "
                  "It retries with RetryPolicy(max_retries=2, delay=30). The hubspot_daily schedule runs it with "
                  "cron 0 6 * * * in UTC.",
                  [Todo([("HubSpot client with throttling", "in_progress"),
                         ("hubspot_deals asset: search API -> GCS JSONL -> raw_hubspot.deals", "pending"),
                         ("Daily schedule at 06:00 UTC", "pending"),
                         ("Tests for the client", "pending")]),
                   Write("src/gullwing/hubspot_client.py",
                         "import time\n\nimport requests\n\nBASE_URL = \"https://api.hubapi.com\"\n"
                         "HUBSPOT_MAX_RPS = 10\nDEAL_PROPERTIES = [\"dealname\", \"amount\", \"dealstage\", "
                         "\"pipeline\", \"closedate\",\n                   \"hubspot_owner_id\", "
                         "\"hs_lastmodifieddate\"]\n\n\nclass HubSpotClient:\n"
                         "    def __init__(self, token: str):\n        self.session = requests.Session()\n"
                         "        self.session.headers[\"Authorization\"] = f\"Bearer {token}\"\n"
                         "        self._last = 0.0\n\n    def _throttle(self):\n"
                         "        wait = 1 / HUBSPOT_MAX_RPS - (time.monotonic() - self._last)\n"
                         "        if wait > 0:\n            time.sleep(wait)\n"
                         "        self._last = time.monotonic()\n\n    def _post(self, path, body):\n"
                         "        self._throttle()\n"
                         "        resp = self.session.post(BASE_URL + path, json=body, timeout=10)\n"
                         "        resp.raise_for_status()\n        return resp.json()\n\n"
                         "    def deals_modified_since(self, since_ms: int):\n"
                         "        body = {\"filterGroups\": [{\"filters\": [{\"propertyName\": "
                         "\"hs_lastmodifieddate\",\n"
                         "                                               \"operator\": \"GTE\", \"value\": "
                         "since_ms}]}],\n"
                         "                \"properties\": DEAL_PROPERTIES, \"limit\": 100}\n        while True:\n"
                         "            page = self._post(\"/crm/v3/objects/deals/search\", body)\n"
                         "            yield from page[\"results\"]\n"
                         "            after = page.get(\"paging\", {}).get(\"next\", {}).get(\"after\")\n"
                         "            if not after:\n                return\n            body[\"after\"] = after\n\n"
                         "    def deal_companies(self, deal_ids):\n        self._throttle()\n"
                         "        resp = self.session.post(BASE_URL + "
                         "\"/crm/v4/associations/deals/companies/batch/read\",\n"
                         "                                 json={\"inputs\": [{\"id\": i} for i in deal_ids]})\n"
                         "        resp.raise_for_status()\n        return resp.json()[\"results\"]\n"),
                   Write("src/gullwing/assets/hubspot.py",
                         "import json\nfrom datetime import datetime, timezone\n\n"
                         "from dagster import AssetExecutionContext, RetryPolicy, asset\n"
                         "from dagster_gcp import BigQueryResource, GCSResource\n\n"
                         "from gullwing.resources import HubSpotResource\n\n"
                         "LANDING = \"gs://gullwing-landing/raw/hubspot/deals\"\n"
                         "RAW_TABLE = \"gullwing-dw-prod.raw_hubspot.deals\"\n\n\n"
                         "@asset(group_name=\"hubspot\", retry_policy=RetryPolicy(max_retries=2, delay=30))\n"
                         "def hubspot_deals(context: AssetExecutionContext, hubspot: HubSpotResource,\n"
                         "                  gcs: GCSResource, bigquery: BigQueryResource):\n"
                         "    since = last_watermark(bigquery, RAW_TABLE)\n"
                         "    deals = list(hubspot.client().deals_modified_since(since))\n"
                         "    path = f\"{LANDING}/{datetime.now(timezone.utc):%Y-%m-%dT%H%M}.jsonl\"\n"
                         "    write_jsonl(gcs, path, deals)\n    load_jsonl(bigquery, path, RAW_TABLE)\n"
                         "    context.add_output_metadata({\"deals\": len(deals), \"path\": path})\n"),
                   Write("src/gullwing/schedules.py",
                         "from dagster import AssetSelection, ScheduleDefinition, define_asset_job\n\n"
                         "hubspot_job = define_asset_job(\"hubspot_job\", selection=AssetSelection.groups("
                         "\"hubspot\"))\n\nhubspot_daily = ScheduleDefinition(job=hubspot_job, "
                         "cron_schedule=\"0 6 * * *\",\n"
                         "                                   execution_timezone=\"UTC\")\n")]),
        User("Tests?"),
        Assistant("Added tests for the client with the responses library: pagination over the search API, the "
                  "watermark filter, and raising on a 4xx. The first run failed: I had registered the search "
                  "mock as GET, but the search endpoint is a POST, so responses refused the call. With the mock "
                  "fixed all 4 pass.",
                  [Write("tests/test_hubspot_client.py",
                         "import responses\n\nfrom gullwing.hubspot_client import HubSpotClient\n\n"
                         "SEARCH = \"https://api.hubapi.com/crm/v3/objects/deals/search\"\n\n\n@responses.activate\n"
                         "def test_paginates_search():\n"
                         "    responses.get(SEARCH, json={\"results\": [{\"id\": \"1\"}], \"paging\": "
                         "{\"next\": {\"after\": \"1\"}}})\n"
                         "    responses.get(SEARCH, json={\"results\": [{\"id\": \"2\"}]})\n"
                         "    assert [d[\"id\"] for d in HubSpotClient(\"t\").deals_modified_since(0)] == "
                         "[\"1\", \"2\"]\n"),
                   Bash("poetry run pytest -q",
                        "F...\n=================================== FAILURES ===================================\n"
                        "____________________________ test_paginates_search _____________________________\n"
                        "E   requests.exceptions.ConnectionError: Connection refused by Responses - the call "
                        "doesn't match any registered mock.\nE   \nE   Request: \nE   - POST "
                        "https://api.hubapi.com/crm/v3/objects/deals/search\nE   \nE   Available matches:\n"
                        "E   - GET https://api.hubapi.com/crm/v3/objects/deals/search URL does not match\n"
                        "FAILED tests/test_hubspot_client.py::test_paginates_search - requests.exceptions."
                        "ConnectionError\n1 failed, 3 passed in 0.52s", ok=False),
                   Edit("tests/test_hubspot_client.py",
                        "    responses.get(SEARCH, json={\"results\": [{\"id\": \"1\"}]",
                        "    responses.post(SEARCH, json={\"results\": [{\"id\": \"1\"}]"),
                   Edit("tests/test_hubspot_client.py",
                        "    responses.get(SEARCH, json={\"results\": [{\"id\": \"2\"}]})",
                        "    responses.post(SEARCH, json={\"results\": [{\"id\": \"2\"}]})"),
                   Bash("poetry run pytest -q", "....\n4 passed in 0.41s")]),
        User("Two rules for this repo. Never hit the real HubSpot or Google Ads APIs from tests, everything is "
             "mocked or recorded. And never run dbt against the prod target from a laptop; prod builds only run "
             "from Dagster."),
        Assistant("Both are enforced now rather than just written down. pytest-socket with --disable-socket in the "
                  "pytest options makes any test that opens a real network connection fail. For dbt, an "
                  "on-run-start hook calls a guard_prod macro that raises a compiler error when the target is prod "
                  "and GULLWING_RUNNER isn't set to dagster; only the Dagster deployment sets that variable.",
                  [Bash("poetry add --group dev pytest-socket",
                        "Using version ^0.7.0 for pytest-socket\n\nUpdating dependencies\nResolving dependencies..."
                        "\n\nPackage operations: 1 install, 0 updates, 0 removals\n\n"
                        "  - Installing pytest-socket (0.7.0)"),
                   Edit("pyproject.toml", "[tool.dagster]\n",
                        "[tool.pytest.ini_options]\naddopts = \"--disable-socket\"\n\n[tool.dagster]\n"),
                   Write("dbt/macros/guard_prod.sql",
                         "{% macro guard_prod() %}\n"
                         "  {% if target.name == 'prod' and env_var('GULLWING_RUNNER', '') != 'dagster' %}\n"
                         "    {{ exceptions.raise_compiler_error(\"prod builds only run from Dagster "
                         "(GULLWING_RUNNER=dagster)\") }}\n  {% endif %}\n{% endmacro %}\n"),
                   Edit("dbt/dbt_project.yml", "profile: gullwing\n",
                        "profile: gullwing\n\non-run-start:\n  - \"{{ guard_prod() }}\"\n"),
                   Bash("poetry run pytest -q", "....\n4 passed in 0.44s")]),
        User("Run failures should go to Slack, #data-alerts. The bot token is SLACK_BOT_TOKEN."),
        Assistant("Added a run-failure sensor from dagster-slack that posts the job name, the failed step and a link "
                  "to the run into #data-alerts, and registered the asset, the schedule and the sensor in "
                  "Definitions. A test loads the Definitions so a broken import shows up in CI.",
                  [Write("src/gullwing/sensors.py",
                         "import os\n\nfrom dagster_slack import make_slack_on_run_failure_sensor\n\n"
                         "slack_on_failure = make_slack_on_run_failure_sensor(\n    channel=\"#data-alerts\",\n"
                         "    slack_token=os.environ.get(\"SLACK_BOT_TOKEN\", \"\"),\n"
                         "    webserver_base_url=\"https://dagster.kestrel.internal\",\n)\n"),
                   Edit("src/gullwing/definitions.py",
                         "defs = Definitions(assets=[], schedules=[], sensors=[], resources={})\n",
                         "defs = Definitions(\n    assets=[hubspot_deals],\n    schedules=[hubspot_daily],\n"
                         "    sensors=[slack_on_failure],\n    resources=RESOURCES,\n)\n"),
                   Write("tests/test_definitions.py",
                         "from gullwing.definitions import defs\n\n\ndef test_definitions_load():\n"
                         "    assert defs.get_job_def(\"hubspot_job\")\n"),
                   Bash("poetry run pytest -q", ".....\n5 passed in 1.83s")]),
        User("Good enough for day one."),
        Assistant("Where we stand: Dagster runs locally, dbt has a DuckDB dev target and a BigQuery prod target "
                  "(gullwing-dw-prod, EU), the HubSpot deals asset and its 06:00 UTC schedule exist, and failures "
                  "go to #data-alerts.",
                  [Todo([("HubSpot client with throttling", "completed"),
                         ("hubspot_deals asset: search API -> GCS JSONL -> raw_hubspot.deals", "completed"),
                         ("Daily schedule at 06:00 UTC", "completed"),
                         ("Tests for the client", "completed"),
                         ("Terraform for the landing bucket and the loader service account", "pending"),
                         ("Google Ads ingestion", "pending"),
                         ("dbt staging models and marts", "pending")])]),
    ]),
    ("gw2-uv-terraform-ads", 54, [
        User("CI first. The GitHub Actions run takes 7 minutes and four of those are poetry resolving. Move us to "
             "uv."),
        Assistant("I'll try uv directly on the current pyproject first to see how far it gets.",
                  [Read(".github/workflows/ci.yml",
                        "name: ci\non: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
                        "    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-python@v5\n"
                        "        with:\n          python-version: \"3.10\"\n      - run: pipx install poetry\n"
                        "      - run: poetry install\n      - run: poetry run ruff check .\n"
                        "      - run: poetry run pytest -q\n"),
                   Bash("uv lock",
                        "error: No `project` table found in: `/home/dev/gullwing/pyproject.toml`", ok=False)]),
        Assistant("uv only reads standard PEP 621 metadata and the file is all [tool.poetry], so I converted it: a "
                  "[project] table with requires-python = \">=3.10\", the same pins (dagster==1.7.9, "
                  "dbt-bigquery==1.7.9 and so on), the dev tools under [tool.uv] dev-dependencies and hatchling as "
                  "the build backend for the src layout. uv lock resolved in 2.3 seconds against the 4 minutes poetry "
                  "needs in CI. The workflow now uses astral-sh/setup-uv with its cache, uv sync --frozen, then ruff "
                  "and pytest through uv run.",
                  [Write("pyproject.toml",
                         "[project]\nname = \"gullwing\"\nversion = \"0.1.0\"\ndescription = \"Kestrel analytics "
                         "pipeline\"\nrequires-python = \">=3.10\"\ndependencies = [\n    \"dagster==1.7.9\",\n"
                         "    \"dagster-webserver==1.7.9\",\n    \"dagster-dbt==0.23.9\",\n"
                         "    \"dagster-gcp==0.23.9\",\n    \"dagster-slack==0.23.9\",\n    \"dbt-core==1.7.14\",\n"
                         "    \"dbt-bigquery==1.7.9\",\n    \"dbt-duckdb==1.7.4\",\n    \"pandas>=2.2\",\n"
                         "    \"requests>=2.32\",\n    \"google-ads>=24.1\",\n]\n\n[build-system]\n"
                         "requires = [\"hatchling\"]\nbuild-backend = \"hatchling.build\"\n\n[tool.uv]\n"
                         "dev-dependencies = [\"pytest>=8.2\", \"pytest-socket>=0.7\", \"responses>=0.25\", "
                         "\"ruff>=0.4\"]\n\n[tool.pytest.ini_options]\naddopts = \"--disable-socket\"\n\n"
                         "[tool.ruff]\ntarget-version = \"py310\"\n\n"
                         "[tool.dagster]\nmodule_name = \"gullwing.definitions\"\n"),
                   Bash("uv lock", "Resolved 142 packages in 2.31s"),
                   Bash("uv sync", "Using CPython 3.10.14\nCreating virtual environment at: .venv\n"
                        "Resolved 142 packages in 12ms\nPrepared 9 packages in 1.02s\n"
                        "Installed 136 packages in 1.87s\n + dagster==1.7.9\n + dbt-bigquery==1.7.9\n ..."),
                   Bash("uv run pytest -q", ".....\n5 passed in 1.79s"),
                   Write(".github/workflows/ci.yml",
                         "name: ci\non: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
                         "    steps:\n      - uses: actions/checkout@v4\n      - uses: astral-sh/setup-uv@v3\n"
                         "        with:\n          enable-cache: true\n      - run: uv sync --frozen\n"
                         "      - run: uv run ruff check .\n      - run: uv run pytest -q\n"
                         "      - run: uv run dbt build --target dev --project-dir dbt --profiles-dir dbt\n")]),
        User("Delete poetry.lock. From now on always uv add / uv remove, never hand-edit the dependency lists."),
        Assistant("Deleted poetry.lock; dependencies only change through uv add and uv remove from here on.",
                  [Bash("rm poetry.lock && uv lock --check", "Resolved 142 packages in 9ms")]),
        User("Terraform next: the landing bucket and a service account for the loader. State goes in the "
             "gullwing-tfstate bucket, that one already exists."),
        Assistant("infra/main.tf with a GCS backend in gullwing-tfstate, an EU bucket for landing files and a "
                  "gullwing-loader service account with BigQuery data editor and job user roles plus object admin "
                  "on the bucket only.",
                  [Write("infra/main.tf",
                         "terraform {\n  backend \"gcs\" {\n    bucket = \"gullwing-tfstate\"\n"
                         "    prefix = \"infra\"\n  }\n}\n\nprovider \"google\" {\n  project = \"gullwing-dw-prod\"\n"
                         "  region  = \"europe-west3\"\n}\n\nresource \"google_storage_bucket\" \"landing\" {\n"
                         "  name                        = \"gullwing-landing\"\n  location                    = "
                         "\"EU\"\n  uniform_bucket_level_access = true\n}\n\n"
                         "resource \"google_service_account\" \"loader\" {\n  account_id   = \"gullwing-loader\"\n"
                         "  display_name = \"gullwing Dagster loader\"\n}\n"),
                   Bash("terraform -chdir=infra init",
                        "Initializing the backend...\n\nSuccessfully configured the backend \"gcs\"!\n...\n"
                        "Terraform has been successfully initialized!"),
                   Bash("terraform -chdir=infra apply -auto-approve",
                        "google_service_account.loader: Creating...\ngoogle_storage_bucket.landing: Creating...\n"
                        "google_service_account.loader: Creation complete after 2s\n\n"
                        "Error: googleapi: Error 409: The requested bucket name is not available. The bucket "
                        "namespace is shared by all users of the system. Please select a different name and try "
                        "again., conflict\n\n  with google_storage_bucket.landing,\n  on main.tf line 13",
                        ok=False)]),
        Assistant("Bucket names are global across all of GCS and someone else already owns gullwing-landing. I "
                  "renamed ours to gullwing-dw-prod-landing (prefixed with the project id, so it won't collide "
                  "again) and the apply went through. I also moved the landing layout to one Hive-style folder per "
                  "day, so the HubSpot files now go to gs://gullwing-dw-prod-landing/hubspot/deals/dt=YYYY-MM-DD/.",
                  [Edit("infra/main.tf", "  name                        = \"gullwing-landing\"\n",
                        "  name                        = \"gullwing-dw-prod-landing\"\n"),
                   Bash("terraform -chdir=infra apply -auto-approve",
                        "google_storage_bucket.landing: Creating...\n"
                        "google_storage_bucket.landing: Creation complete after 1s [id=gullwing-dw-prod-landing]\n"
                        "google_storage_bucket_iam_member.loader_objects: Creation complete after 5s\n"
                        "google_project_iam_member.loader_bq_editor: Creation complete after 8s\n"
                        "google_project_iam_member.loader_bq_jobs: Creation complete after 8s\n\n"
                        "Apply complete! Resources: 5 added, 0 changed, 0 destroyed."),
                   Edit("src/gullwing/assets/hubspot.py",
                        "LANDING = \"gs://gullwing-landing/raw/hubspot/deals\"\n",
                        "LANDING_BUCKET = \"gullwing-dw-prod-landing\"\nLANDING_PREFIX = \"hubspot/deals\"\n"),
                   Edit("src/gullwing/assets/hubspot.py",
                        "    path = f\"{LANDING}/{datetime.now(timezone.utc):%Y-%m-%dT%H%M}.jsonl\"\n",
                        "    now = datetime.now(timezone.utc)\n"
                        "    path = f\"gs://{LANDING_BUCKET}/{LANDING_PREFIX}/dt={now:%Y-%m-%d}/{now:%H%M}.jsonl\"\n"),
                   Bash("uv run pytest -q", ".....\n5 passed in 1.81s")]),
        User("Now Google Ads. Daily partitions starting 2024-01-01, campaign level. Each morning refetch the last "
             "3 days, yesterday's spend isn't final when we pull it."),
        Assistant("google_ads_campaign_stats is a daily-partitioned asset: one GAQL report per day at campaign level "
                  "(impressions, clicks, cost_micros, conversions, conversion value), turned into a DataFrame and "
                  "loaded into raw_google_ads.campaign_stats after deleting that day's rows. The google_ads_daily "
                  "schedule fires at 04:30 UTC and requests one run per partition for the last LOOKBACK_DAYS = 3 "
                  "days.",
                  [Write("src/gullwing/assets/google_ads.py",
                         "import pandas as pd\nfrom dagster import AssetExecutionContext, DailyPartitionsDefinition, "
                         "asset\nfrom dagster_gcp import BigQueryResource\n\n"
                         "from gullwing.resources import GoogleAdsResource\n\n"
                         "daily = DailyPartitionsDefinition(start_date=\"2024-01-01\", timezone=\"UTC\")\n\n"
                         "QUERY = \"\"\"\nSELECT segments.date, campaign.id, campaign.name, metrics.impressions, "
                         "metrics.clicks,\n       metrics.cost_micros, metrics.conversions, "
                         "metrics.conversions_value\nFROM campaign WHERE segments.date = '{day}'\n\"\"\"\n\n\n"
                         "@asset(partitions_def=daily, group_name=\"google_ads\")\n"
                         "def google_ads_campaign_stats(context: AssetExecutionContext, google_ads: "
                         "GoogleAdsResource,\n"
                         "                              bigquery: BigQueryResource):\n"
                         "    day = context.partition_key\n"
                         "    rows = [as_dict(r) for r in google_ads.search(QUERY.format(day=day))]\n"
                         "    df = pd.DataFrame(rows)\n"
                         "    with bigquery.get_client() as bq:\n"
                         "        bq.query(f\"DELETE FROM raw_google_ads.campaign_stats WHERE date = '{day}'\")"
                         ".result()\n"
                         "        bq.load_table_from_dataframe(df, \"raw_google_ads.campaign_stats\").result()\n"
                         "    context.add_output_metadata({\"rows\": len(df)})\n"),
                   Edit("src/gullwing/schedules.py",
                        "from dagster import AssetSelection, ScheduleDefinition, define_asset_job\n",
                        "from datetime import timedelta\n\nfrom dagster import AssetSelection, RunRequest, "
                        "ScheduleDefinition, define_asset_job, schedule\n\nLOOKBACK_DAYS = 3\n"
                        "google_ads_job = define_asset_job(\"google_ads_job\", "
                        "selection=AssetSelection.groups(\"google_ads\"))\n\n\n"
                        "@schedule(job=google_ads_job, cron_schedule=\"30 4 * * *\", execution_timezone=\"UTC\")\n"
                        "def google_ads_daily(context):\n"
                        "    today = context.scheduled_execution_time.date()\n"
                        "    for offset in range(1, LOOKBACK_DAYS + 1):\n"
                        "        day = (today - timedelta(days=offset)).isoformat()\n"
                        "        yield RunRequest(run_key=f\"{day}@{today}\", partition_key=day)\n"),
                   Bash("uv run pytest -q tests/test_google_ads.py tests/test_schedules.py",
                        "......\n6 passed in 2.02s")]),
        User("dbt models for both sources, and a fct_ad_spend that marketing's Looker will read."),
        Assistant("Sources with freshness checks, two staging models and two marts. Staging is materialized as views "
                  "through dbt_project.yml; fct_ad_spend and fct_deals are views for now as well.",
                  [Write("dbt/models/staging/_sources.yml",
                         "version: 2\nsources:\n  - name: raw_hubspot\n    loaded_at_field: _loaded_at\n"
                         "    freshness:\n      warn_after: {count: 26, period: hour}\n"
                         "      error_after: {count: 48, period: hour}\n    tables:\n      - name: deals\n"
                         "  - name: raw_google_ads\n    tables:\n      - name: campaign_stats\n"),
                   Write("dbt/models/staging/stg_campaign_stats.sql",
                         "select\n    date as date_day,\n    campaign_id,\n    campaign_name,\n    impressions,\n"
                         "    clicks,\n    cost_micros,\n    conversions,\n    conversions_value\n"
                         "from {{ source('raw_google_ads', 'campaign_stats') }}\n"),
                   Write("dbt/models/staging/stg_deals.sql",
                         "select\n    id as deal_id,\n    properties.dealname as deal_name,\n"
                         "    cast(properties.amount as numeric) as amount,\n    properties.dealstage as stage_id,\n"
                         "    case properties.dealstage\n        when 'appointmentscheduled' then 'discovery'\n"
                         "        when 'closedwon' then 'won'\n        when 'closedlost' then 'lost'\n"
                         "    end as stage,\n"
                         "    properties.hubspot_owner_id as owner_id,\n"
                         "    cast(properties.closedate as timestamp) as closed_at\n"
                         "from {{ source('raw_hubspot', 'deals') }}\n"
                         "qualify row_number() over (partition by id order by _loaded_at desc) = 1\n"),
                   Write("dbt/models/marts/fct_ad_spend.sql",
                         "{{ config(materialized='view') }}\n\nselect\n    date_day,\n    campaign_id,\n"
                         "    campaign_name,\n    impressions,\n    clicks,\n    cost_micros / 1e6 as cost,\n"
                         "    conversions,\n    conversions_value\nfrom {{ ref('stg_campaign_stats') }}\n"),
                   Write("dbt/models/marts/fct_deals.sql",
                         "{{ config(materialized='view') }}\n\nselect * from {{ ref('stg_deals') }}\n")]),
        User("Call them stg_google_ads__campaign_stats and stg_hubspot__deals. Staging models are always "
             "stg_<source>__<entity>, and each source gets its own _<source>__sources.yml in its folder. Also no "
             "select * in marts, list the columns."),
        Assistant("Renamed both staging models into per-source folders with their own _hubspot__sources.yml and "
                  "_google_ads__sources.yml, updated the refs, and fct_deals now lists its columns. dbt build on the "
                  "DuckDB dev target passes (run against the fixture data in the local database).",
                  [Bash("mkdir -p dbt/models/staging/hubspot dbt/models/staging/google_ads && "
                        "mv dbt/models/staging/stg_deals.sql dbt/models/staging/hubspot/stg_hubspot__deals.sql && "
                        "mv dbt/models/staging/stg_campaign_stats.sql "
                        "dbt/models/staging/google_ads/stg_google_ads__campaign_stats.sql", ""),
                   Write("dbt/models/staging/hubspot/_hubspot__sources.yml",
                         "version: 2\nsources:\n  - name: raw_hubspot\n    loaded_at_field: _loaded_at\n"
                         "    freshness:\n      warn_after: {count: 26, period: hour}\n"
                         "      error_after: {count: 48, period: hour}\n    tables:\n      - name: deals\n"),
                   Write("dbt/models/staging/google_ads/_google_ads__sources.yml",
                         "version: 2\nsources:\n  - name: raw_google_ads\n    loaded_at_field: _loaded_at\n"
                         "    freshness:\n      warn_after: {count: 30, period: hour}\n    tables:\n"
                         "      - name: campaign_stats\n"),
                   Bash("rm dbt/models/staging/_sources.yml", ""),
                   Edit("dbt/models/marts/fct_ad_spend.sql", "from {{ ref('stg_campaign_stats') }}",
                        "from {{ ref('stg_google_ads__campaign_stats') }}"),
                   Edit("dbt/models/marts/fct_deals.sql", "select * from {{ ref('stg_deals') }}\n",
                        "select\n    deal_id,\n    deal_name,\n    amount,\n    stage_id,\n    stage,\n"
                        "    owner_id,\n"
                        "    closed_at\nfrom {{ ref('stg_hubspot__deals') }}\n"),
                   Bash("uv run dbt build --target dev --project-dir dbt",
                        "08:41:12  Running with dbt=1.7.14\n08:41:13  Found 4 models, 6 tests, 2 sources, "
                        "1 macro\n08:41:13  1 of 11 START sql view model marts.stg_hubspot__deals ... [RUN]\n"
                        "...\n08:41:15  Finished running 4 view models, 6 tests in 0 hours 0 minutes and 2.41 "
                        "seconds (2.41s).\n08:41:15  Completed successfully\n"
                        "08:41:15  Done. PASS=10 WARN=0 ERROR=0 SKIP=0 TOTAL=10")]),
        User("And dbt itself needs a schedule in Dagster. Daily at 7 Berlin time, after both loads."),
        Assistant("The dbt project is loaded as Dagster assets through dagster-dbt, so the models show up in the "
                  "asset graph downstream of the raw assets. The dbt_build_daily schedule runs dbt build with cron "
                  "\"0 7 * * *\" in Europe/Berlin; the Dagster deployment sets GULLWING_RUNNER=dagster, so the prod "
                  "guard lets it through.",
                  [Write("src/gullwing/dbt.py",
                         "from pathlib import Path\n\nfrom dagster import AssetExecutionContext\n"
                         "from dagster_dbt import DbtCliResource, DbtProject, dbt_assets\n\n"
                         "dbt_project = DbtProject(project_dir=Path(__file__).parents[2] / \"dbt\")\n\n\n"
                         "@dbt_assets(manifest=dbt_project.manifest_path)\n"
                         "def gullwing_dbt(context: AssetExecutionContext, dbt: DbtCliResource):\n"
                         "    yield from dbt.cli([\"build\"], context=context).stream()\n"),
                   Edit("src/gullwing/schedules.py", "LOOKBACK_DAYS = 3\n",
                        "LOOKBACK_DAYS = 3\n\ndbt_build_job = define_asset_job(\"dbt_build_job\", "
                        "selection=AssetSelection.assets(gullwing_dbt))\n"
                        "dbt_build_daily = ScheduleDefinition(job=dbt_build_job, cron_schedule=\"0 7 * * *\",\n"
                        "                                     execution_timezone=\"Europe/Berlin\")\n"),
                   Bash("uv run pytest -q", "..........\n10 passed in 3.12s")]),
    ]),
    ("gw3-rate-limits-oom", 46, [
        User("The HubSpot sync failed last night, the Slack alert came in. Have a look."),
        Assistant("Pulling the run's error from the Dagster VM's logs.",
                  [Bash("gcloud logging read 'resource.labels.instance_id=\"gullwing-dagster\" AND severity>=ERROR' "
                        "--freshness=1d --limit=4 --format='value(textPayload)'",
                        "hubspot_deals - STEP_FAILURE - requests.exceptions.HTTPError: 429 Client Error: Too Many "
                        "Requests for url: https://api.hubapi.com/crm/v3/objects/deals/search\n"
                        "{\"status\":\"error\",\"message\":\"You have reached your secondly limit.\","
                        "\"errorType\":\"RATE_LIMIT\",\"correlationId\":\"9d3c1e0a-55b2-4f0e-b8a1-2c7e4f1b9a60\","
                        "\"policyName\":\"SECONDLY\"}\nhubspot_deals - STEP_UP_FOR_RETRY - attempt 1 of 2, "
                        "retrying in 30s\nhubspot_deals - STEP_UP_FOR_RETRY - attempt 2 of 2, retrying in 30s\n"
                        "hubspot_deals - STEP_FAILURE - requests.exceptions.HTTPError: 429 Client Error: Too Many "
                        "Requests")]),
        Assistant("HubSpot's search endpoints have their own limit of 5 requests per second per account, below the "
                  "general API limit our throttle was built around, and the marketing team's Zapier workflows use "
                  "the same account. Last night's run had 2,300 modified deals (the sales ops re-import), so it "
                  "paged long enough to hit the cap, and both retries 30 seconds later hit it again. Changes: the "
                  "client now throttles to 4 requests per second, it honours Retry-After on a 429 before raising, "
                  "and the asset retries with RetryPolicy(max_retries=5, delay=60, backoff=Backoff.EXPONENTIAL), "
                  "so a longer burst of 429s is waited out instead of failing the run.",
                  [Edit("src/gullwing/hubspot_client.py", "HUBSPOT_MAX_RPS = 10\n",
                        "HUBSPOT_MAX_RPS = 4  # search API allows 5/s per account and Zapier shares it\n"),
                   Edit("src/gullwing/hubspot_client.py",
                        "        resp = self.session.post(BASE_URL + path, json=body, timeout=10)\n"
                        "        resp.raise_for_status()\n",
                        "        resp = self.session.post(BASE_URL + path, json=body, timeout=10)\n"
                        "        if resp.status_code == 429:\n"
                        "            time.sleep(int(resp.headers.get(\"Retry-After\", \"2\")))\n"
                        "            resp = self.session.post(BASE_URL + path, json=body, timeout=10)\n"
                        "        resp.raise_for_status()\n"),
                   Edit("src/gullwing/assets/hubspot.py",
                        "from dagster import AssetExecutionContext, RetryPolicy, asset\n",
                        "from dagster import AssetExecutionContext, Backoff, RetryPolicy, asset\n"),
                   Edit("src/gullwing/assets/hubspot.py",
                        "@asset(group_name=\"hubspot\", retry_policy=RetryPolicy(max_retries=2, delay=30))\n",
                        "@asset(group_name=\"hubspot\",\n"
                        "       retry_policy=RetryPolicy(max_retries=5, delay=60, backoff=Backoff.EXPONENTIAL))\n"),
                   Bash("uv run pytest -q tests/test_hubspot_client.py",
                        "......\n6 passed in 0.58s")]),
        User("While you're in there: sales wants deals fresher than once a day. Make it every 4 hours."),
        Assistant("The HubSpot job now runs every 4 hours on the hour in UTC (00:00, 04:00, 08:00 and so on); I "
                  "renamed the schedule to hubspot_every_4h so the name doesn't lie. The source freshness on "
                  "raw_hubspot was tuned to a daily load, so I tightened it to match: it warns after 6 hours and "
                  "errors after 12.",
                  [Edit("src/gullwing/schedules.py",
                        "hubspot_daily = ScheduleDefinition(job=hubspot_job, cron_schedule=\"0 6 * * *\",\n"
                        "                                   execution_timezone=\"UTC\")\n",
                        "hubspot_every_4h = ScheduleDefinition(job=hubspot_job, cron_schedule=\"0 */4 * * *\",\n"
                        "                                      execution_timezone=\"UTC\")\n"),
                   Edit("dbt/models/staging/hubspot/_hubspot__sources.yml",
                        "      warn_after: {count: 26, period: hour}\n      error_after: {count: 48, period: hour}\n",
                        "      warn_after: {count: 6, period: hour}\n      error_after: {count: 12, period: hour}\n"),
                   Edit("src/gullwing/definitions.py", "    schedules=[hubspot_daily],\n",
                        "    schedules=[hubspot_every_4h, google_ads_daily, dbt_build_daily],\n"),
                   Bash("uv run pytest -q", "............\n12 passed in 3.30s")]),
        User("Second thing. Dana from marketing says last week's conversions in Looker are lower than what the "
             "Google Ads UI shows. Why?"),
        Assistant("Comparing last week in the warehouse against a fresh pull from the API for the same days.",
                  [Bash("bq query --use_legacy_sql=false --project_id=gullwing-dw-prod "
                        "'select date, round(sum(cost_micros)/1e6, 2) as cost, round(sum(conversions), 1) as conv "
                        "from raw_google_ads.campaign_stats where date between \"2024-10-21\" and \"2024-10-27\" "
                        "group by 1 order by 1'",
                        "+------------+---------+-------+\n|    date    |  cost   | conv  |\n"
                        "+------------+---------+-------+\n| 2024-10-21 | 1843.12 | 38.0  |\n"
                        "| 2024-10-22 | 1790.55 | 35.0  |\n| 2024-10-23 | 1902.40 | 41.0  |\n"
                        "| 2024-10-24 | 1755.08 | 39.5  |\n| 2024-10-25 | 1611.90 | 44.0  |\n"
                        "| 2024-10-26 |  902.33 | 21.0  |\n| 2024-10-27 |  880.71 | 23.0  |\n"
                        "+------------+---------+-------+"),
                   Bash("uv run python -m gullwing.tools.compare_google_ads --from 2024-10-21 --to 2024-10-27",
                        "day         cost_wh   cost_api  conv_wh  conv_api\n"
                        "2024-10-21  1843.12   1843.12   38.0     44.0\n2024-10-22  1790.55   1790.55   35.0     "
                        "41.5\n2024-10-23  1902.40   1902.40   41.0     46.0\n"
                        "2024-10-24  1755.08   1755.08   39.5     43.0\n2024-10-25  1611.90   1611.90   44.0     "
                        "47.0\n2024-10-26   902.33    902.33   21.0     22.0\n"
                        "2024-10-27   880.71    880.71   23.0     23.0\ntotal conversions: warehouse 241.5, "
                        "api 266.5 (-9.4%)")]),
        Assistant("Cost matches to the cent; only conversions are short, by 9.4% for the week. Google Ads attributes "
                  "a conversion to the day of the click, and conversions keep arriving for days after the click "
                  "(conversion lag; the account uses a 30-day click-through window). We only refetch the last 3 "
                  "days each morning, so every conversion that shows up later than that never reaches the "
                  "warehouse. The fix is a wider lookback: each extra day is one more small report per morning, "
                  "well inside the API quota. Alternatively a weekly deep refresh of 30 days on top of the daily "
                  "one."),
        User("Don't change it yet. I'll ask Dana how far back marketing actually looks at conversions, then we "
             "decide next time."),
        Assistant("Leaving the lookback as it is for now and noting it as an open decision.",
                  [Todo([("Decide the Google Ads lookback window with marketing (conversion lag)", "pending"),
                         ("HubSpot 429s: throttle, Retry-After, retry policy", "completed"),
                         ("HubSpot every 4 hours + freshness", "completed")])]),
        User("Also the 90-day keyword-level backfill I started yesterday died without an error. Run 8c1f0e27."),
        Assistant("No Python traceback usually means the process was killed from outside; checking the kernel log "
                  "on the VM.",
                  [Bash("gcloud compute ssh gullwing-dagster --zone europe-west3-b --command "
                        "'sudo dmesg -T | grep -i \"out of memory\" | tail -2'",
                        "[Mon Nov  4 02:13:51 2024] Out of memory: Killed process 28813 (dagster) "
                        "total-vm:9843112kB, anon-rss:7612044kB, file-rss:0kB, shmem-rss:0kB, UID:1000 "
                        "pgtables:15820kB oom_score_adj:0\n[Mon Nov  4 02:41:07 2024] Out of memory: Killed "
                        "process 29440 (dagster) total-vm:9712876kB, anon-rss:7598312kB, file-rss:0kB, "
                        "shmem-rss:0kB, UID:1000 pgtables:15604kB oom_score_adj:0")]),
        Assistant("The run worker was OOM-killed twice on the 8 GB VM (about 7.6 GB resident each time). One day of "
                  "the keyword report is about 1.4 million rows; pandas builds the DataFrame from a list of Python "
                  "dicts, one per row, and load_table_from_dataframe converts it to parquet on top of that, so the "
                  "peak is several copies of the day. I'd replace pandas with polars here: build the columns "
                  "directly from the API rows and write parquet from polars, which keeps one columnar copy."),
        User("Do it. And no pandas in new code from now on, polars only."),
        Assistant("Done: pandas is gone from the project and the Google Ads asset builds a polars DataFrame, writes "
                  "it to parquet and loads the parquet file. I measured one keyword-level day: peak memory went "
                  "from 7.3 GB to 1.1 GB, so the backfill fits the VM again. Tests pass; I restarted the backfill "
                  "from the first failed partition.",
                  [Bash("uv remove pandas && uv add polars",
                        "Resolved 141 packages in 1.04s\nUninstalled 1 package in 88ms\n - pandas==2.2.2\n"
                        "Resolved 142 packages in 1.12s\nPrepared 1 package in 2.31s\nInstalled 1 package in 18ms\n"
                        " + polars==1.12.0"),
                   Edit("src/gullwing/assets/google_ads.py",
                        "import pandas as pd\n",
                        "import io\n\nimport polars as pl\n"),
                   Edit("src/gullwing/assets/google_ads.py",
                        "    rows = [as_dict(r) for r in google_ads.search(QUERY.format(day=day))]\n"
                        "    df = pd.DataFrame(rows)\n",
                        "    df = pl.DataFrame(columns_from_rows(google_ads.search(QUERY.format(day=day))),\n"
                        "                      schema=CAMPAIGN_SCHEMA)\n    buf = io.BytesIO()\n"
                        "    df.write_parquet(buf)\n    buf.seek(0)\n"),
                   Edit("src/gullwing/assets/google_ads.py",
                        "        bq.load_table_from_dataframe(df, \"raw_google_ads.campaign_stats\").result()\n",
                        "        bq.load_table_from_file(buf, \"raw_google_ads.campaign_stats\",\n"
                        "                                job_config=PARQUET_APPEND).result()\n"),
                   Bash("/usr/bin/time -v uv run python -m gullwing.tools.profile_google_ads --day 2024-06-03 "
                        "--level keyword 2>&1 | grep 'Maximum resident'",
                        "\tMaximum resident set size (kbytes): 1184320"),
                   Bash("uv run pytest -q", "............\n12 passed in 3.01s")]),
    ]),
    ("gw4-lookback-incremental-py312", 38, [
        User("Dana got back to me. Marketing reports conversions on a 14-day view and accepts that anything "
             "attributed later than that is lost. So 14 days."),
        Assistant("Set. Every morning the google_ads_daily schedule now requests the last 14 daily partitions "
                  "instead of the last 3; that is 14 small campaign-level reports, far below the daily operations "
                  "quota. The schedule test checks the run requests for a fixed tick.",
                  [Edit("src/gullwing/schedules.py", "LOOKBACK_DAYS = 3\n", "LOOKBACK_DAYS = 14\n"),
                   Edit("tests/test_schedules.py",
                        "    assert len(requests) == 3\n",
                        "    assert len(requests) == 14\n"
                        "    assert requests[-1].partition_key == \"2024-10-28\"\n"),
                   Bash("uv run pytest -q tests/test_schedules.py", "...\n3 passed in 0.92s")]),
        User("fct_ad_spend. Looker scans the whole thing every time someone opens the marketing dashboard, "
             "last month that was 3.1 TB billed. Make it incremental, merge on day and campaign."),
        Assistant("Changing the model's config and adding an incremental filter that reprocesses 16 days (the 14-day "
                  "lookback plus 2 days of slack), then building it on the dev target.",
                  [Edit("dbt/models/marts/fct_ad_spend.sql",
                        "{{ config(materialized='view') }}\n",
                        "{{ config(\n    materialized='incremental',\n    incremental_strategy='merge',\n"
                        "    unique_key=['date_day', 'campaign_id'],\n"
                        "    partition_by={'field': 'date_day', 'data_type': 'date'},\n"
                        "    on_schema_change='append_new_columns'\n) }}\n"),
                   Edit("dbt/models/marts/fct_ad_spend.sql",
                        "from {{ ref('stg_google_ads__campaign_stats') }}\n",
                        "from {{ ref('stg_google_ads__campaign_stats') }}\n{% if is_incremental() %}\n"
                        "where date_day >= {{ dbt.dateadd('day', -16, 'current_date') }}\n{% endif %}\n"),
                   Bash("uv run dbt build --target dev --project-dir dbt -s fct_ad_spend",
                        "09:12:40  Running with dbt=1.7.14\n09:12:41  Found 4 models, 7 tests, 2 sources\n"
                        "09:12:41  1 of 2 START sql incremental model marts.fct_ad_spend ... [RUN]\n"
                        "09:12:41  1 of 2 ERROR creating sql incremental model marts.fct_ad_spend ... [ERROR in "
                        "0.05s]\n\nCompilation Error in model fct_ad_spend (models/marts/fct_ad_spend.sql)\n"
                        "  Invalid incremental strategy provided: merge\n"
                        "    Expected one of: 'append', 'delete+insert'\n\n"
                        "09:12:41  Done. PASS=0 WARN=0 ERROR=1 SKIP=1 TOTAL=2", ok=False)]),
        Assistant("dbt-duckdb 1.7 doesn't have a merge strategy, only append and delete+insert, so the dev target "
                  "rejected the config. The strategy now depends on the adapter: merge on BigQuery, delete+insert "
                  "on DuckDB, both keyed on date_day and campaign_id. First build creates the table, the second "
                  "run only touches the last 16 days.",
                  [Edit("dbt/models/marts/fct_ad_spend.sql",
                        "    incremental_strategy='merge',\n",
                        "    incremental_strategy=('merge' if target.type == 'bigquery' else 'delete+insert'),\n"),
                   Bash("uv run dbt build --target dev --project-dir dbt -s fct_ad_spend && "
                        "uv run dbt build --target dev --project-dir dbt -s fct_ad_spend",
                        "09:15:02  1 of 2 OK created sql incremental model marts.fct_ad_spend .. [OK in 0.21s]\n"
                        "09:15:02  Done. PASS=2 WARN=0 ERROR=0 SKIP=0 TOTAL=2\n"
                        "09:15:06  1 of 2 OK created sql incremental model marts.fct_ad_spend .. [OK in 0.09s]\n"
                        "09:15:06  Done. PASS=2 WARN=0 ERROR=0 SKIP=0 TOTAL=2")]),
        User("And rename cost to cost_usd in fct_ad_spend. The Looker people keep asking which currency it is; "
             "the Ads account bills in USD."),
        Assistant("Renamed in the model and in its schema file. Because fct_ad_spend is incremental now, the prod "
                  "table needs one full refresh for the renamed column; per your rule that won't happen from here. "
                  "I added a dbt_full_refresh job in Dagster that you can launch for fct_ad_spend. Dana's Looker "
                  "view has to switch to cost_usd at the same time.",
                  [Edit("dbt/models/marts/fct_ad_spend.sql", "    cost_micros / 1e6 as cost,\n",
                        "    cost_micros / 1e6 as cost_usd,\n"),
                   Edit("dbt/models/marts/_marts.yml",
                        "      - name: cost\n        description: Spend for the day.\n",
                        "      - name: cost_usd\n        description: Spend for the day in USD (the Ads account "
                        "currency).\n"),
                   Write("src/gullwing/jobs.py",
                         "from dagster import Config, job, op\n\n\nclass FullRefreshConfig(Config):\n"
                         "    select: str\n\n\n@op\ndef dbt_full_refresh_op(config: FullRefreshConfig, dbt):\n"
                         "    dbt.cli([\"build\", \"--full-refresh\", \"--select\", config.select]).wait()\n\n\n"
                         "@job\ndef dbt_full_refresh():\n    dbt_full_refresh_op()\n"),
                   Bash("uv run dbt build --target dev --project-dir dbt -s fct_ad_spend --full-refresh",
                        "09:21:33  Done. PASS=2 WARN=0 ERROR=0 SKIP=0 TOTAL=2")]),
        User("CI has been red on main since this morning, check it."),
        Assistant("Priya's commit from yesterday changed hubspot.py to `from datetime import UTC`. datetime.UTC only "
                  "exists from Python 3.11, and CI runs 3.10 because of .python-version and requires-python >=3.10; "
                  "her machine has 3.12, so it passed locally. Either we switch that line back to timezone.utc or we "
                  "raise the Python version.",
                  [Bash("gh run view --log-failed",
                        "test\tRun uv run pytest -q\tImportError while loading conftest "
                        "'/home/runner/work/gullwing/gullwing/tests/conftest.py'.\n"
                        "test\tRun uv run pytest -q\tsrc/gullwing/assets/hubspot.py:2: in <module>\n"
                        "test\tRun uv run pytest -q\t    from datetime import UTC, datetime\n"
                        "test\tRun uv run pytest -q\tE   ImportError: cannot import name 'UTC' from 'datetime' "
                        "(/opt/hostedtoolcache/Python/3.10.14/x64/lib/python3.10/datetime.py)\n"
                        "##[error]Process completed with exit code 4.", ok=False)]),
        User("Don't touch her code, we wanted off 3.10 anyway. Go to 3.12 everywhere: CI, the Docker image on the "
             "Dagster VM, local."),
        Assistant("Bumping requires-python first, then the pinned interpreter and the image.",
                  [Edit("pyproject.toml", "requires-python = \">=3.10\"\n", "requires-python = \">=3.12\"\n"),
                   Bash("uv sync",
                        "error: The Python request from `.python-version` resolved to Python 3.10.14, which is "
                        "incompatible with the project's Python requirement: `>=3.12`. Use `uv python pin` to "
                        "update the `.python-version` file to a compatible version.", ok=False)]),
        Assistant("uv still picked 3.10 from .python-version. Pinned 3.12 and installed it through uv, which "
                  "recreated the virtualenv on CPython 3.12.7. The Dockerfile for the Dagster VM is now based on "
                  "python:3.12-slim, ruff targets py312, and setup-uv in CI follows .python-version. Tests pass "
                  "and the CI run on the branch is green.",
                  [Bash("uv python pin 3.12 && uv python install 3.12",
                        "Updated `.python-version` from `3.10` -> `3.12`\nInstalled Python 3.12.7 in 2.84s\n"
                        " + cpython-3.12.7-linux-x86_64-gnu"),
                   Bash("uv sync",
                        "Using CPython 3.12.7\nRemoved virtual environment at: .venv\n"
                        "Creating virtual environment at: .venv\nResolved 142 packages in 1.41s\n"
                        "Installed 136 packages in 3.02s"),
                   Edit("Dockerfile", "FROM python:3.10-slim\n", "FROM python:3.12-slim\n"),
                   Edit("pyproject.toml", "[tool.ruff]\ntarget-version = \"py310\"\n",
                        "[tool.ruff]\ntarget-version = \"py312\"\n"),
                   Bash("uv run pytest -q", "...............\n15 passed in 3.44s"),
                   Bash("gh run watch --exit-status", "✓ main ci · 11520348831\nTriggered via push about 2 "
                        "minutes ago\n\nJOBS\n✓ test in 1m52s")]),
        User("One more: marketing wants a warning when daily spend jumps compared to the trailing week."),
        Assistant("Wrote a generic test, spend_within_pct_of_trailing_avg, that fails for any day whose total spend "
                  "differs from the average of the 7 days before it by more than max_pct_change percent, and put it "
                  "on fct_ad_spend with max_pct_change: 40. The dev data passes.",
                  [Write("dbt/tests/generic/spend_within_pct_of_trailing_avg.sql",
                         "{% test spend_within_pct_of_trailing_avg(model, column_name, max_pct_change) %}\n"
                         "with daily as (\n    select date_day, sum({{ column_name }}) as spend\n"
                         "    from {{ model }} group by 1\n), scored as (\n    select date_day, spend,\n"
                         "           avg(spend) over (order by date_day rows between 7 preceding and 1 preceding)"
                         " as trailing\n    from daily\n)\nselect * from scored\n"
                         "where trailing > 0 and abs(spend - trailing) / trailing * 100 > {{ max_pct_change }}\n"
                         "{% endtest %}\n"),
                   Edit("dbt/models/marts/_marts.yml",
                        "      - name: cost_usd\n",
                        "      - name: cost_usd\n        tests:\n          - spend_within_pct_of_trailing_avg:\n"
                        "              max_pct_change: 40\n"),
                   Bash("uv run dbt test --target dev --project-dir dbt -s fct_ad_spend",
                        "09:58:20  1 of 3 PASS spend_within_pct_of_trailing_avg_fct_ad_spend_cost_usd__40 [PASS "
                        "in 0.07s]\n09:58:20  Done. PASS=3 WARN=0 ERROR=0 SKIP=0 TOTAL=3")]),
    ]),
    ("gw5-alerts-httpx-dbt18", 27, [
        User("No Slack alerts for two days, but the HubSpot run on Tuesday night failed. The channel is "
             "#gullwing-alerts now, ops reorganised Slack."),
        Assistant("Slack answered channel_not_found for every alert since the rename, and the sensor only logs that. "
                  "It posts to #gullwing-alerts now; a test message went through. The bot had to be invited to the "
                  "channel again, which ops had already done.",
                  [Bash("gcloud logging read 'textPayload:\"slack_on_failure\"' --freshness=3d --limit=2 "
                        "--format='value(textPayload)'",
                        "slack_on_failure - ERROR - slack_sdk.errors.SlackApiError: The request to the Slack API "
                        "failed. (url: https://www.slack.com/api/chat.postMessage)\nThe server responded with: "
                        "{'ok': False, 'error': 'channel_not_found'}"),
                   Edit("src/gullwing/sensors.py", "    channel=\"#data-alerts\",\n",
                        "    channel=\"#gullwing-alerts\",\n"),
                   Bash("uv run python -c \"from slack_sdk import WebClient; import os; "
                        "print(WebClient(os.environ['SLACK_BOT_TOKEN']).chat_postMessage(channel='#gullwing-alerts',"
                        " text='gullwing alert test')['ok'])\"", "True")]),
        User("What failed on Tuesday?"),
        Assistant("The run hung for 5 hours in deal_companies and was cancelled by run monitoring. HubSpot had an "
                  "incident that night, and deal_companies calls session.post without any timeout; requests has no "
                  "default timeout, so it waited on a dead connection forever. Only _post passes one. I can add a "
                  "timeout there, but the same mistake will come back with the next method anyone writes.",
                  [Bash("uv run dagster run list --limit 3 -m gullwing.definitions | grep hubspot_job",
                        "c41a9e02  hubspot_job  CANCELED  2024-11-12 20:00 UTC  5h 12m"),
                   Bash("gcloud logging read 'textPayload:\"c41a9e02\"' --limit=3 --format='value(textPayload)'",
                        "hubspot_deals - fetched 14 pages of modified deals\n"
                        "hubspot_deals - fetching company associations for 1400 deals\n"
                        "dagster - run c41a9e02 exceeded max runtime of 18000 seconds, canceling")]),
        User("Switch the client to httpx then, I don't want to rely on people remembering timeout= on every call."),
        Assistant("The client now holds one httpx.Client with the timeout configured on the client, so every call "
                  "gets it: httpx.Timeout(30.0, connect=5.0). I raised the read timeout to 30 seconds because "
                  "search pages with all properties take up to 14 s at peak, which was cutting it close. The tests "
                  "moved from responses to respx. First run failed on the associations call, which had no mock "
                  "(pytest-socket would have stopped a real call anyway); with the route added all tests pass.",
                  [Bash("uv remove requests responses && uv add httpx && uv add --dev respx",
                        "Uninstalled 2 packages in 45ms\n - requests==2.32.3\n - responses==0.25.3\n"
                        "Resolved 142 packages in 1.21s\nInstalled 1 package in 12ms\n + httpx==0.27.2\n"
                        "Installed 1 package in 9ms\n + respx==0.21.1"),
                   Edit("src/gullwing/hubspot_client.py",
                        "import requests\n",
                        "import httpx\n\nTIMEOUT = httpx.Timeout(30.0, connect=5.0)\n"),
                   Edit("src/gullwing/hubspot_client.py",
                        "        self.session = requests.Session()\n"
                        "        self.session.headers[\"Authorization\"] = f\"Bearer {token}\"\n",
                        "        self.http = httpx.Client(base_url=BASE_URL, timeout=TIMEOUT,\n"
                        "                                 headers={\"Authorization\": f\"Bearer {token}\"})\n"),
                   Edit("src/gullwing/hubspot_client.py",
                        "        resp = self.session.post(BASE_URL + path, json=body, timeout=10)\n"
                        "        if resp.status_code == 429:\n"
                        "            time.sleep(int(resp.headers.get(\"Retry-After\", \"2\")))\n"
                        "            resp = self.session.post(BASE_URL + path, json=body, timeout=10)\n",
                        "        resp = self.http.post(path, json=body)\n"
                        "        if resp.status_code == 429:\n"
                        "            time.sleep(int(resp.headers.get(\"Retry-After\", \"2\")))\n"
                        "            resp = self.http.post(path, json=body)\n"),
                   Edit("src/gullwing/hubspot_client.py",
                        "        resp = self.session.post(BASE_URL + "
                        "\"/crm/v4/associations/deals/companies/batch/read\",\n"
                        "                                 json={\"inputs\": [{\"id\": i} for i in deal_ids]})\n",
                        "        resp = self.http.post(\"/crm/v4/associations/deals/companies/batch/read\",\n"
                        "                              json={\"inputs\": [{\"id\": i} for i in deal_ids]})\n"),
                   Write("tests/test_hubspot_client.py",
                         "import httpx\nimport respx\n\n"
                         "from gullwing.hubspot_client import BASE_URL as BASE, HubSpotClient\n\n\n"
                         "@respx.mock\ndef test_paginates_search():\n"
                         "    respx.post(f\"{BASE}/crm/v3/objects/deals/search\").mock(side_effect=[\n"
                         "        httpx.Response(200, json={\"results\": [{\"id\": \"1\"}], "
                         "\"paging\": {\"next\": {\"after\": \"1\"}}}),\n"
                         "        httpx.Response(200, json={\"results\": [{\"id\": \"2\"}]})])\n"
                         "    assert [d[\"id\"] for d in HubSpotClient(\"t\").deals_modified_since(0)] == "
                         "[\"1\", \"2\"]\n\n\n"
                         "@respx.mock\ndef test_deal_companies():\n"
                         "    assert HubSpotClient(\"t\").deal_companies([\"1\"])[0][\"to\"][0][\"toObjectId\"] "
                         "== 7\n"),
                   Bash("uv run pytest -q tests/test_hubspot_client.py",
                        ".....F\nFAILED tests/test_hubspot_client.py::test_deal_companies - "
                        "respx.models.AllMockedAssertionError: RESPX: <Request('POST', "
                        "'https://api.hubapi.com/crm/v4/associations/deals/companies/batch/read')> not mocked!\n"
                        "1 failed, 5 passed in 0.61s", ok=False),
                   Edit("tests/test_hubspot_client.py",
                        "@respx.mock\ndef test_deal_companies():\n",
                        "@respx.mock\ndef test_deal_companies():\n"
                        "    respx.post(f\"{BASE}/crm/v4/associations/deals/companies/batch/read\").respond(\n"
                        "        json={\"results\": [{\"from\": {\"id\": \"1\"}, \"to\": [{\"toObjectId\": 7}]}]})\n"),
                   Bash("uv run pytest -q", "................\n16 passed in 3.51s")]),
        User("And 5 retries is too many. While HubSpot was down each retry re-pulled every page and ate our API "
             "quota. 3 is enough; if it's still failing after that I want the alert."),
        Assistant("Retries for hubspot_deals are down to 3, still exponential from 60 seconds, so a failure alerts "
                  "after about 7 minutes of retrying instead of 31.",
                  [Edit("src/gullwing/assets/hubspot.py",
                        "       retry_policy=RetryPolicy(max_retries=5, delay=60, backoff=Backoff.EXPONENTIAL))\n",
                        "       retry_policy=RetryPolicy(max_retries=3, delay=60, backoff=Backoff.EXPONENTIAL))\n")]),
        User("Bump dbt to 1.8, I want unit tests for the deal stage mapping."),
        Assistant("Upgrading the three dbt packages together with uv add.",
                  [Bash("uv add \"dbt-core~=1.8.7\" \"dbt-bigquery~=1.8.2\" \"dbt-duckdb~=1.8.4\"",
                        "Resolved 145 packages in 2.88s\nPrepared 6 packages in 3.40s\n"
                        "Uninstalled 6 packages in 210ms\nInstalled 9 packages in 61ms\n - dbt-bigquery==1.7.9\n"
                        " + dbt-bigquery==1.8.2\n - dbt-core==1.7.14\n + dbt-core==1.8.7\n + dbt-adapters==1.7.0\n"
                        " + dbt-common==1.10.0\n - dbt-duckdb==1.7.4\n + dbt-duckdb==1.8.4"),
                   Bash("uv run dbt parse --project-dir dbt",
                        "10:31:07  Running with dbt=1.8.7\n10:31:08  [WARNING]: Deprecated functionality\n"
                        "The `tests` config has been renamed to `data_tests`. Please see\n"
                        "https://docs.getdbt.com/docs/build/data-tests#new-data_tests-syntax for more information."
                        "\n10:31:08  Performance info: /home/dev/gullwing/dbt/target/perf_info.json")]),
        Assistant("dbt 1.8 renamed `tests:` in schema files to `data_tests:`; I renamed them in all schema files. "
                  "The unit test for the stage mapping in stg_hubspot__deals immediately found a bug: the stage id "
                  "contractsent has no branch in the CASE and came out as null instead of 'negotiation'. Added it; "
                  "dbt test on dev passes including the unit test.",
                  [Bash("sed -i 's/^        tests:/        data_tests:/' dbt/models/*/*.yml dbt/models/*/*/*.yml",
                        ""),
                   Write("dbt/models/staging/hubspot/_hubspot__unit_tests.yml",
                         "unit_tests:\n  - name: test_stage_mapping\n    model: stg_hubspot__deals\n    given:\n"
                         "      - input: source('raw_hubspot', 'deals')\n        rows:\n"
                         "          - {id: 1, properties: {dealstage: closedwon}}\n"
                         "          - {id: 2, properties: {dealstage: contractsent}}\n    expect:\n      rows:\n"
                         "        - {deal_id: 1, stage: won}\n        - {deal_id: 2, stage: negotiation}\n"),
                   Bash("uv run dbt test --target dev --project-dir dbt --select \"test_type:unit\"",
                        "10:40:12  1 of 1 FAIL 1 stg_hubspot__deals::test_stage_mapping ... [FAIL 1 in 0.31s]\n"
                        "actual differs from expected:\n@@ ,deal_id,stage\n→  ,2      ,negotiation→NULL", ok=False),
                   Edit("dbt/models/staging/hubspot/stg_hubspot__deals.sql",
                        "        when 'closedwon' then 'won'\n",
                        "        when 'closedwon' then 'won'\n        when 'contractsent' then 'negotiation'\n"),
                   Bash("uv run dbt test --target dev --project-dir dbt",
                        "10:42:55  Done. PASS=9 WARN=0 ERROR=0 SKIP=0 TOTAL=9")]),
        User("Last thing for today, just so it's written down: the CEO dashboard refreshes its cache at 06:00 "
             "Berlin and still shows yesterday afternoon's deals, because the dbt build only runs at 7. I want "
             "the build before 6, but first I need to know when the early HubSpot run finishes. Next time."),
        Assistant("Noted for next time: move the dbt build ahead of the 06:00 dashboard cache refresh, once we know "
                  "when the 04:00 UTC HubSpot run finishes.",
                  [Todo([("Move dbt_build_daily before the 06:00 Berlin dashboard refresh", "pending"),
                         ("Slack channel -> #gullwing-alerts", "completed"),
                         ("requests -> httpx with a client-wide timeout", "completed"),
                         ("dbt 1.8 + stage mapping unit test", "completed")])]),
    ]),
    ("gw6-schedule-backfill-blackfriday", 15, [
        User("The 04:00 UTC HubSpot run finishes around 04:20, that's 05:20 in Berlin right now. Put the dbt build "
             "at 05:30 Berlin."),
        Assistant("dbt_build_daily now fires at 05:30 Europe/Berlin, ten minutes after the early HubSpot run "
                  "usually finishes and half an hour before the dashboard cache refresh. Since the schedule is in "
                  "Europe/Berlin it stays at 05:30 local time across the DST change.",
                  [Edit("src/gullwing/schedules.py",
                        "dbt_build_daily = ScheduleDefinition(job=dbt_build_job, cron_schedule=\"0 7 * * *\",\n",
                        "dbt_build_daily = ScheduleDefinition(job=dbt_build_job, cron_schedule=\"30 5 * * *\",\n"),
                   Bash("uv run pytest -q tests/test_schedules.py", "....\n4 passed in 0.95s")]),
        User("Marketing wants year-over-year. Backfill Google Ads for all of 2023."),
        Assistant("The partitions started at 2024-01-01, so 2023 didn't exist as partitions. Moved the start date to "
                  "2023-01-01 and launched a backfill of the 365 days of 2023.",
                  [Edit("src/gullwing/assets/google_ads.py",
                        "daily = DailyPartitionsDefinition(start_date=\"2024-01-01\", timezone=\"UTC\")\n",
                        "daily = DailyPartitionsDefinition(start_date=\"2023-01-01\", timezone=\"UTC\")\n"),
                   Bash("uv run dagster job backfill -m gullwing.definitions -j google_ads_job --from 2023-01-01 "
                        "--to 2023-12-31 --noprompt",
                        "Launching runs for the backfill of partitions 2023-01-01 to 2023-12-31\n"
                        "Launched backfill job `qkzvwpda`"),
                   Bash("uv run dagster run list -m gullwing.definitions --limit 400 | grep google_ads_job | "
                        "awk '{print $3}' | sort | uniq -c",
                        "    253 SUCCESS\n    112 FAILURE"),
                   Bash("gcloud logging read 'textPayload:\"google_ads_campaign_stats\" AND severity>=ERROR' "
                        "--limit=1 --format='value(textPayload)'",
                        "google_ads_campaign_stats - STEP_FAILURE - google.api_core.exceptions.Forbidden: 403 "
                        "Exceeded rate limits: too many table update operations for this table. For more "
                        "information, see https://cloud.google.com/bigquery/docs/troubleshoot-quotas", ok=False)]),
        Assistant("112 of 365 partitions failed with BigQuery's \"too many table update operations for this "
                  "table\". Each partition run does a DELETE and then a load, two table updates, and with up to 10 "
                  "runs at once that is far more than BigQuery allows per table in a few seconds. Fix: the loader "
                  "now writes straight into the day's partition, raw_google_ads.campaign_stats$YYYYMMDD, with "
                  "WRITE_TRUNCATE. That's a single operation and rerunning a day replaces it instead of "
                  "duplicating it. On top of that the run queue allows only 2 concurrent runs tagged "
                  "source: google_ads. I relaunched the failed partitions and all 365 days are loaded.",
                  [Edit("src/gullwing/assets/google_ads.py",
                        "        bq.query(f\"DELETE FROM raw_google_ads.campaign_stats WHERE date = '{day}'\")"
                        ".result()\n        bq.load_table_from_file(buf, \"raw_google_ads.campaign_stats\",\n"
                        "                                job_config=PARQUET_APPEND).result()\n",
                        "        target = f\"raw_google_ads.campaign_stats${day.replace('-', '')}\"\n"
                        "        bq.load_table_from_file(buf, target, job_config=PARQUET_TRUNCATE).result()\n"),
                   Edit("dagster.yaml",
                        "run_coordinator:\n  module: dagster.core.run_coordinator\n  class: QueuedRunCoordinator\n"
                        "  config:\n    max_concurrent_runs: 10\n",
                        "run_coordinator:\n  module: dagster.core.run_coordinator\n  class: QueuedRunCoordinator\n"
                        "  config:\n    max_concurrent_runs: 10\n    tag_concurrency_limits:\n"
                        "      - key: source\n        value: google_ads\n        limit: 2\n"),
                   Bash("uv run dagster job backfill -m gullwing.definitions -j google_ads_job --from 2023-01-01 "
                        "--to 2023-12-31 --noprompt",
                        "Launching runs for the backfill of partitions 2023-01-01 to 2023-12-31\n"
                        "Launched backfill job `tvbnmcre`"),
                   Bash("bq query --use_legacy_sql=false 'select count(distinct date) as days from "
                        "raw_google_ads.campaign_stats where extract(year from date) = 2023'",
                        "+------+\n| days |\n+------+\n|  365 |\n+------+")]),
        User("Good. That's how raw loads work from now on: always overwrite the partition, never delete-then-append "
             "into raw tables."),
        Assistant("Agreed. The HubSpot loader appends new JSONL loads by design, since stg_hubspot__deals keeps the "
                  "latest version of each deal, but anything partitioned by day overwrites its partition with "
                  "WRITE_TRUNCATE."),
        User("This morning's build failed on the spend anomaly test. It's Black Friday week, of course spend "
             "jumped. Make it 60."),
        Assistant("The biggest jump this week was 52% on Friday 29 November, against the trailing 7-day average, so "
                  "60 passes it while still catching a doubled budget by mistake.",
                  [Bash("uv run dbt test --target dev --project-dir dbt -s fct_ad_spend",
                        "07:02:11  1 of 3 FAIL 1 spend_within_pct_of_trailing_avg_fct_ad_spend_cost_usd__40 "
                        "[FAIL 1 in 0.08s]\n07:02:11  Done. PASS=2 WARN=0 ERROR=1 SKIP=0 TOTAL=3", ok=False),
                   Edit("dbt/models/marts/_marts.yml", "              max_pct_change: 40\n",
                        "              max_pct_change: 60\n"),
                   Bash("uv run dbt test --target dev --project-dir dbt -s fct_ad_spend",
                        "07:04:40  1 of 3 PASS spend_within_pct_of_trailing_avg_fct_ad_spend_cost_usd__60 [PASS "
                        "in 0.07s]\n07:04:40  Done. PASS=3 WARN=0 ERROR=0 SKIP=0 TOTAL=3")]),
        User("Priya asked how she gets realistic data into her local DuckDB without touching the APIs."),
        Assistant("There's now a seeding module that loads the recorded fixtures (anonymised HubSpot deals and "
                  "Google Ads reports under tests/fixtures) into the raw schemas of the local DuckDB file, so the "
                  "dev target has something to build on: `uv run python -m gullwing.dev.seed_duckdb --days 30`, "
                  "then `uv run dbt build --target dev --project-dir dbt`, and `uv run dagster dev` for the UI. "
                  "It never calls an API.",
                  [Write("src/gullwing/dev/seed_duckdb.py",
                         "import argparse\nimport os\n\nimport duckdb\nimport polars as pl\n\n"
                         "FIXTURES = \"tests/fixtures\"\n\n\ndef main():\n    p = argparse.ArgumentParser()\n"
                         "    p.add_argument(\"--days\", type=int, default=30)\n    args = p.parse_args()\n"
                         "    con = duckdb.connect(os.environ[\"GULLWING_DUCKDB\"])\n"
                         "    for schema in (\"raw_hubspot\", \"raw_google_ads\"):\n"
                         "        con.execute(f\"create schema if not exists {schema}\")\n"
                         "    stats = pl.read_parquet(f\"{FIXTURES}/google_ads/*.parquet\")\n"
                         "    stats = stats.filter(pl.col(\"date\") >= pl.col(\"date\").max() - "
                         "pl.duration(days=args.days))\n"
                         "    con.execute(\"create or replace table raw_google_ads.campaign_stats as "
                         "select * from stats\")\n"
                         "    con.execute(f\"create or replace table raw_hubspot.deals as \"\n"
                         "                f\"select * from read_json_auto('{FIXTURES}/hubspot/deals.jsonl')\")\n\n\n"
                         "if __name__ == \"__main__\":\n    main()\n"),
                   Bash("uv run python -m gullwing.dev.seed_duckdb --days 30 && "
                        "uv run dbt build --target dev --project-dir dbt",
                        "10:14:03  Running with dbt=1.8.7\n10:14:05  Done. PASS=14 WARN=0 ERROR=0 SKIP=0 "
                        "TOTAL=14")]),
    ]),
    ("gw7-costs-handover", 4, [
        User("The BigQuery bill for November was 410 EUR, it used to be around 90. Find out why."),
        Assistant("Grouping last month's jobs by what they scanned.",
                  [Bash("bq query --use_legacy_sql=false --project_id=gullwing-dw-prod 'select "
                        "coalesce(labels.value, user_email) as who, count(*) as jobs, "
                        "round(sum(total_bytes_billed)/pow(1024,4), 2) as tib from "
                        "`region-eu`.INFORMATION_SCHEMA.JOBS_BY_PROJECT left join unnest(labels) as labels on "
                        "labels.key = \"looker_dashboard\" where creation_time >= \"2024-11-01\" and creation_time "
                        "< \"2024-12-01\" group by 1 order by tib desc limit 4'",
                        "+-------------------------------------------------+-------+-------+\n"
                        "|                       who                       | jobs  |  tib  |\n"
                        "+-------------------------------------------------+-------+-------+\n"
                        "| sales_pipeline_overview                         | 11902 | 38.41 |\n"
                        "| gullwing-loader@gullwing-dw-prod.iam.gserviceac | 3120  | 17.86 |\n"
                        "| marketing_spend                                 |  2211 |  1.02 |\n"
                        "| priya@kestrel.io                                |    64 |  0.31 |\n"
                        "+-------------------------------------------------+-------+-------+")]),
        Assistant("Two things. The sales pipeline dashboard ran 11,902 queries against fct_deals, which is still a "
                  "view: every query re-parses the raw HubSpot JSON and deduplicates all deal versions, and since "
                  "the HubSpot load runs every 4 hours the raw table has grown six times as fast. That's 38 TiB. "
                  "The loader's 17.9 TiB are mostly the 2023 backfill plus the full refresh of fct_ad_spend. "
                  "marketing_spend is down to 1 TiB since fct_ad_spend became incremental. Making fct_deals a "
                  "table, rebuilt by the dbt build after each load, fixes the bulk of it."),
        User("Make fct_deals a table then. And put a cap on what any dbt query can bill."),
        Assistant("fct_deals is now materialized as a table clustered by stage_id and owner_id, and the prod target "
                  "has maximum_bytes_billed: 50000000000, so any single dbt query that would bill more than 50 GB "
                  "fails instead of running.",
                  [Edit("dbt/models/marts/fct_deals.sql", "{{ config(materialized='view') }}\n",
                        "{{ config(materialized='table', cluster_by=['stage_id', 'owner_id']) }}\n"),
                   Edit("dbt/profiles.yml", "      job_execution_timeout_seconds: 600\n",
                        "      job_execution_timeout_seconds: 600\n      maximum_bytes_billed: 50000000000\n"),
                   Bash("uv run dbt build --target dev --project-dir dbt -s fct_deals",
                        "11:20:41  1 of 3 OK created sql table model marts.fct_deals ... [OK in 0.14s]\n"
                        "11:20:41  Done. PASS=3 WARN=0 ERROR=0 SKIP=0 TOTAL=3")]),
        User("50 GB is far too generous for us. Make it 10 GB, a full refresh of fct_ad_spend is about 6."),
        Assistant("Lowered it: maximum_bytes_billed is 10000000000 (10 GB) on the prod target. The largest query we "
                  "run, the fct_ad_spend full refresh at roughly 6 GB, still fits.",
                  [Edit("dbt/profiles.yml", "      maximum_bytes_billed: 50000000000\n",
                        "      maximum_bytes_billed: 10000000000\n")]),
        User("Did anything from last week's list get lost? Check the landing bucket at least, I remember we talked "
             "about cleaning it up."),
        Assistant("Nothing cleans it up yet: there's no lifecycle rule on gullwing-dw-prod-landing, so every JSONL "
                  "and parquet file since October is still there (41 GB). I haven't added the rule; 90 days of "
                  "retention is what I'd suggest, but you should decide that.",
                  [Bash("gcloud storage buckets describe gs://gullwing-dw-prod-landing "
                        "--format='value(lifecycle_config)' && gcloud storage du -s -r gs://gullwing-dw-prod-landing",
                        "\n41.02GiB     gs://gullwing-dw-prod-landing")]),
        User("I'm out next week and Priya takes over. Write down where we are and what's left."),
        Assistant("Current state, for Priya:\n"
                  "- HubSpot deals: every 4 hours (0 */4 * * * UTC), 4 requests per second, httpx with "
                  "httpx.Timeout(30.0, connect=5.0), RetryPolicy(max_retries=3, delay=60, "
                  "backoff=Backoff.EXPONENTIAL).\n"
                  "- Google Ads: daily partitions from 2023-01-01, 04:30 UTC, refetching the last 14 days "
                  "(LOOKBACK_DAYS = 14), loaded with WRITE_TRUNCATE into the day's partition, polars only.\n"
                  "- dbt build at 05:30 Europe/Berlin; fct_ad_spend incremental (merge), fct_deals a table, "
                  "maximum_bytes_billed 10 GB; spend anomaly threshold max_pct_change: 60.\n"
                  "- Alerts go to #gullwing-alerts. Python 3.12, dbt 1.8, uv.\n"
                  "Still open:\n"
                  "1. Meta Ads as the third source: not started; Priya has the app review with Meta.\n"
                  "2. Move HUBSPOT_TOKEN and the Google Ads refresh token from the VM's .env into Secret Manager.\n"
                  "3. Lifecycle rule on gullwing-dw-prod-landing (suggested: delete after 90 days); not applied.\n"
                  "4. Decide in January whether the spend anomaly threshold stays at 60 after the holiday season.\n"
                  "5. Unit tests for the incremental filter of fct_ad_spend.",
                  [Todo([("Meta Ads connector (third source)", "pending"),
                         ("HUBSPOT_TOKEN + Google Ads refresh token -> Secret Manager", "pending"),
                         ("Lifecycle rule on gullwing-dw-prod-landing (90 days?)", "pending"),
                         ("Revisit max_pct_change after the holidays", "pending"),
                         ("Unit tests for fct_ad_spend incremental filter", "pending"),
                         ("fct_deals as a table", "completed"),
                         ("maximum_bytes_billed 10 GB on prod", "completed")])]),
        User("And tell Priya the rule again: no dbt against prod from her laptop, even for the Meta Ads models."),
        Assistant("Added to the handover: prod dbt runs only from Dagster (the guard_prod hook fails any prod run "
                  "without GULLWING_RUNNER=dagster), and for the Meta Ads models she builds on the DuckDB dev "
                  "target and uses the dbt_full_refresh job in Dagster when prod needs a rebuild."),
    ]),
]

QUESTIONS = [
    # current values of things that changed
    ("How often does the CRM sync run now?", ["0 */4 * * *", "every 4 hours"], ["0 6 * * *"]),
    ("What's the name of the schedule that triggers the HubSpot job?", ["hubspot_every_4h"], ["hubspot_daily"]),
    ("When does the HubSpot source freshness check start warning?", ["warn_after: {count: 6, period: hour}",
                                                                    "warns after 6 hours"],
     ["count: 26", "count: 48"]),
    ("How many requests per second does our HubSpot client allow itself?",
     ["HUBSPOT_MAX_RPS = 4", "4 requests per second"], ["HUBSPOT_MAX_RPS = 10", "10 requests per second"]),
    ("How many times does the HubSpot asset retry before giving up?", ["max_retries=3"],
     ["max_retries=5", "max_retries=2"]),
    ("Why did we cut the HubSpot retries back down?", ["ate our API quota", "I want the alert"], []),
    ("Which GCP project holds the warehouse?", ["gullwing-dw-prod"], ["project: gullwing-prod"]),
    ("What is the gullwing-prod project and can we use it?", ["GA360 export project that finance owns"], []),
    ("In which BigQuery location is our data?", ["location: EU", "EU multi-region"], ["location: US"]),
    ("Which dataset does dbt write the models into in prod?", ["dataset: marts"], ["dataset: analytics"]),
    ("What's the bucket where raw files land before loading?", ["gullwing-dw-prod-landing"],
     ["gs://gullwing-landing"]),
    ("Why isn't the landing bucket simply called gullwing-landing?",
     ["Bucket names are global", "The requested bucket name is not available"], []),
    ("Under which path do the HubSpot JSONL files go?", ["hubspot/deals/dt=", "LANDING_PREFIX = \"hubspot/deals\""],
     ["raw/hubspot/deals"]),
    ("How many days back does the Google Ads refresh reach each morning?", ["LOOKBACK_DAYS = 14", "last 14 days"],
     ["LOOKBACK_DAYS = 3"]),
    ("Why did the Google Ads lookback window need widening at all?", ["conversion lag", "attributes a conversion"],
     []),
    ("Who decided on the size of the conversions window and based on what?", ["14-day view", "Dana"], []),
    ("How much were conversions short in the warehouse before the lookback fix?", ["9.4%"], []),
    ("What's the earliest date we have Google Ads data for?", ["2023-01-01"], ["start_date=\"2024-01-01\""]),
    ("How is fct_ad_spend materialized?", ["materialized='incremental'", "incremental (merge)"],
     ["materialized='view'"]),
    ("How far back does each incremental run of fct_ad_spend reprocess?", ["16 days", "-16"], []),
    ("Why does fct_ad_spend use delete+insert locally instead of merge?",
     ["Invalid incremental strategy provided: merge", "doesn't have a merge strategy"], []),
    ("What is the spend column called in the ad spend mart?", ["cost_usd"], ["as cost,"]),
    ("Why was the spend column renamed?", ["which currency", "bills in USD"], []),
    ("Which Python version does the project run on?", ["3.12"], ["python:3.10-slim", "requires-python = \">=3.10\""]),
    ("What forced us off Python 3.10?", ["cannot import name 'UTC' from 'datetime'", "datetime.UTC only"], []),
    ("uv sync complained about the interpreter after the Python bump. What fixed it?", ["uv python pin 3.12"], []),
    ("What do we use for dataframes in the Google Ads loader?", ["polars"], ["import pandas as pd"]),
    ("Why did we drop pandas?", ["OOM-killed", "Out of memory", "7.3 GB to 1.1 GB"], []),
    ("How much memory does a keyword-level day take now?", ["1.1 GB", "1184320"], []),
    ("What HTTP library does the HubSpot client use?", ["httpx"], ["import requests"]),
    ("Why did we switch away from requests?", ["no default timeout", "remembering timeout="], []),
    ("What timeout do HubSpot API calls have?", ["httpx.Timeout(30.0, connect=5.0)"], ["timeout=10)"]),
    ("Which library mocks HTTP in the HubSpot tests now?", ["respx"], ["import responses"]),
    ("Which Slack channel do pipeline failures go to?", ["#gullwing-alerts"], ["channel=\"#data-alerts\""]),
    ("Why were there no failure alerts for two days?", ["channel_not_found"], []),
    ("Which dbt-bigquery version are we on?", ["dbt-bigquery==1.8.2", "dbt-bigquery~=1.8.2"],
     ["dbt-bigquery==1.7.9", "dbt-bigquery = \"1.7.9\""]),
    ("Why did we upgrade dbt?", ["unit tests for the deal stage mapping"], []),
    ("What bug did the dbt unit test find?", ["contractsent"], []),
    ("When does the daily dbt build run?", ["30 5 * * *", "05:30 Europe/Berlin", "05:30 Berlin"],
     ["cron_schedule=\"0 7 * * *\""]),
    ("Why was the dbt build moved earlier?", ["refreshes its cache at 06:00", "dashboard cache refresh"], []),
    ("What's the threshold on the ad spend anomaly test?", ["max_pct_change: 60"], ["max_pct_change: 40"]),
    ("Why was the spend anomaly threshold raised?", ["Black Friday"], []),
    ("Is there a limit on how much a single dbt query can bill?", ["maximum_bytes_billed: 10000000000", "10 GB"],
     ["maximum_bytes_billed: 50000000000"]),
    ("How is fct_deals materialized and why?", ["materialized='table'", "fct_deals a table"],
     ["materialized='view'"]),
    ("Why did the BigQuery bill go up in November?", ["sales_pipeline_overview", "11,902 queries", "38 TiB"], []),
    ("What do we use instead of poetry?", ["Move us to uv", "uv lock", "uv sync"], ["poetry install"]),
    ("Why did we move off poetry?", ["poetry resolving", "four of those are poetry"], []),
    # how to run things
    ("How do I install the project's dependencies?", ["uv sync"], ["poetry install"]),
    ("How do I add a new dependency?", ["uv add"], []),
    ("How do I start the Dagster UI locally?", ["uv run dagster dev"], ["poetry run dagster dev"]),
    ("How do I build the dbt models locally?", ["uv run dbt build --target dev --project-dir dbt"], []),
    ("How do I fill my local DuckDB with realistic data?", ["uv run python -m gullwing.dev.seed_duckdb --days 30"],
     []),
    ("How do I backfill Google Ads for a date range?", ["dagster job backfill"], []),
    ("How do I apply the Terraform?", ["terraform -chdir=infra apply"], []),
    ("How do I rebuild an incremental model from scratch in prod?", ["dbt_full_refresh"], []),
    # rules and preferences
    ("Can tests call the HubSpot API?", ["Never hit the real HubSpot or Google Ads APIs from tests",
                                        "--disable-socket"], []),
    ("Am I allowed to run dbt against prod from my machine?", ["never run dbt against the prod target from a laptop",
                                                                "guard_prod"], []),
    ("How should staging models be named?", ["stg_<source>__<entity>"], []),
    ("Is select * ok in the marts?", ["no select * in marts"], []),
    ("Can I edit the dependency list in pyproject by hand?", ["never hand-edit the dependency lists"], []),
    ("How should raw tables be written when reloading a day?", ["always overwrite the partition",
                                                               "never delete-then-append"], []),
    ("Can I use pandas in a new asset?", ["no pandas in new code", "polars only"], []),
    # failures and fixes
    ("Why did dbt debug not find the profile at first?", ["DBT_PROFILES_DIR", "Could not find profile named"], []),
    ("Why did dagster dev refuse to start on day one?", ["[tool.dagster]"], []),
    ("What was wrong with the first HubSpot client test?", ["registered the search mock as GET",
                                                            "the search endpoint is a POST"], []),
    ("What caused the HubSpot 429 errors?", ["5 requests per second", "secondly limit"], []),
    ("Why did the HubSpot run on that Tuesday hang for five hours?", ["deal_companies", "no default timeout"], []),
    ("Why did the 2023 backfill partly fail?", ["too many table update operations"], []),
    ("How many Google Ads runs may run at the same time?", ["limit: 2", "only 2 concurrent runs"], []),
    ("How was the 2023 backfill made idempotent?", ["WRITE_TRUNCATE"], []),
    # open work
    ("What's still left to do?", ["Meta Ads", "Secret Manager", "Lifecycle rule"], []),
    ("Is there a retention policy on the landing bucket?", ["no lifecycle rule", "not applied"], []),
    ("Where do the API tokens live right now?", ["VM's .env"], []),
    ("Who is taking over while I'm away?", ["Priya takes over"], []),
]

# What the next session's start must hold: the latest decisions and the open TODOs; and values it must not present
# as current (a line holding one is fine only when it says the memory was replaced).
BRIEF = {
    "holds": [("0 */4 * * *", "every 4 hours"), ("LOOKBACK_DAYS = 14", "last 14 days"),
              ("#gullwing-alerts",), ("10000000000", "10 GB"),
              ("Meta Ads", "Secret Manager", "Lifecycle rule")],
    "stale": ["0 6 * * *", "LOOKBACK_DAYS = 3", "#data-alerts", "50000000000", "max_retries=5", "max_retries=2",
              "gs://gullwing-landing", "project: gullwing-prod", "import pandas", "import requests",
              "python:3.10-slim", "max_pct_change: 40", "cron_schedule=\"0 7 * * *\"", "location: US"],
}
