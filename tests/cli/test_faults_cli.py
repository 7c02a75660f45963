"""Faults blamed on the right party, end to end: one line, the right exit code, no traceback.

A broken environment (a schema typo, a verifier that raises) or a broken disk (a file where the
runs folder should be, a folder where a golden file should be) is exit 2 and never scored as the
agent's failure.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.cli._console import one_line_error, run

REPO = Path(__file__).resolve().parents[2]


def _edit(project: Path, old: str, new: str) -> None:
    env_py = project / "environments" / "toy" / "env.py"
    text = env_py.read_text()
    assert old in text
    env_py.write_text(text.replace(old, new, 1))


def test_a_schema_typo_stops_the_run_before_any_call(toy_project: Path) -> None:
    _edit(toy_project, '"by": {"type": "integer"', '"by": {"type": "intger"')
    proc = run("silo-run", toy_project, "env=toy", "task=TASK-001", "agent=solver")
    assert proc.returncode == 2
    assert one_line_error(proc, "silo-run") == (
        "environments/toy: tool \"bump\" inputSchema.properties.by.type: 'intger' is not a JSON "
        "Schema type; use one of array, boolean, integer, null, number, object, string; fix "
        "the schema (silo-validate lists every problem)"
    )
    assert not (toy_project / ".silo" / "runs").exists() or not any(
        (toy_project / ".silo" / "runs").iterdir()
    )


def test_a_raising_verifier_is_the_environments_error(toy_project: Path) -> None:
    proc = run("silo-run", toy_project, "env=toy", "task=TASK-002", "agent=solver")
    assert proc.returncode == 2
    line = one_line_error(proc, "silo-run")
    assert line.startswith("verifier VER-002 failed at environments/toy/env.py:")
    assert line.endswith("ValueError: verifier bug; fix the environment's code")
    (run_dir,) = (toy_project / ".silo" / "runs").iterdir()
    result = json.loads((run_dir / "result.json").read_text())
    assert result["error"] in line  # still written, with the error


def test_in_a_sweep_a_raising_verifier_is_counted_apart(toy_project: Path) -> None:
    proc = run("silo-run", toy_project, "env=toy", "task=TASK-001,TASK-002", "-m")
    assert proc.returncode == 2, proc.stderr
    (sweep,) = (toy_project / ".silo" / "runs").iterdir()
    summary = json.loads((sweep / "summary.json").read_text())
    assert (summary["rollouts"], summary["passed"], summary["failed"]) == (2, 1, 0)
    (error,) = summary["notGraded"]
    assert error["taskId"] == "TASK-002" and "failed at environments/toy/env.py:" in error["error"]
    assert error["outcome"] == "environmentError" and summary["environmentErrors"] == 1


def test_a_file_where_the_runs_folder_should_be_is_one_line(toy_project: Path) -> None:
    (toy_project / ".silo").mkdir()
    (toy_project / ".silo" / "runs").write_text("not a folder")
    proc = run("silo-run", toy_project, "env=toy", "task=TASK-001", "agent=solver")
    assert proc.returncode == 2
    line = one_line_error(proc, "silo-run")
    assert line.startswith("the runs folder ") and "is a file, not a folder" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through read-only permissions")
def test_a_read_only_runs_folder_is_one_line(toy_project: Path) -> None:
    runs = toy_project / ".silo" / "runs"
    runs.mkdir(parents=True)
    runs.chmod(0o500)
    try:
        proc = run("silo-run", toy_project, "env=toy", "task=TASK-001", "agent=solver")
    finally:
        runs.chmod(0o700)
    assert proc.returncode == 2
    assert "is read-only; make it writable" in one_line_error(proc, "silo-run")


def _refuses_writes(folder: Path) -> bool:
    """Whether even this user (root too) cannot create anything in ``folder``."""
    try:
        (folder / "silo-probe").mkdir()
    except OSError:
        return True
    (folder / "silo-probe").rmdir()
    return False


def test_a_runs_folder_on_a_read_only_file_system_is_one_line(toy_project: Path) -> None:
    # sysfs refuses new folders to every user, so this runs as root too (unlike chmod).
    runs = Path("/sys/kernel")
    if not runs.is_dir() or not _refuses_writes(runs):
        pytest.skip("no folder here that refuses writes to every user")
    proc = run(
        "silo-run", toy_project, "env=toy", "task=TASK-001", "agent=solver", f"runs_dir={runs}"
    )
    assert proc.returncode == 2
    assert one_line_error(proc, "silo-run") == (
        f"the runs folder {runs} is read-only; make it writable, or set runs_dir=<folder>"
    )


@pytest.fixture
def baseline_project(toy_project: Path) -> Path:
    (toy_project / "baselines").mkdir()
    (toy_project / "baselines" / "silo-baselines.yaml").write_text(
        "baselines:\n  - {env: toy, agent: solver, tasks: [TASK-001]}\n"
    )
    return toy_project


def test_a_folder_where_a_golden_file_should_be_is_one_line(baseline_project: Path) -> None:
    golden = baseline_project / "baselines" / "toy" / "solver" / "TASK-001.result.json"
    golden.mkdir(parents=True)
    for command in ("check", "record"):
        proc = run("silo-baseline", baseline_project, command)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        line = one_line_error(proc, "silo-baseline")
        assert line.startswith("the golden file ") and "is a folder where a file should be" in line
    shutil.rmtree(golden)
    assert run("silo-baseline", baseline_project, "record").returncode == 0
