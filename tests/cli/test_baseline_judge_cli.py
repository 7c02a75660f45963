"""silo-baseline with judge=scripted pins each judged task's judgement.json beside its goldens."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.cli._console import run
from tests.conftest import REPO

JUDGED = ("env=crm", "agent=solver", "task=TASK-007,TASK-002", "judge=scripted")


def _project(tmp_path: Path) -> Path:
    """A project of its own holding a copy of the CRM, whose rubric a test may change."""
    project = tmp_path / "project"
    shutil.copytree(REPO / "environments" / "crm", project / "environments" / "crm",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    return project


def test_the_judgement_golden_is_the_bytes_silo_run_writes_and_check_reruns_it(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    record = run("silo-baseline", project, "record", *JUDGED)
    assert record.returncode == 0, record.stderr
    golden = project / "baselines" / "crm" / "solver"
    assert (golden / "TASK-007.judgement.json").is_file()
    assert not (golden / "TASK-002.judgement.json").exists()  # no rubric: nothing to judge
    ran = run("silo-run", project, "env=crm", "agent=solver", "task=TASK-007", "judge=scripted",
              f"runs_dir={tmp_path / 'runs'}")  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    (run_dir,) = (tmp_path / "runs").iterdir()
    written = (run_dir / "judgement.json").read_bytes()
    assert (golden / "TASK-007.judgement.json").read_bytes() == written
    check = run("silo-baseline", project, "check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.splitlines()[-1] == "check: 2 ok, 0 DRIFT, 0 MISSING, 0 STALE"


def test_a_changed_verdict_is_drift_and_a_judgement_without_a_judge_is_stale(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    assert run("silo-baseline", project, "record", *JUDGED).returncode == 0
    task_file = project / "environments" / "crm" / "tasks" / "TASK-007.json"
    task = json.loads(task_file.read_text())
    task["rubric"][0]["scripted"]["askedBefore"]["phrase"] = "a phrase the solver never says"
    task_file.write_text(json.dumps(task, indent=2))
    check = run("silo-baseline", project, "check")
    assert check.returncode == 1, check.stdout + check.stderr
    lines = check.stdout.splitlines()
    assert "DRIFT   crm/solver/TASK-007 judgement.json" in lines
    assert "  root['items'][0]['verdicts'][0]['verdict']: 'pass' -> 'fail'" in lines
    config = project / "baselines" / "silo-baselines.yaml"
    config.write_text(config.read_text().replace(", overrides: [judge=scripted]", ""))
    plain = run("silo-baseline", project, "check")
    assert plain.returncode == 1, plain.stdout + plain.stderr
    assert plain.stdout.splitlines()[-2:] == [
        "STALE   crm/solver/TASK-007 judgement.json (judge is off; delete "
        "baselines/crm/solver/TASK-007.judgement.json)",
        "check: 1 ok, 0 DRIFT, 0 MISSING, 1 STALE",
    ]
