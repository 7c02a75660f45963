"""silo.batch.compare: regressions, fixes, rate changes, flipped checks, state-diff rows, pass^k."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from silo import SiloError
from silo.batch.compare import compare, state_diff_changes
from silo.batch.summary import summarize
from silo.batch.sweep import Point, run_points
from silo.loading.environment import load_environment
from silo.rollout.run import Budget


def make_group(project: Path, name: str, points: list[Point], runs: int = 1) -> Path:
    """Run ``points`` × ``runs`` into ``.silo/runs/<name>`` (summary.json too) and return it."""
    group = project / ".silo" / "runs" / name
    run_points(points, runs, project_dir=project, group_dir=group, group_id=name, progress=False)
    (group / "summary.json").write_text(json.dumps(summarize(group)), encoding="utf-8")
    return group


def point(task: str, agent: Any, label: str) -> Point:
    return Point("toy", task, agent, label, Budget(), seed=0)


def break_bump(project: Path) -> None:
    """Edit the toy env so that ``bump`` finds no counter (a broken tool), and reload it."""
    env_py = project / "environments" / "toy" / "env.py"
    source = env_py.read_text(encoding="utf-8")
    broken = source.replace('row = state["counters"].get(args["id"])', "row = None")
    assert broken != source
    env_py.write_text(broken, encoding="utf-8")
    load_environment("toy", project, reload=True)


def _even_seeds(inp: Any) -> str:
    """Passes TASK-001 on even seeds only: 2 passes out of seeds 0..3."""
    if inp.seed % 2 == 0:
        inp.call_tool("bump", {"id": "C-1"})
        inp.call_tool("bump", {"id": "C-1"})
    return f"seed {inp.seed}"


def _bump_c2(inp: Any) -> str:
    inp.call_tool("bump", {"id": "C-2"})
    return "C-2 bumped"


def _cell(comparison: Any, task: str, agent: str) -> dict[str, Any]:
    (found,) = [c for c in comparison.cells if c["task"] == task and c["agent"] == agent]
    return found


def test_broken_tool_is_a_regression_with_flipped_checks_and_state_rows(
    toy_project: Path,
) -> None:
    points = [point("TASK-001", "solver", "solver"), point("TASK-003", "noop", "noop")]
    make_group(toy_project, "before", points)
    break_bump(toy_project)
    make_group(toy_project, "after", points)

    comparison = compare("before", "after", toy_project)
    cell = _cell(comparison, "TASK-001", "solver")
    assert cell["status"] == "regression"
    assert comparison.regressed == [cell]
    assert cell["delta"]["passRate"] == -1.0 and cell["delta"]["runs"] == 0
    detail = cell["detail"]
    flipped = {c["label"]: (c["a"], c["b"]) for c in detail["checks"]}
    assert flipped["C-1 went up by 2"] == (True, False)
    assert "C-2 untouched" not in flipped  # passed on both sides
    assert {"passed", "reward", "terminationReason"} <= set(detail["resultFields"])
    changes = {c["path"]: (c["onlyA"], c["onlyB"]) for c in detail["stateDiff"]}
    assert changes == {
        "counters.changed": (["C-1"], []),
        "log.added": (["LOG-001", "LOG-002"], []),
        "seq.changed": (["LOG"], []),
    }
    noop = _cell(comparison, "TASK-003", "noop")
    assert noop["status"] == "same" and noop["detail"] is None  # identical results

    reverse = compare("after", "before", toy_project)
    assert _cell(reverse, "TASK-001", "solver")["status"] == "fix"
    assert reverse.regressed == []
    assert reverse.counts()["fix"] == 1 and reverse.counts()["same"] == 1


def test_rates_only_cells_and_pass_hat_k(toy_project: Path) -> None:
    a = make_group(
        toy_project,
        "ref",
        [point("TASK-001", "solver", "solver"), point("TASK-003", "noop", "noop")],
        runs=3,
    )
    b = make_group(
        toy_project,
        "cand",
        [point("TASK-001", _even_seeds, "solver"), point("TASK-002", "noop", "noop")],
        runs=4,
    )
    comparison = compare(a, b, toy_project)  # paths work as well as names
    assert [(c["task"], c["agent"], c["status"]) for c in comparison.cells] == [
        ("TASK-001", "solver", "worse"),
        ("TASK-002", "noop", "onlyB"),
        ("TASK-003", "noop", "onlyA"),
    ]
    worse = comparison.cells[0]
    reward = round(worse["b"]["meanReward"] - worse["a"]["meanReward"], 4)
    assert worse["delta"] == {
        "rollouts": 1,
        "runs": 1,
        "passRate": -0.5,
        "meanReward": reward,
        "meanToolCalls": -1.0,
        "modelErrors": 0,
        "environmentErrors": 0,
    }
    assert worse["detail"] is None  # several runs a side: rates, not single results
    assert [c["task"] for c in comparison.regressed] == ["TASK-001"]
    only_a = comparison.cells[2]
    assert only_a["b"] is None and only_a["delta"] is None

    # each side's rows are exactly its summary.json rows
    rows_a = {(r["task"], r["agent"]): r for r in summarize(a)["rows"]}
    assert (
        worse["a"] == rows_a[("TASK-001", "solver")] and only_a["a"] == rows_a[("TASK-003", "noop")]
    )

    solver = next(x for x in comparison.agents if x["agent"] == "solver")
    # A: 3 of 3 pass; B: 2 of 4 → C(2,k)/C(4,k) = 1/2, 1/6, 0 (and k=4 only B has)
    assert solver["passHatK"] == {
        "1": {"a": 1.0, "b": 0.5, "delta": -0.5},
        "2": {"a": 1.0, "b": 0.1667, "delta": -0.8333},
        "3": {"a": 1.0, "b": 0.0, "delta": -1.0},
    }
    assert compare(b, a, toy_project).cells[0]["status"] == "better"


def test_single_run_folders_and_state_rows_on_both_sides(toy_project: Path) -> None:
    a = make_group(toy_project, "a", [point("TASK-001", "solver", "mine")])
    b = make_group(toy_project, "b", [point("TASK-001", _bump_c2, "mine")])
    (run_a,) = [p.parent for p in a.glob("*/run.json")]
    (run_b,) = [p.parent for p in b.glob("*/run.json")]
    comparison = compare(run_a, run_b, toy_project)
    assert (comparison.a.kind, comparison.b.kind) == ("run", "run")
    (cell,) = comparison.cells
    assert cell["status"] == "regression"
    flipped = {c["label"]: (c["a"], c["b"]) for c in cell["detail"]["checks"]}
    assert flipped["C-1 went up by 2"] == (True, False)
    assert flipped["C-2 untouched"] == (True, False)
    changes = {c["path"]: (c["onlyA"], c["onlyB"]) for c in cell["detail"]["stateDiff"]}
    assert changes == {"counters.changed": (["C-1"], ["C-2"]), "log.added": (["LOG-002"], [])}
    document = comparison.to_json()
    assert document["regressed"] == 1 and document["a"]["kind"] == "run"
    assert json.loads(json.dumps(document)) == document


def test_state_diff_changes_scalars_and_missing_diffs() -> None:
    now = {"field": "now", "from": "2026-01-01", "to": "2026-01-02", "change": "changed"}
    diff_a = {"scalars": [now], "collections": {"log": {"added": ["LOG-001"]}}}
    diff_b = {"scalars": [{**now, "to": "2026-01-03"}], "collections": {}}
    assert state_diff_changes(diff_a, diff_b) == [
        {"path": "log.added", "onlyA": ["LOG-001"], "onlyB": []},
        {"path": "scalars", "onlyA": ["now"], "onlyB": ["now"]},
    ]
    assert state_diff_changes(diff_a, diff_a) == []
    assert state_diff_changes(diff_a, None) is None


def test_user_mistakes_raise_silo_errors(toy_project: Path) -> None:
    group = make_group(toy_project, "g", [point("TASK-001", "solver", "solver")])
    with pytest.raises(SiloError, match='no folder "nope"') as missing:
        compare("g", "nope", toy_project)
    assert missing.value.code == "compare_folder_not_found"
    with pytest.raises(SiloError, match="holds no finished rollout") as empty:
        compare("g", toy_project / "environments", toy_project)
    assert empty.value.code == "compare_no_rollouts"
    (run_json,) = group.glob("*/run.json")
    run_json.write_text('{"runId": "x"}', encoding="utf-8")
    with pytest.raises(SiloError, match="is not a Silo rollout") as bad:
        compare(group, group, toy_project)
    assert bad.value.code == "compare_bad_rollout"


def test_single_run_detail_shows_where_two_conversations_part(tmp_path: Path) -> None:
    from silo.batch.compare import conversation_line
    from silo.rollout.run import run_task

    repo = Path(__file__).resolve().parents[2]

    def asks_late(inp: Any) -> str:
        inp.user.send("Hello, how can I help?")
        return "ok"

    side_a, side_b = (
        run_task("crm", "TASK-007", agent, project_dir=repo, runs_dir=tmp_path / side,
                 agent_label="candidate")
        for agent, side in (("solver", "a"), (asks_late, "b"))
    )  # fmt: skip
    assert side_a.run_dir is not None and side_b.run_dir is not None
    found = compare(side_a.run_dir, side_b.run_dir, repo)
    (cell,) = [c for c in found.cells if c["detail"] is not None]
    talk = cell["detail"]["conversation"]
    assert talk["firstDifference"] == 1 and talk["a"][0] == talk["b"][0]
    assert conversation_line(talk) == (
        "conversation differs at message 1: A 'agent: Which company are you with, and which "
        "deal do you mean?' | B 'agent: Hello, how can I help?'"
    )
