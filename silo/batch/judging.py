"""Judging the runs of a folder after they ran: ``silo-run judge=...``'s last step.

Contract: :func:`judge_folder` has the judges grade the rubric of every finished run in a run,
group or sweep folder whose task has one, writing each run's ``judgement.json``
(:func:`silo.judges.judge_run`, cached under ``<project>/.silo/judge-cache``), and returns the
counts ``{"runs", "passed", "failed", "abstained"}`` over the judged items — reported apart
from the checks, which judging never changes (:func:`judge_run_dirs`: the same for given run
folders), with the environment's ``combinedReward`` for tasks that declare none
(:func:`silo.judges.reward.judged_task`) — and ``judgeErrors``, the distinct lines of the
judges that failed (a model judge's endpoint: the judge's failure, not the agent's).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from silo.batch.regrade import find_runs
from silo.judges.judgement import judge_runs
from silo.judges.reward import judged_task
from silo.judges.rubric import Judge, rubric_items
from silo.loading.environment import load_environment

__all__ = ["judge_folder", "judge_run_dirs", "judged_line"]


def judge_folder(folder: Path, project: Path, judges: Sequence[Judge]) -> dict[str, Any]:
    """Judge every run in ``folder`` whose task has a rubric, all at once; the summed counts."""
    return judge_run_dirs(find_runs(folder), project, judges)


def judge_run_dirs(
    run_dirs: Iterable[Path], project: Path, judges: Sequence[Judge]
) -> dict[str, Any]:
    """:func:`judge_folder` for the finished run folders given (a sweep job's own runs)."""
    runs = []
    for run_dir in run_dirs:
        if not (run_dir / "run.json").is_file() or not (run_dir / "result.json").is_file():
            continue  # never finished: nothing to judge
        run = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
        environment = load_environment(run["environment"], project)
        task = environment.task(run["taskId"])
        if rubric_items(task):
            runs.append((run_dir, judged_task(task, environment)))
    documents = judge_runs(runs, judges, project / ".silo" / "judge-cache")
    counts: dict[str, Any] = {"runs": len(documents), "passed": 0, "failed": 0, "abstained": 0}
    errors: list[str] = []
    for document in documents:
        for key in ("passed", "failed", "abstained"):
            counts[key] += int(document[key])
        errors += [e for e in document["judgeErrors"] if e not in errors]
    return {**counts, "judgeErrors": errors}


def judged_line(counts: dict[str, Any]) -> str:
    """The line ``silo-run`` prints under its report: judged items, apart from the checks."""
    return (
        f"judged items (apart from the checks): {counts['passed']} pass, {counts['failed']} "
        f"fail, {counts['abstained']} abstain over {counts['runs']} run(s)"
    )
