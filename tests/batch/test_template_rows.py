"""A sweep over a template's instances: each instance a row, and the template pooled apart."""

from __future__ import annotations

from pathlib import Path

import silo
from silo.batch.summary import summarize

PROJECT = Path(__file__).resolve().parents[2]


def test_instances_are_pooled_per_template_and_agent(tmp_path: Path) -> None:
    points = [
        silo.Point("crm", f"TASK-010#{n}", agent, agent, silo.Budget())
        for n in range(3)
        for agent in ("solver", "noop")
    ]
    points.append(silo.Point("crm", "TASK-004", "solver", "solver", silo.Budget()))
    silo.run_points(points, 2, project_dir=PROJECT, group_dir=tmp_path / "g", group_id="g")
    summary = summarize(tmp_path / "g")
    assert [r["task"] for r in summary["rows"]].count("TASK-010#1") == 2
    pooled = {row["agent"]: row for row in summary["templates"]}
    assert set(pooled) == {"solver", "noop"}
    assert pooled["solver"]["instances"] == 3 and pooled["solver"]["runs"] == 6
    assert pooled["solver"]["passRate"] == 1.0 and pooled["solver"]["passHatK"] == {
        "1": 1.0,
        "2": 1.0,
    }
    assert pooled["noop"]["passes"] == 0 and pooled["noop"]["passHatK"]["2"] == 0.0
    assert pooled["noop"]["template"] == "TASK-010" and pooled["noop"]["environment"] == "crm"


def test_a_group_without_instances_has_no_templates_key(tmp_path: Path) -> None:
    points = [silo.Point("crm", "TASK-004", "solver", "solver", silo.Budget())]
    silo.run_points(points, 1, project_dir=PROJECT, group_dir=tmp_path / "g", group_id="g")
    assert "templates" not in summarize(tmp_path / "g")
