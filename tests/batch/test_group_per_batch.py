"""Each run_points call is a batch of its own: an earlier batch's group is continued only by resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from silo import SiloError
from silo.batch.summary import summarize
from silo.batch.sweep import Point, run_points
from silo.rollout.run import Budget


def _batch(project: Path, group: Path, resume: bool = False) -> int:
    points = [Point("toy", "TASK-001", "solver", "solver", Budget())]
    outcomes = run_points(
        points, 3, project_dir=project, group_dir=group, group_id=group.name, resume=resume,
        progress=False,
    )  # fmt: skip
    return len(outcomes)


def test_a_second_batch_into_the_same_group_is_refused_and_writes_nothing(
    toy_project: Path,
) -> None:
    group = toy_project / ".silo" / "runs" / "mine"
    _batch(toy_project, group)
    with pytest.raises(SiloError) as refused:
        _batch(toy_project, group)
    assert refused.value.code == "group_not_new"
    assert str(group) in refused.value.message and "resume=True" in refused.value.message
    assert len([d for d in group.iterdir() if d.is_dir()]) == 3
    (row,) = summarize(group)["rows"]
    assert row["runs"] == 3 and row["passHatK"]["3"] == 1.0  # not pass^6 over two batches


def test_resume_continues_the_group_and_counts_each_rollout_once(toy_project: Path) -> None:
    group = toy_project / ".silo" / "runs" / "mine"
    _batch(toy_project, group)
    assert _batch(toy_project, group, resume=True) == 3
    assert len([d for d in group.iterdir() if d.is_dir()]) == 3  # nothing ran again
    (row,) = summarize(group)["rows"]
    assert row["runs"] == 3


def test_a_group_that_recorded_only_infra_errors_is_an_earlier_batch(toy_project: Path) -> None:
    group = toy_project / ".silo" / "runs" / "broken"
    run_points(
        [Point("toy", "TASK-001", "nope_agent", "nope", Budget())], 1, project_dir=toy_project,
        group_dir=group, group_id="broken", progress=False,
    )  # fmt: skip
    assert (group / "infra-errors.jsonl").is_file()
    with pytest.raises(SiloError, match="already holds an earlier batch"):
        _batch(toy_project, group)
