"""Group runs in one process: repeats, seeds, resume, infrastructure failures, pass^k."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from silo import SiloError
from silo.batch.summary import pass_hat_k, summarize
from silo.batch.sweep import Point, expand_tasks, run_points
from silo.rollout.run import Budget


def _even_seed_solver(inp: Any) -> str:
    """Passes TASK-001 on even seeds only: 2 passes out of seeds 0..3."""
    if inp.seed % 2 == 0:
        inp.call_tool("bump", {"id": "C-1"})
        inp.call_tool("bump", {"id": "C-1"})
    return f"seed {inp.seed}"


_even_seed_solver.__module__ = "tests.sweep"


def _point(agent: Any = "solver", task: str = "TASK-001", label: str = "solver") -> Point:
    return Point("toy", task, agent, label, Budget(), seed=0)


def test_pass_hat_k_matches_hand_computed_values(toy_project: Path) -> None:
    group = toy_project / ".silo" / "runs" / "g1"
    outcomes = run_points(
        [_point(_even_seed_solver, label="even")],
        4,
        project_dir=toy_project,
        group_dir=group,
        group_id="g1",
        progress=False,
    )
    assert [o.passed for o in outcomes] == [True, False, True, False]
    seeds = sorted(
        json.loads((d / "run.json").read_text())["config"]["seed"]
        for d in group.iterdir()
        if d.is_dir()
    )
    assert seeds == [0, 1, 2, 3]
    (row,) = summarize(group)["rows"]
    # c = 2 passes of n = 4: C(2,k)/C(4,k) = 2/4, 1/6, 0, 0
    assert row["passHatK"] == {"1": 0.5, "2": 0.1667, "3": 0.0, "4": 0.0}
    assert row["runs"] == 4 and row["passes"] == 2 and row["passRate"] == 0.5


def test_pass_hat_k_edges() -> None:
    assert pass_hat_k(3, 3, 3) == 1.0
    assert pass_hat_k(0, 5, 1) == 0.0
    assert pass_hat_k(4, 5, 2) == pytest.approx(6 / 10)
    assert pass_hat_k(1, 2, 3) == 0.0


def test_infrastructure_failures_are_counted_apart(toy_project: Path) -> None:
    group = toy_project / ".silo" / "runs" / "g2"
    points = [_point(), _point(agent={"path": "missing.py"}, label="missing")]
    outcomes = run_points(
        points, 2, project_dir=toy_project, group_dir=group, group_id="g2", progress=False
    )
    assert [o.infra_error is not None for o in outcomes] == [False, False, True, True]
    assert [o.run_dir is None for o in outcomes] == [False, False, True, True]
    summary = summarize(group)
    assert summary["rollouts"] == 2 and summary["failed"] == 0
    assert len(summary["infraErrors"]) == 2
    assert "missing.py does not exist" in summary["infraErrors"][0]["error"]


def test_resume_skips_completed_points_and_reports_them(toy_project: Path) -> None:
    runs_root = toy_project / ".silo" / "runs"
    first = run_points(
        [_point()],
        2,
        project_dir=toy_project,
        group_dir=runs_root / "a",
        group_id="a",
        runs_root=runs_root,
        progress=False,
    )
    assert not any(o.resumed for o in first)
    second = run_points(
        [_point()],
        3,
        project_dir=toy_project,
        group_dir=runs_root / "b",
        group_id="b",
        runs_root=runs_root,
        resume=True,
        progress=False,
    )
    assert [o.resumed for o in second] == [True, True, False]
    # Resumed outcomes point at the earlier group's run folders; the new one at its own.
    assert [o.run_dir for o in second[:2]] == [o.run_dir for o in first]
    assert second[2].run_dir is not None and second[2].run_dir.parent == runs_root / "b"
    assert (second[2].run_dir / "result.json").is_file()
    assert len([d for d in (runs_root / "b").iterdir() if d.is_dir()]) == 1
    (row,) = summarize(runs_root / "b")["rows"]
    assert row["runs"] == 3 and row["resumed"] == 2


def test_expand_tasks() -> None:
    known = ["TASK-001", "TASK-002", "TASK-010"]
    assert expand_tasks("all", known) == known
    assert expand_tasks("TASK-00?", known) == ["TASK-001", "TASK-002"]
    assert expand_tasks("TASK-002", known) == ["TASK-002"]
    with pytest.raises(SiloError, match='no task matches "X\\*"'):
        expand_tasks("X*", known)


def test_progress_is_quiet_unless_asked(
    toy_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs_root = toy_project / ".silo" / "runs"
    run_points([_point()], 2, project_dir=toy_project, group_dir=runs_root / "q", group_id="q")
    assert capsys.readouterr().err == ""  # not a terminal
    run_points(
        [_point()],
        2,
        project_dir=toy_project,
        group_dir=runs_root / "p",
        group_id="p",
        progress=True,
    )
    err = capsys.readouterr().err
    assert "[1/2] TASK-001 solver #1 PASS" in err and err.endswith(
        "[2/2] TASK-001 solver #2 PASS\n"
    )


def test_table_prints_a_readable_set_of_k() -> None:
    from silo.batch.summary import format_table

    summary = {
        "rows": [],
        "agents": [
            {
                "agent": "a",
                "tasks": 1,
                "runs": 1000,
                "passes": 1000,
                "passHatK": {str(k): 1.0 for k in range(1, 1001)},
            }
        ],
        "infraErrors": [],
        "passed": 1000,
        "rollouts": 1000,
    }
    line = next(x for x in format_table(summary).splitlines() if x.startswith("pass^k"))
    assert line.endswith(
        "k=1:1.00 k=2:1.00 k=3:1.00 k=5:1.00 k=10:1.00 k=20:1.00 k=50:1.00 "
        "k=100:1.00 k=200:1.00 k=500:1.00 k=1000:1.00"
    )
