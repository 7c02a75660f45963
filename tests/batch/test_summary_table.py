"""The sweep summary table stays aligned whatever the length of task and agent names."""

from __future__ import annotations

from typing import Any

from silo.batch.summary import format_table


def _row(task: str, agent: str) -> dict[str, Any]:
    return {
        "environment": "crm", "task": task, "agent": agent, "rollouts": 2, "runs": 2,
        "passes": 1, "passRate": 0.5, "meanReward": 0.75, "meanToolCalls": 3.0,
        "environmentErrors": 0, "modelErrors": 0, "couldNotStart": 0,
        "terminationReasons": {"completed": 2}, "resumed": 0, "passHatK": {"1": 0.5, "2": 0.0},
    }  # fmt: skip


def test_long_names_widen_their_columns_and_keep_the_numbers_aligned() -> None:
    rows = [
        _row("TASK-001", "solver"),
        _row("A-VERY-LONG-TASK-IDENTIFIER-42", "my_long_agent_name_v2"),
    ]
    summary = {
        "group": "g", "rollouts": 4, "passed": 2, "failed": 2, "notGraded": [], "rows": rows,
        "agents": [
            {"agent": a, "tasks": 1, "runs": 2, "passes": 1, "passHatK": {"1": 0.5, "2": 0.0}}
            for a in ("my_long_agent_name_v2", "solver")
        ],
    }  # fmt: skip
    header, rule, *body = format_table(summary).splitlines()  # type: ignore[arg-type]
    end_of_calls = header.index("calls") + len("calls")
    assert all(line[end_of_calls - 3 : end_of_calls] == "3.0" for line in body[:2]), body
    assert body[1].startswith("A-VERY-LONG-TASK-IDENTIFIER-42 my_long_agent_name_v2 ")
    assert len(rule) == len(header)
    pass_k = [line for line in body if line.startswith("pass^k ")]
    assert len({line.index(" over ") for line in pass_k}) == 1  # agent names padded alike


def test_short_names_keep_the_default_widths() -> None:
    summary = {
        "group": "g", "rollouts": 2, "passed": 1, "failed": 1, "notGraded": [],
        "rows": [_row("TASK-001", "solver")], "agents": [],
    }  # fmt: skip
    header = format_table(summary).splitlines()[0]  # type: ignore[arg-type]
    assert header.startswith("task          agent        runs")


def test_not_graded_rollouts_have_their_reasons_grouped_under_the_table() -> None:
    row = _row("TASK-001", "openai[m]") | {"rollouts": 5, "modelErrors": 3}
    records = [
        {"outcome": "modelError", "environment": "crm", "taskId": "TASK-001",
         "agent": "openai[m]", "repeat": repeat, "error": "HTTP 500", "runDir": None}
        for repeat in (2, 3, 4)
    ]  # fmt: skip
    summary = {"group": "g", "notGraded": records, "rows": [row], "agents": []}
    lines = format_table(summary).splitlines()  # type: ignore[arg-type]
    assert lines[2].split()[2:6] == ["5", "1", "1", "3"]  # runs, pass, fail, error
    assert lines[-2] == "  TASK-001 openai[m]: model error x3: HTTP 500"
    assert (
        lines[-1]
        == "5 rollouts: 1 passed, 1 failed, 3 model errors (pass rate 0.50 over the 2 graded)"
    )
