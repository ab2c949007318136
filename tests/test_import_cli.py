"""`rlm-mem import`: one-line summary, skipped files on stderr, `Error:` exit 1 only for paths that gave nothing."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from brain import interop
from brain.cli import interop_cmds
from brain.cli.main import cli

FIXTURES = Path(__file__).parent / "fixtures" / "import"


@pytest.fixture
def run(tmp_path):
    runner = CliRunner()  # click 8.2+: stdout and stderr captured apart

    def invoke(*args, input=None):
        return runner.invoke(cli, list(args), env={"RLM_MEM_DIR": str(tmp_path / "memory")}, input=input)

    return invoke


def test_cli_lists_the_library_formats():
    assert interop_cmds.IMPORT_FORMATS == interop.IMPORT_FORMATS
    assert interop_cmds.EXPORT_FORMATS == interop.EXPORT_FORMATS


@pytest.mark.parametrize("folder, created", [("legacy", 5), ("cognitive", 5), ("claude-memory", 5),
                                             ("markdown", 1), ("jsonl", 4)])
def test_auto_detects_each_fixture_folder(run, folder, created):
    result = run("import", str(FIXTURES / folder))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().startswith(f"imported {created} chunk")
    assert ", 0 already present" in result.stdout
    assert "skipped " in result.stderr  # every fixture folder holds malformed files on purpose


def test_summary_then_nothing_new_on_the_second_run(run):
    run("import", "--format", "legacy", str(FIXTURES / "legacy"))
    result = run("import", "--format", "legacy", str(FIXTURES / "legacy"))
    assert result.exit_code == 0
    assert result.stdout.strip() == "imported 0 chunks, 5 already present, 2 errors (legacy, 7 files)"


def test_missing_path_is_an_error_and_imports_nothing(run, tmp_path):
    result = run("import", str(FIXTURES / "legacy"), str(tmp_path / "nope"))
    assert result.exit_code == 1
    assert result.stderr.strip() == f"Error: no such file or folder: {tmp_path / 'nope'}"
    assert not (tmp_path / "memory" / "chunks").exists()


def test_a_path_that_gave_nothing_exits_1_after_importing_the_rest(run):
    bad = FIXTURES / "candidates" / "nothing_here.txt"
    result = run("import", "--format", "candidates", str(FIXTURES / "candidates" / "system_notes.txt"), str(bad))
    assert result.exit_code == 1
    assert result.stdout.strip().startswith("imported 3 chunks")
    assert f"Error: nothing could be imported from {bad}" in result.stderr


def test_unknown_format_is_a_usage_error(run):
    result = run("import", "--format", "yaml", str(FIXTURES / "legacy"))
    assert result.exit_code == 2


def test_candidates_from_stdin(run):
    text = (FIXTURES / "candidates" / "system_notes.txt").read_text()
    result = run("import", "-", input=text)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("imported 3 chunks")


def test_json_report_lists_every_error_with_its_line(run):
    result = run("import", "--json", str(FIXTURES / "jsonl" / "records.jsonl"))
    report = json.loads(result.stdout)
    assert report["created"] == 4 and len(report["ids"]) == 4
    assert [e.split(": ")[0].rsplit(":", 1)[1] for e in report["errors"]] == ["3", "4", "5", "7"]


def test_no_progress_bar_when_stderr_is_not_a_terminal(run):
    result = run("import", str(FIXTURES / "legacy"))
    assert "importing" not in result.stderr


def test_progress_bar_on_a_terminal(monkeypatch, capsys):
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    with interop_cmds.progress_bar("importing") as progress:
        progress(5, 10)
        progress(10, 10)
    assert "importing" in capsys.readouterr().err
