"""A rubric or combined-reward formula a judge would refuse is a validation error, not a
surprise at the first ``silo-run judge=...``."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from silo.validate.report import Report
from tests.conftest import script
from tests.validate.conftest import MakeEnv, task

Check = Callable[..., Report]

GOOD_RUBRIC = [{"id": "R1", "assertion": "The agent says A is 5", "about": "answer"}]
MANIFEST = {"name": "mini", "template": "blank", "entrypoint": "./env.py", "tools": []}


def _errors(report: Report) -> list[str]:
    return [f.message for f in report.findings if f.code == "task_invalid"]


def test_a_sound_rubric_and_formula_are_no_finding(check_env: Check) -> None:
    files = {
        "tasks/TASK-001.json": task(
            rubric=GOOD_RUBRIC, combinedReward={"checks": 0.8, "judged": 0.2}
        )
    }
    report = check_env(files=files)
    assert report.ok and report.findings == [], report.to_text()


def test_a_broken_rubric_and_a_broken_formula_are_each_one_line(check_env: Check) -> None:
    files = {
        "tasks/TASK-001.json": task(
            rubric=[{"id": "R1"}], combinedReward={"checks": 1, "judged": 1}
        )
    }
    report = check_env(files=files)
    assert _errors(report) == [
        "environments/mini/tasks/TASK-001.json: rubric[0] needs an id, an assertion and about: "
        "conversation, answer or changes",
        'environments/mini/tasks/TASK-001.json: "combinedReward" must be {"checks": a, "judged": '
        'b} with weights >= 0 that sum to 1, e.g. {"checks": 0.8, "judged": 0.2}',
    ]
    assert report.exit_status == 1


def test_the_manifests_formula_is_reported_once_for_all_its_tasks(check_env: Check) -> None:
    manifest = {**MANIFEST, "combinedReward": {"checks": 0.5, "judged": 0.6}}
    files = {
        "silo.environment.json": json.dumps(manifest),
        "tasks/TASK-002.json": task("TASK-002"),
    }
    [line] = _errors(check_env(files=files))
    assert line.startswith('environments/mini/silo.environment.json: "combinedReward" must be')


def test_silo_validate_names_the_broken_rubric_and_exits_1(
    make_env: MakeEnv, tmp_path: Path
) -> None:
    make_env(files={"tasks/TASK-001.json": task(rubric="judge it kindly")})
    done = subprocess.run(
        [script("silo-validate"), "env=mini", "deep=false"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "ERROR  task_invalid  environments/mini/tasks/TASK-001.json: rubric must be a list of objects"
        in done.stdout.splitlines()
    )


def test_a_templates_broken_rubric_is_found_in_its_instances(check_env: Check) -> None:
    template = {"parameters": ["value"], "values": [{"value": "5"}, {"value": "6"}]}
    files = {
        "tasks/TASK-002.json": task(
            "TASK-002", instruction="Set item A to {value}.", template=template, rubric={"R1": 1}
        )
    }
    report = check_env(deep=True, files=files)
    assert _errors(report) == [
        "environments/mini/tasks/TASK-002.json: rubric must be a list of objects"
    ], report.to_text()
