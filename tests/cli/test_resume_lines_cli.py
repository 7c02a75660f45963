"""With resume=true the per-job line counts the recorded verdicts and says how many were skipped."""

from __future__ import annotations

from pathlib import Path

from tests.cli._console import run


def test_a_resumed_noop_is_not_reported_as_passing(toy_project: Path) -> None:
    args = ("-m", "env=toy", "task=TASK-001", "agent=noop", "runs=3", "fail_on_error=false")
    first = run("silo-run", toy_project, *args)
    assert first.returncode == 0, first.stderr
    assert "TASK-001 noop: 3 rollouts: 0 passed, 3 failed" in first.stdout
    again = run("silo-run", toy_project, *args, "resume=true")
    assert again.returncode == 0, again.stderr
    assert "TASK-001 noop: 3 rollouts: 0 passed, 3 failed" in again.stdout  # was "3/3 passed"
    assert "resume: 3 of 3 rollouts skipped (already completed)" in again.stdout
