"""summary.json rows pinned to hand-computed values: one-run cells, mixed cells, agent rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from silo.batch.summary import Rollout, agent_rows, cell_row, group_cells, load_group, pass_hat_k


def _rollout(task: str, agent: str, passed: bool, reward: float, calls: int, reason: str = "completed", resumed: bool = False) -> Rollout:  # fmt: skip
    run: Any = {"environment": "toy", "taskId": task, "agent": agent}
    result: Any = {
        "passed": passed,
        "reward": reward,
        "toolCalls": calls,
        "terminationReason": reason,
    }
    return Rollout(Path("/nowhere"), run, result, resumed)


def test_a_one_run_cell_has_pass_hat_1_equal_to_its_outcome() -> None:
    (passed,) = [cell_row(("toy", "T1", "a"), [_rollout("T1", "a", True, 1.0, 3)])]
    failed = cell_row(("toy", "T2", "a"), [_rollout("T2", "a", False, 0.25, 0)])
    assert passed["passHatK"] == {"1": 1.0} and failed["passHatK"] == {"1": 0.0}
    assert (passed["runs"], passed["passes"], passed["passRate"]) == (1, 1, 1.0)
    assert (failed["runs"], failed["passes"], failed["passRate"]) == (1, 0, 0.0)
    assert failed["meanReward"] == 0.25 and failed["meanToolCalls"] == 0.0
    assert pass_hat_k(1, 1, 1) == 1.0 and pass_hat_k(0, 1, 1) == 0.0 and pass_hat_k(1, 1, 2) == 0.0


def test_a_mixed_cell_row_is_the_hand_computed_one() -> None:
    items = [
        _rollout("T1", "a", True, 1.0, 4),
        _rollout("T1", "a", False, 0.5, 3, "max_tool_calls"),
        _rollout("T1", "a", True, 1.0, 2, resumed=True),
    ]
    assert cell_row(("toy", "T1", "a"), items) == {
        "environment": "toy",
        "task": "T1",
        "agent": "a",
        "rollouts": 3,
        "runs": 3,
        "passes": 2,
        "passRate": 0.6667,
        "meanReward": 0.8333,
        "meanToolCalls": 3.0,
        "environmentErrors": 0,
        "modelErrors": 0,
        "couldNotStart": 0,
        "terminationReasons": {"completed": 2, "max_tool_calls": 1},
        "resumed": 1,
        # C(2,1)/C(3,1) = 2/3; C(2,2)/C(3,2) = 1/3; C(2,3) = 0
        "passHatK": {"1": 0.6667, "2": 0.3333, "3": 0.0},
    }


def test_agent_rows_average_over_tasks_up_to_the_fewest_runs() -> None:
    rollouts = [
        _rollout("T1", "a", True, 1.0, 1),
        _rollout("T1", "a", True, 1.0, 1),
        _rollout("T2", "a", False, 0.0, 1),
        _rollout("T2", "a", True, 1.0, 1),
        _rollout("T1", "b", False, 0.0, 1),
    ]
    rows = [cell_row(cell, items) for cell, items in group_cells(rollouts).items()]
    assert [(r["task"], r["agent"]) for r in rows] == [("T1", "a"), ("T1", "b"), ("T2", "a")]
    assert agent_rows(rows) == [
        # T1: 2/2 passes, T2: 1/2 -> pass^1 = (1 + 0.5) / 2; pass^2 = (1 + 0) / 2
        {
            "agent": "a",
            "tasks": 2,
            "runs": 4,
            "passes": 3,
            "notGraded": 0,
            "passHatK": {"1": 0.75, "2": 0.5},
        },
        {"agent": "b", "tasks": 1, "runs": 1, "passes": 0, "notGraded": 0, "passHatK": {"1": 0.0}},
    ]


def test_agent_pass_hat_k_is_rounded_to_four_places() -> None:
    rollouts = [_rollout("T1", "a", passed, 1.0 * passed, 1) for passed in (True, False, False)]
    rows = [cell_row(cell, items) for cell, items in group_cells(rollouts).items()]
    assert rows[0]["passHatK"] == {"1": 0.3333, "2": 0.0, "3": 0.0}
    assert agent_rows(rows)[0]["passHatK"] == {"1": 0.3333, "2": 0.0, "3": 0.0}


@pytest.mark.parametrize("other", ["aa-earlier", "zz-later"])
def test_rollouts_listed_in_resumed_jsonl_are_marked_resumed(tmp_path: Path, other: str) -> None:
    group = tmp_path / "mm-group"
    for folder in (group / "run_1", tmp_path / other / "run_0"):
        folder.mkdir(parents=True)
        (folder / "run.json").write_text('{"environment": "toy", "taskId": "T1", "agent": "a"}')
        (folder / "result.json").write_text('{"passed": true}')
    (group / "resumed.jsonl").write_text(json.dumps({"runDir": str(tmp_path / other / "run_0")}))
    loaded = load_group(group)
    assert [(r.folder.name, r.resumed) for r in loaded] == [("run_1", False), ("run_0", True)]


def test_not_graded_rollouts_stay_out_of_the_rates_and_pass_hat_k() -> None:
    broken: Any = {"environment": "toy", "taskId": "T1", "agent": "a", "environmentError": "bug"}
    items = [
        _rollout("T1", "a", True, 1.0, 2),
        _rollout("T1", "a", False, 0.0, 1, "model_error"),
        Rollout(Path("/nowhere"), broken, _rollout("T1", "a", False, 0.0, 5).result),
        _rollout("T1", "a", False, 0.5, 4),
    ]
    row = cell_row(("toy", "T1", "a"), items, [{"outcome": "couldNotStart", "error": "x"}])
    assert (row["rollouts"], row["runs"], row["passes"]) == (5, 2, 1)
    assert (row["environmentErrors"], row["modelErrors"], row["couldNotStart"]) == (1, 1, 1)
    assert (row["passRate"], row["meanReward"], row["meanToolCalls"]) == (0.5, 0.75, 3.0)
    assert row["passHatK"] == {"1": 0.5, "2": 0.0}
    (agent,) = agent_rows([row])
    assert (agent["runs"], agent["notGraded"], agent["passHatK"]) == (2, 3, {"1": 0.5, "2": 0.0})


def test_a_cell_with_nothing_graded_has_no_rates() -> None:
    row = cell_row(("toy", "T1", "a"), [_rollout("T1", "a", False, 0.0, 1, "model_error")])
    assert (row["rollouts"], row["runs"], row["modelErrors"]) == (1, 0, 1)
    assert (row["passRate"], row["meanReward"], row["meanToolCalls"]) == (None, None, None)
    assert row["passHatK"] == {} and agent_rows([row])[0]["tasks"] == 0
