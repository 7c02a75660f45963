"""Baselines pin state-changes.json and explain its drift field by field (value-only changes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from silo.batch.baseline import Target, check_goldens, record_goldens
from silo.batch.baseline_changes import explain_changes
from silo.batch.baseline_config import load_entries
from silo.batch.sweep import Point
from silo.rollout.run import Budget


def _bumps_by(*steps: int) -> Any:
    """A scripted agent bumping C-1 once per step, by that step."""

    def agent(inp: Any) -> dict[str, Any]:
        for by in steps:
            result = inp.call_tool("bump", {"id": "C-1", "by": by})
        return {"output": f"C-1 is now {result['output']['value']}"}

    return agent


def _target(agent: Any, *, state_changes: bool = True) -> Target:
    point = Point("toy", "TASK-001", agent, "solver", Budget(), 0)
    return Target("toy", "solver", [point], state_changes=state_changes)


def test_a_value_only_change_drifts_state_changes_but_not_state_diff(toy_project: Path) -> None:
    base = toy_project / "baselines"
    created = list(record_goldens(_target(_bumps_by(1, 1)), toy_project, base))
    assert [(o.status, o.files) for o in created] == [("created", ())]
    folder = base / "toy" / "solver"
    assert (folder / "TASK-001.state-changes.json").is_file()
    assert [o.status for o in check_goldens(_target(_bumps_by(1, 1)), toy_project, base)] == ["ok"]

    # Same rows touched, a different value written: the shallow state diff cannot see it.
    out = list(check_goldens(_target(_bumps_by(2, 1)), toy_project, base))
    drifted = {o.files[0]: o.lines for o in out if o.status == "DRIFT"}
    assert "state-diff.json" not in drifted
    assert drifted["state-changes.json"] == ("counters.C-1.value: 3 -> 4",)


def test_an_entry_can_opt_out_and_its_leftover_golden_is_stale(toy_project: Path) -> None:
    base = toy_project / "baselines"
    list(record_goldens(_target(_bumps_by(1, 1)), toy_project, base))
    out = list(check_goldens(_target(_bumps_by(1, 1), state_changes=False), toy_project, base))
    assert [(o.status, o.files, o.note) for o in out] == [
        ("ok", (), ""),
        ("STALE", ("state-changes.json",), "state_changes is off"),
    ]
    config = base / "silo-baselines.yaml"
    config.write_text(
        "baselines:\n  - {env: toy, agent: solver}\n"
        "  - {env: toy, agent: noop, state_changes: false}\n"
    )
    entries = load_entries(config)
    assert entries is not None
    assert [e.state_changes for e in entries] == [True, False]


def test_explanations_name_rows_the_golden_never_touched_and_ones_it_no_longer_sees() -> None:
    def doc(*changes: dict[str, Any]) -> dict[str, Any]:
        return {"changes": list(changes), "omittedChanges": 0}

    stage = {
        "collection": "opportunities",
        "key": "OPP-005",
        "change": "changed",
        "fields": [{"path": "stageEnteredOn", "before": "2026-01-02", "after": "2026-02-10"}],
    }
    wrong = {**stage, "fields": [{**stage["fields"][0], "after": "2026-03-16"}]}
    other = {**stage, "key": "OPP-007"}
    added = {"collection": "auditLog", "key": "AUD-0003", "change": "added", "fields": []}
    assert explain_changes(doc(stage), doc(wrong)) == [
        'opportunities.OPP-005.stageEnteredOn: "2026-02-10" -> "2026-03-16"'
    ]
    assert explain_changes(doc(stage), doc(stage, other, added)) == [
        'opportunities.OPP-007.stageEnteredOn: "2026-01-02" -> "2026-02-10" '
        "(not changed in the golden)",
        "auditLog.AUD-0003: added row (not in the golden)",
    ]
    assert explain_changes(doc(stage, added), doc()) == [
        "opportunities.OPP-005: no longer changed (golden only)",
        "auditLog.AUD-0003: no longer added (golden only)",
    ]
    many = doc(*({**other, "key": f"OPP-{i}"} for i in range(50)))
    lines = explain_changes(doc(), many, limit=3)
    assert lines[-1] == "... and 47 more changed fields" and len(lines) == 4


def test_compare_shows_the_field_level_changes_of_a_differing_cell(toy_project: Path) -> None:
    from silo.batch.compare import compare
    from silo.rollout.run import run_task

    runs = toy_project / ".silo" / "runs"
    a = run_task("toy", "TASK-001", _bumps_by(1, 1), project_dir=toy_project, runs_dir=runs)
    b = run_task("toy", "TASK-001", _bumps_by(2, 1), project_dir=toy_project, runs_dir=runs)
    assert a.run_dir is not None and b.run_dir is not None
    (cell,) = compare(a.run_dir, b.run_dir, toy_project).cells
    assert cell["detail"]["stateDiff"] == []  # the same rows changed
    assert cell["detail"]["stateChanges"] == ["counters.C-1.value: 3 -> 4"]
