"""Sweeps through silo-run: named sweeps, joblib with 2 workers, resume, exit codes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.test_run_cli import silo_run

REPO = Path(__file__).resolve().parents[2]


def _results_by_point(group: Path) -> dict[tuple[str, str, int], bytes]:
    found = {}
    for run_json in group.glob("*/run.json"):
        run = json.loads(run_json.read_text())
        found[(run["taskId"], run["agent"], run.get("repeat", 0))] = (
            run_json.parent / "result.json"
        ).read_bytes() + (run_json.parent / "state-diff.json").read_bytes()
    return found


def _only_group(project: Path) -> Path:
    (group,) = [p for p in (project / ".silo" / "runs").iterdir() if p.is_dir()]
    return group


@pytest.mark.slow  # a multi-process launcher and the sweep twice
def test_joblib_two_workers_match_the_sequential_sweep(toy_project: Path, tmp_path: Path) -> None:
    grid = [
        "-m",
        "env=toy",
        "task=TASK-001,TASK-003",
        "agent=solver,noop",
        "runs=3",
        "fail_on_error=false",
    ]
    sequential = silo_run(toy_project, *grid)
    assert sequential.returncode == 0, sequential.stderr
    expected = _results_by_point(_only_group(toy_project))
    assert len(expected) == 12
    parallel_project = tmp_path / "parallel"
    parallel_project.mkdir()
    os.rename(toy_project / "environments", parallel_project / "environments")
    proc = silo_run(parallel_project, *grid, "hydra/launcher=joblib", "hydra.launcher.n_jobs=2")
    assert proc.returncode == 0, proc.stderr
    assert "UserWarning" not in proc.stderr  # a project without conf/, composed in each worker
    group = _only_group(parallel_project)
    assert _results_by_point(group) == expected
    pids = {json.loads(p.read_text())["runId"] for p in group.glob("*/run.json")}
    assert len(pids) == 12  # every rollout its own folder
    summary = json.loads((group / "summary.json").read_text())
    assert summary["rollouts"] == 12 and summary["passed"] == 3


def test_failed_rollout_in_a_sweep_exits_one(toy_project: Path) -> None:
    proc = silo_run(toy_project, "-m", "env=toy", "task=TASK-001", "agent=solver,noop")
    assert proc.returncode == 1
    ok = silo_run(toy_project, "-m", "env=toy", "task=TASK-001", "agent=solver")
    assert ok.returncode == 0, ok.stderr


def test_bad_point_in_a_sweep_is_an_infrastructure_failure(toy_project: Path) -> None:
    proc = silo_run(toy_project, "-m", "env=toy", "task=TASK-001,TASK-404", "agent=solver")
    assert proc.returncode == 2  # a point could not start
    assert 'unknown task "TASK-404"' in proc.stderr
    summary = json.loads((_only_group(toy_project) / "summary.json").read_text())
    assert (summary["rollouts"], summary["graded"], summary["passed"]) == (2, 1, 1)
    assert summary["couldNotStart"] == 1 and len(summary["notGraded"]) == 1
    assert "  TASK-404 solver: could not start: " in proc.stdout
    assert "2 rollouts: 1 passed, 0 failed, 1 could not start" in proc.stdout


def test_resume_skips_what_is_done(toy_project: Path) -> None:
    first = silo_run(toy_project, "env=toy", "task=TASK-001", "runs=2")
    assert first.returncode == 0, first.stderr
    again = silo_run(toy_project, "env=toy", "task=TASK-001", "runs=3", "resume=true")
    assert again.returncode == 0, again.stderr
    groups = sorted((toy_project / ".silo" / "runs").iterdir())
    newest = max(groups, key=lambda p: (p / "summary.json").stat().st_mtime)
    assert len([d for d in newest.iterdir() if d.is_dir()]) == 1
    (row,) = json.loads((newest / "summary.json").read_text())["rows"]
    assert row["runs"] == 3 and row["resumed"] == 2


def test_named_sweep_over_the_crm(tmp_path: Path) -> None:
    proc = silo_run(
        REPO, "-m", "+sweep=crm_all", "runs=1", f"runs_dir={tmp_path}", "fail_on_error=false"
    )
    assert proc.returncode == 0, proc.stderr
    # crm: 9 tasks and instance #0 of its 3 templates, x solver, noop
    assert "24 rollouts: 12 passed, 12 failed" in proc.stdout
