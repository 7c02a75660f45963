"""silo-regrade end to end: record a sweep, change a verifier (or the data) on purpose, and the
re-grade lists exactly the runs whose verdict flipped, with diverged replays apart."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, script

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))

import fake_openai  # noqa: E402

SIGNED = 'float(facts.get("signedAmount", -1))) <= 0.01,'


def _run(project: Path, name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [script(name), *args], cwd=project, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    """A project with a copy of the CRM and a recorded sweep of 12 runs in runs/sweep."""
    project = tmp_path / "project"
    shutil.copytree(
        REPO / "environments" / "crm", project / "environments" / "crm",
        ignore=shutil.ignore_patterns("__pycache__"),
    )  # fmt: skip
    proc = _run(
        project, "silo-run", "-m", "env=crm", "task=TASK-010,TASK-011", "variant=0-5",
        f"runs_dir={project / 'runs' / 'sweep'}", "progress=false",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return project


def _tasks_by(project: Path, actor: str) -> set[str]:
    found = set()
    for run_json in (project / "runs" / "sweep").rglob("run.json"):
        task = json.loads(run_json.read_text())["task"]
        if task.get("template") == "TASK-010" and task["params"]["actorId"] == actor:
            found.add(task["id"])
    return found


def test_a_changed_verifier_flips_exactly_the_runs_it_grades_differently(recorded: Path) -> None:
    verifiers = recorded / "environments" / "crm" / "verifiers.py"
    text = verifiers.read_text()
    assert text.count(SIGNED) == 1
    # Now USR-002's signed wins must be booked one dollar higher: only those runs flip.
    changed = SIGNED.replace(")) <= 0.01", ') - (facts.get("actorId") == "USR-002")) <= 0.01')
    verifiers.write_text(text.replace(SIGNED, changed))
    expected = _tasks_by(recorded, "USR-002")
    assert expected and len(expected) < 6
    out = recorded / "regraded"
    proc = _run(recorded, "silo-regrade", "runs/sweep", f"out={out}", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    flipped = {row["task"] for row in report["runs"] if row["status"] == "flipped"}
    assert flipped == expected
    assert report["counts"] == {
        "flipped": len(expected), "changed": 0, "diverged": 0, "error": 0,
        "same": 12 - len(expected),
    }  # fmt: skip
    for row in report["runs"]:
        run = json.loads((Path(row["regraded"]) / "run.json").read_text())
        assert run["regradeOf"] == str((recorded / "runs" / "sweep" / row["original"]).resolve())
        if row["status"] == "flipped":
            assert row["checks"] == [
                {"label": "The deal is booked at the signed amount", "before": True, "after": False}
            ]
    assert json.loads((out / "regrade.json").read_text()) == report
    text_proc = _run(recorded, "silo-regrade", "runs/sweep", "fail_on_flip=true")
    assert text_proc.returncode == 1
    heads = [line.split()[1] for line in text_proc.stdout.splitlines() if line.startswith("FLIP")]
    assert sorted(heads) == sorted(f"crm/{t}" for t in expected)


def test_a_replay_that_diverges_is_listed_apart(recorded: Path) -> None:
    data = recorded / "environments" / "crm" / "data" / "opportunities.json"
    rows = json.loads(data.read_text())
    for row in rows:
        row["name"] = row["name"] + " (renamed)"  # every get_opportunity result differs now
    data.write_text(json.dumps(rows))
    proc = _run(recorded, "silo-regrade", "runs/sweep", f"out={recorded / 'regraded'}")
    assert proc.returncode == 0, proc.stderr
    assert "replay diverged" in proc.stdout
    assert "DIVERGED  crm/TASK-010#" in proc.stdout
    assert "FLIPPED" not in proc.stdout


def test_a_folder_without_runs_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "environments").mkdir()
    (tmp_path / "empty").mkdir()
    proc = _run(tmp_path, "silo-regrade", "empty")
    assert proc.returncode == 2
    assert "holds no finished run" in proc.stderr and len(proc.stderr.splitlines()) == 1


def test_judges_grade_the_rubric_apart_from_the_checks(recorded: Path) -> None:
    proc = _run(recorded, "silo-regrade", "runs/sweep", "judge=scripted", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["runs"]
    judged = {row["task"]: row["judged"] for row in rows}
    assert judged["TASK-011#0"] == {
        "passed": 2, "failed": 0, "abstained": 0, "agreement": 1.0, "judgeErrors": []
    }  # fmt: skip
    assert judged["TASK-010#0"]["passed"] == 0  # no rubric on that template
    assert all(row["status"] == "same" for row in rows)  # checks and verdicts as recorded
    for row in rows:
        assert (Path(row["regraded"]) / "judgement.json").is_file()
    text = _run(recorded, "silo-regrade", "runs/sweep", "judge=scripted")
    assert "judged items (apart from the checks): 12 pass, 0 fail over 12 runs" in text.stdout
    refused = _run(recorded, "silo-regrade", "runs/sweep", "judge=openai")
    assert refused.returncode == 2 and "judge=openai needs judge.model=" in refused.stderr
    verdict = json.dumps({"verdict": "pass", "reason": "fine"})
    with fake_openai.FakeOpenAI([fake_openai.final(verdict)]) as server:
        modelled = _run(recorded, "silo-regrade", "runs/sweep", "judge=openai", "judge.model=m",
                        f"judge.base_url={server.base_url}")  # fmt: skip
    assert modelled.returncode == 0, modelled.stderr
    assert "judged items (apart from the checks): 12 pass, 0 fail over 12 runs" in modelled.stdout
    assert len(server.requests) == 12  # two items in each of the six rubric runs
