"""An error in one rollout of ``check`` is reported and every later point is still checked.

A rollout that is not graded is an ERROR with its outcome and reason (here an agent that cannot
be found: could not start; a verifier that raises is tests/cli/test_outcomes_cli.py's).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from silo.batch.baseline import Target, check_goldens, record_goldens
from silo.batch.sweep import Point
from silo.rollout.run import Budget

TASKS = ("TASK-001", "TASK-003")  # graded: TASK-002's verifier raises


def _target(agents: dict[str, str]) -> Target:
    points = [
        Point("toy", task, agents.get(task, "solver"), "solver", Budget(), 0) for task in TASKS
    ]
    return Target("toy", "solver", points)


@pytest.mark.parametrize("in_flight", [1, 2])
@pytest.mark.parametrize("broken", TASKS)
def test_an_error_skips_nothing_after_it(toy_project: Path, broken: str, in_flight: int) -> None:
    base = toy_project / "baselines"
    assert [o.status for o in record_goldens(_target({}), toy_project, base)] == ["created"] * 2
    outcomes = list(
        check_goldens(_target({broken: "agents/none.py"}), toy_project, base, in_flight)
    )
    assert [(o.status, o.task) for o in outcomes] == [
        ("ERROR" if task == broken else "ok", task) for task in TASKS
    ]
    (error,) = [o for o in outcomes if o.status == "ERROR"]
    assert error.lines == (
        "could not start: agent file agents/none.py does not exist (looked in "
        f"{toy_project / 'agents'}); give a path to a Python file relative to the project folder",
    )
