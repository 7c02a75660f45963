"""silo-validate's deep checks: progress lines, budget.* overrides, one time limit for them all,
and a raising verifier blamed on the environment, not the solver."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.cli._console import run


@pytest.mark.slow  # waits out a real time limit
def test_a_hanging_solver_is_bounded_by_the_budget_and_the_time_limit(toy_project: Path) -> None:
    (toy_project / "environments" / "toy" / "solver.py").write_text(
        "import time\n\n\ndef agent(inp):\n    time.sleep(3600)\n"
    )
    started = time.monotonic()
    proc = run(
        "silo-validate", toy_project, "env=toy", "budget.timeout_ms=300", "time_limit_s=1",
        "progress=true",
    )  # fmt: skip
    # Bounded by the 1 s time limit, not by 3 tasks x 2 runs x the default 120 s budget.
    assert time.monotonic() - started < 120
    assert proc.returncode == 1
    assert proc.stderr.startswith("silo-validate: environments/toy: TASK-001 solver (1/9 at most)")
    assert "validation_timeout" in proc.stdout
    assert "the validation time limit (1 s) ran out before task" in proc.stdout


def test_a_raising_verifier_is_not_the_solvers_failure(toy_project: Path) -> None:
    proc = run("silo-validate", toy_project, "env=toy")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    (crashed,) = [line for line in lines if "verifier_crashed" in line]
    assert 'task "TASK-002": verifier VER-002 failed at environments/toy/env.py:' in crashed
    assert not any("solver_failed" in line and "TASK-002" in line for line in lines)


def test_bad_limits_are_one_line(toy_project: Path) -> None:
    for word, expected in (
        ("budget.timeout_ms=soon", "take whole numbers"),
        ("time_limit_s=0", "time_limit_s= takes a positive number of seconds"),
    ):
        proc = run("silo-validate", toy_project, "env=toy", word)
        assert proc.returncode == 2 and expected in proc.stderr and proc.stderr.count("\n") == 1
