"""The newcomer's crashing verifier, through the console scripts: counted as what it is.

A verifier that raises on one of two tasks is an environment error: ``silo-run``'s table keeps
both tasks, the headline counts rollouts by outcome, ``silo-baseline check`` reports an ERROR
(exit 2) per task, never a DRIFT, and ``silo-compare`` leaves it out of the rates (exit 2).
An environment whose ``create_state()`` raises is an environment error too, with no traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli._console import run


def _break_verifier(project: Path) -> None:
    """Make VER-001 (TASK-001's) raise, as VER-002 (TASK-002's) already does."""
    env_py = project / "environments" / "toy" / "env.py"
    text = env_py.read_text()
    broken = text.replace('"C-1 bumped twice", _bumped)', '"C-1 bumped twice", _raises)')
    assert broken != text
    env_py.write_text(broken)


def test_a_group_with_a_crashing_verifier_counts_every_rollout(toy_project: Path) -> None:
    proc = run("silo-run", toy_project, "env=toy", "task=all", "agent=solver")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split()[0] for line in lines[2:5]] == ["TASK-001", "TASK-002", "TASK-003"]
    assert lines[3].split()[2:6] == ["1", "0", "0", "1"]  # runs, pass, fail, error
    assert "  TASK-002 solver: environment error: verifier VER-002 failed at " in proc.stdout
    assert "could not start" not in proc.stdout
    assert lines[-2] == (
        "3 rollouts: 1 passed, 1 failed, 1 environment error (pass rate 0.50 over the 2 graded)"
    )
    (group,) = (toy_project / ".silo" / "runs").glob("group_*")
    summary = json.loads((group / "summary.json").read_text())
    assert (summary["rollouts"], summary["graded"], summary["environmentErrors"]) == (3, 2, 1)
    (record,) = summary["notGraded"]
    assert (record["outcome"], record["taskId"], record["repeat"]) == (
        "environmentError",
        "TASK-002",
        0,
    )
    assert record["runDir"] is not None and (group / record["runDir"] / "result.json").is_file()


def test_baseline_check_reports_a_verifier_crash_as_an_error_per_task(toy_project: Path) -> None:
    words = ("env=toy", "agent=solver", "task=TASK-001,TASK-003")
    recorded = run("silo-baseline", toy_project, "record", *words)
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    _break_verifier(toy_project)
    proc = run("silo-baseline", toy_project, "check", *words)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "DRIFT   " not in proc.stdout
    assert (
        "ERROR   toy/solver/TASK-001\n  environment error: verifier VER-001 failed at "
        in proc.stdout
    )
    assert proc.stdout.splitlines()[-1] == "check: 1 ok, 0 DRIFT, 0 MISSING, 0 STALE, 1 ERROR"


def test_baseline_counts_tasks_not_files(toy_project: Path) -> None:
    words = ("env=toy", "agent=solver", "task=TASK-001,TASK-003")
    assert run("silo-baseline", toy_project, "record", *words).returncode == 0
    folder = toy_project / "baselines" / "toy" / "solver"
    for kind in ("result", "state-diff", "state-changes"):  # every file of TASK-001 drifts
        path = folder / f"TASK-001.{kind}.json"
        path.write_text(path.read_text().replace("C-1", "C-9"))
    proc = run("silo-baseline", toy_project, "check", *words)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.count("DRIFT   toy/solver/TASK-001") == 3
    assert proc.stdout.splitlines()[-1] == "check: 1 ok, 1 DRIFT, 0 MISSING, 0 STALE"


def test_compare_leaves_environment_errors_out_of_the_rates(toy_project: Path) -> None:
    runs = toy_project / ".silo" / "runs"
    a = run("silo-run", toy_project, "env=toy", "task=TASK-001", "agent=solver", "runs=2")
    assert a.returncode == 0, a.stderr
    (first,) = runs.glob("group_*")  # group names made in one second do not sort by time
    _break_verifier(toy_project)
    b = run("silo-run", toy_project, "env=toy", "task=TASK-001", "agent=solver", "runs=2")
    assert b.returncode == 2, b.stderr
    (second,) = set(runs.glob("group_*")) - {first}
    proc = run("silo-compare", toy_project, first.name, second.name)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (
        "B: "
        + second.name
        + " (group, 2 rollouts: 0 passed, 0 failed, 2 environment errors (none graded))"
        in proc.stdout
    )
    assert "  B TASK-001 solver: environment error x2: verifier VER-001 failed at " in proc.stdout
    assert "not graded" in proc.stdout and "REGRESSION" not in proc.stdout
    document = json.loads(
        run("silo-compare", toy_project, first.name, second.name, "--json").stdout
    )
    (cell,) = document["cells"]
    assert cell["status"] == "notGraded" and cell["b"]["passRate"] is None
    assert document["b"]["outcomes"]["environmentError"] == 2


def test_create_state_that_raises_is_an_environment_error(toy_project: Path) -> None:
    env_py = toy_project / "environments" / "toy" / "env.py"
    text = env_py.read_text()
    env_py.write_text(
        text.replace(
            "def create_state() -> dict[str, Any]:\n",
            'def create_state() -> dict[str, Any]:\n    raise RuntimeError("no database")\n',
        )
    )
    single = run("silo-run", toy_project, "env=toy", "task=TASK-001", "agent=solver")
    assert single.returncode == 2 and "Traceback" not in single.stderr, single.stderr
    assert "building the world failed at environments/toy/env.py:" in single.stderr
    assert single.stderr.rstrip().endswith(
        "RuntimeError: no database; fix the environment's create_state() or bind_tools()"
    )
    group = run("silo-run", toy_project, "env=toy", "task=TASK-001", "agent=solver", "runs=2")
    assert group.returncode == 2 and "Traceback" not in group.stderr, group.stderr
    assert "2 rollouts: 0 passed, 0 failed, 2 environment errors (none graded)" in group.stdout
