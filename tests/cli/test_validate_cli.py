"""silo-validate end to end: exit codes, text and JSON reports, one-line usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli._console import one_line_error, run


def validate(project: Path, *args: str):  # noqa: ANN201 - CompletedProcess
    return run("silo-validate", project, *args)


def test_sound_environment_exits_zero(toy_project: Path) -> None:
    proc = validate(toy_project, "env=toy", "deep=false")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["OK  toy  data=1 tasks=3 tools=4 verifiers=3"]
    assert proc.stderr == ""


def test_deep_findings_fail_with_one_line_each(toy_project: Path) -> None:
    proc = validate(toy_project, "env=toy")  # the toy ships a solver: deep by default
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[-1] == "FAILED  toy  data=1 tasks=3 tools=4 verifiers=3"
    errors = [line for line in lines if line.startswith("ERROR")]
    # TASK-002's verifier raises: the environment's bug, not the solver's
    assert errors[0].startswith('ERROR  verifier_crashed  task "TASK-002": verifier VER-002')
    assert any(line.startswith('ERROR  tool_leaks_state  tool "bump"') for line in lines)


@pytest.mark.parametrize("option", ["--json", "format=json"])
def test_json_report(toy_project: Path, option: str) -> None:
    proc = validate(toy_project, "env=toy", option)
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert set(report) == {"environment", "ok", "findings", "counts"}
    assert report["ok"] is False and report["environment"] == "toy"
    assert report["counts"] == {"data": 1, "tasks": 3, "tools": 4, "verifiers": 3}
    first = next(f for f in report["findings"] if f["level"] == "error")
    assert first["code"] == "verifier_crashed"
    assert all(set(f) == {"level", "code", "message"} for f in report["findings"])


def test_warnings_alone_exit_zero(toy_project: Path) -> None:
    (toy_project / "environments" / "toy" / "silo.environment.json").unlink()
    proc = validate(toy_project, "env=toy", "deep=false")
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[0].startswith("WARNING  manifest_missing  ")


def test_broken_entrypoint_is_a_finding_not_a_traceback(toy_project: Path) -> None:
    env_py = toy_project / "environments" / "toy" / "env.py"
    env_py.write_text(env_py.read_text().replace("def create_state()", "def create_state(:"))
    proc = validate(toy_project, "env=toy")
    assert proc.returncode == 1 and "Traceback" not in proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[0].startswith(
        "ERROR  runtime_load_failed  the entrypoint does not import: environments/toy/env.py:"
    )


def test_without_env_every_environment_is_validated(toy_project: Path) -> None:
    other = toy_project / "environments" / "other"
    (other / "data").mkdir(parents=True)
    (other / "data" / "x.json").write_text("{")
    proc = validate(toy_project, "deep=false")
    assert proc.returncode == 2  # other's data file is malformed: exit 2 outranks toy's 0
    assert proc.stderr == (
        "silo-validate: environments/other/data/x.json is not valid JSON (line 1, column 2: "
        "Expecting property name enclosed in double quotes)\n"
    )
    lines = proc.stdout.splitlines()
    assert "FAILED  other  data=0 tasks=0 tools=0 verifiers=0" in lines
    assert "OK  toy  data=1 tasks=3 tools=4 verifiers=3" in lines
    assert lines[-1] == "1 of 2 environments OK; FAILED: other"
    document = json.loads(validate(toy_project, "deep=false", "--json").stdout)
    assert document["ok"] is False
    assert [r["environment"] for r in document["environments"]] == ["other", "toy"]


def test_all_sound_environments_exit_zero(toy_project: Path) -> None:
    proc = validate(toy_project, "deep=false")
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[-1] == "1 of 1 environments OK"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["env=toy", "task=TASK-001"], 'unknown argument "task=TASK-001"; known: env=, deep='),
        (["env=toy", "deep=maybe"], 'deep= must be true or false, not "maybe"'),
        (["env=toy", "format=xml"], 'format= must be text or json, not "xml"'),
        (["env=toy", "--verbose"], 'unknown option "--verbose"'),
        (["toy"], 'unexpected argument "toy"'),
        (["env=nope"], 'unknown environment "nope"'),
    ],
)
def test_usage_mistakes_exit_two(toy_project: Path, args: list[str], expected: str) -> None:
    proc = validate(toy_project, *args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert expected in one_line_error(proc, "silo-validate")


def test_empty_project_exits_two(tmp_path: Path) -> None:
    (tmp_path / ".silo").mkdir()  # the project is here, not in a folder above tmp_path
    proc = validate(tmp_path)
    assert proc.returncode == 2
    assert "no environments in" in one_line_error(proc, "silo-validate")


def test_help(tmp_path: Path) -> None:
    proc = validate(tmp_path, "--help")
    assert proc.returncode == 0 and proc.stdout.startswith("usage: silo-validate")
