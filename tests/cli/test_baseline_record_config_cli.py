"""silo-baseline record lists what it recorded in silo-baselines.yaml; check alone reruns it."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.cli._console import run
from tests.cli._helpdesk import helpdesk_project

RANDOM = ("env=helpdesk", "agent=random", "seed=7", "agent.calls=50")


def _config(project: Path) -> list[dict[str, object]]:
    text = (project / "baselines" / "silo-baselines.yaml").read_text()
    return list(yaml.safe_load(text)["baselines"])


def test_record_creates_the_config_with_its_overrides_and_check_reproduces_it(
    tmp_path: Path,
) -> None:
    project = helpdesk_project(tmp_path)
    record = run("silo-baseline", project, "record", *RANDOM)
    assert record.returncode == 0, record.stderr
    assert record.stdout.splitlines()[-1] == (
        "baselines/silo-baselines.yaml: added "
        "{env: helpdesk, agent: random, overrides: [seed=7, agent.calls=50]}"
    )
    assert _config(project) == [
        {"env": "helpdesk", "agent": "random", "overrides": ["seed=7", "agent.calls=50"]}
    ]
    check = run("silo-baseline", project, "check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.splitlines()[-1] == "check: 2 ok, 0 DRIFT, 0 MISSING, 0 STALE"


def test_record_extends_the_config_keeping_its_comments_and_says_nothing_when_listed(
    tmp_path: Path,
) -> None:
    project = helpdesk_project(tmp_path)
    assert run("silo-baseline", project, "record", *RANDOM).returncode == 0
    config = project / "baselines" / "silo-baselines.yaml"
    config.write_text("# ours\n" + config.read_text())
    solver = run("silo-baseline", project, "record", "agent=solver", "task=TASK-001")
    assert solver.returncode == 0, solver.stderr
    assert config.read_text().startswith("# ours\n")
    assert _config(project)[1] == {"env": "helpdesk", "agent": "solver", "tasks": ["TASK-001"]}
    again = run("silo-baseline", project, "record", *RANDOM)
    assert again.stdout.splitlines()[-1] == "record: 0 created, 0 changed, 2 same"
    assert run("silo-baseline", project, "check").returncode == 0


def test_recording_an_entry_with_other_overrides_replaces_it(tmp_path: Path) -> None:
    project = helpdesk_project(tmp_path)
    assert run("silo-baseline", project, "record", *RANDOM).returncode == 0
    other = run("silo-baseline", project, "record", "env=helpdesk", "agent=random", "seed=8")
    assert other.returncode == 0, other.stderr
    assert "baselines/silo-baselines.yaml: updated" in other.stdout
    assert _config(project) == [
        {"env": "helpdesk", "agent": "random", "overrides": ["agent.calls=50", "seed=8"]}
    ]
    assert run("silo-baseline", project, "check").returncode == 0


def test_a_record_that_fails_writes_no_config(tmp_path: Path) -> None:
    project = helpdesk_project(tmp_path)
    proc = run("silo-baseline", project, "record", "env=helpdesk", "agent=solver", "task=NOPE")
    assert proc.returncode == 2
    assert not (project / "baselines" / "silo-baselines.yaml").exists()
