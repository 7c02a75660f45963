"""Hydra's value-less flags may sit anywhere on a ``silo-run`` command line."""

from __future__ import annotations

import json
from pathlib import Path

from silo.cli.run import flags_first
from tests.cli._console import run


def test_flags_move_first_and_everything_else_keeps_its_order() -> None:
    argv = ["env=crm", "-m", "task=A,B", "--config-dir", "d", "--multirun", "x=1"]
    assert flags_first(argv) == [
        "-m",
        "--multirun",
        "env=crm",
        "task=A,B",
        "--config-dir",
        "d",
        "x=1",
    ]


def test_dash_m_after_an_override_sweeps_like_dash_m_first(toy_project: Path) -> None:
    # Before: Hydra's usage page and "unrecognized arguments: task=TASK-001 agent=solver,noop".
    late = run("silo-run", toy_project, "env=toy", "-m", "task=TASK-001", "agent=solver,noop")
    early = run("silo-run", toy_project, "-m", "env=toy", "task=TASK-001", "agent=solver,noop")
    assert (late.returncode, early.returncode) == (1, 1), late.stderr
    assert "usage:" not in late.stderr
    summaries = sorted((toy_project / ".silo" / "runs").glob("sweep_*/summary.json"))
    counts = [json.loads(path.read_text())["rollouts"] for path in summaries]
    assert counts == [2, 2]
