"""The combined reward: opt-in per task, recorded in judgement.json and run.json, while
result.json keeps the checks' own reward; a malformed formula is one line."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import silo
from silo.batch.judging import judge_run_dirs
from silo.errors import TaskError
from silo.judges import judge_run
from silo.judges.judgement import resolve_judges
from silo.judges.reward import combine, combined_formula, judged_task
from silo.tasks import Task

PROJECT = Path(__file__).resolve().parents[2]


def _with(task: Task, formula: Any) -> Task:
    return dataclasses.replace(task, extra={**task.extra, "combinedReward": formula})


def test_a_task_without_a_formula_keeps_the_checks_reward(tmp_path: Path) -> None:
    run = silo.run_task(env="crm", task="TASK-007", agent="solver", project_dir=PROJECT,
                        runs_dir=tmp_path)  # fmt: skip
    assert run.run_dir is not None
    document = judge_run(run.run_dir, run.task, resolve_judges(["scripted"]))
    assert "combinedReward" not in document
    assert "combinedReward" not in json.loads((run.run_dir / "run.json").read_text())


def test_the_formula_mixes_checks_and_judged_items_outside_result_json(tmp_path: Path) -> None:
    run = silo.run_task(env="crm", task="TASK-007", agent="noop", project_dir=PROJECT,
                        runs_dir=tmp_path)  # fmt: skip
    assert run.run_dir is not None
    result = (run.run_dir / "result.json").read_bytes()
    checks = json.loads(result)["reward"]
    task = _with(run.task, {"checks": 0.75, "judged": 0.25})
    document = judge_run(run.run_dir, task, resolve_judges(["scripted"]))
    expected = {"formula": "0.75 * checks + 0.25 * judged", "checks": checks, "judged": 0.0,
                "reward": round(0.75 * checks, 6)}  # fmt: skip
    assert document["combinedReward"] == expected
    assert json.loads((run.run_dir / "run.json").read_text())["combinedReward"] == expected
    assert (run.run_dir / "result.json").read_bytes() == result


def test_no_graded_item_gives_no_combined_reward() -> None:
    formula = combined_formula(_with(silo.load_environment("crm", PROJECT).task("TASK-007"),
                                     {"checks": 0.5, "judged": 0.5}))  # fmt: skip
    assert formula is not None
    assert combine(formula, 1.0, 0, 0) == {
        "formula": "0.5 * checks + 0.5 * judged", "checks": 1.0, "judged": None, "reward": None
    }  # fmt: skip
    assert combine(formula, 1.0, 1, 1)["reward"] == 0.75


@pytest.mark.parametrize(
    "formula",
    [{"checks": 0.5}, {"checks": 0.5, "judged": 0.6}, {"checks": -1, "judged": 2},
     {"checks": "1", "judged": 0}, "0.8*checks", {"checks": 1, "judged": 0, "x": 0}],
)  # fmt: skip
def test_a_malformed_formula_is_one_line_naming_the_file(formula: Any) -> None:
    task = silo.load_environment("crm", PROJECT).task("TASK-007")
    with pytest.raises(TaskError, match=r'TASK-007.json: "combinedReward" must be'):
        combined_formula(_with(task, formula))


def _project_with_formula(tmp_path: Path, formula: Any) -> Path:
    project = tmp_path / "project"
    shutil.copytree(PROJECT / "environments" / "crm", project / "environments" / "crm",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    manifest = project / "environments" / "crm" / "silo.environment.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "combinedReward": formula}))
    return project


def test_an_environments_formula_applies_to_tasks_without_their_own(tmp_path: Path) -> None:
    project = _project_with_formula(tmp_path, {"checks": 0.5, "judged": 0.5})
    run = silo.run_task(env="crm", task="TASK-007", agent="solver", project_dir=project,
                        runs_dir=tmp_path / "runs")  # fmt: skip
    assert run.run_dir is not None
    counts = judge_run_dirs([run.run_dir], project, resolve_judges(["scripted"]))
    assert counts["passed"] == 2
    judgement = json.loads((run.run_dir / "judgement.json").read_text())
    assert judgement["combinedReward"] == {
        "formula": "0.5 * checks + 0.5 * judged", "checks": 1.0, "judged": 1.0, "reward": 1.0
    }  # fmt: skip
    environment = silo.load_environment("crm", project)
    own = _with(environment.task("TASK-007"), {"checks": 1, "judged": 0})
    assert judged_task(own, environment) is own  # a task's own formula wins


def test_an_environments_malformed_formula_names_its_manifest(tmp_path: Path) -> None:
    project = _project_with_formula(tmp_path, {"checks": 2, "judged": 0})
    environment = silo.load_environment("crm", project)
    with pytest.raises(TaskError, match=r'crm/silo.environment.json: "combinedReward" must be'):
        judged_task(environment.task("TASK-007"), environment)
