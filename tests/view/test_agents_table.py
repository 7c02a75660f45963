"""The group page's side-by-side table: agents and models per task, with pass^k, reward, cost."""

from __future__ import annotations

from pathlib import Path

import pytest

from silo.view.agents_table import agents_side_by_side
from silo.view.build import build_site
from tests.view.chromium import SKIP, dump_dom
from tests.view.test_site import _runs, _sweep
from tests.view.test_view import Page

IDENTITY = {"kind": "openai", "model": "m"}
SUMMARY = {
    "rows": [
        {"task": "TASK-001", "agent": "openai[a]", "runs": 2, "passes": 2, "meanReward": 1.0,
         "passHatK": {"1": 1.0, "2": 1.0}, "usage": {"totalTokens": 3000},
         "estimatedCost": 0.0042, "agentIdentity": IDENTITY},
        {"task": "TASK-001", "agent": "openai[b]", "runs": 2, "passes": 1, "meanReward": 0.5,
         "passHatK": {"1": 0.5, "2": 0.0}, "usage": {"totalTokens": 1000},
         "estimatedCost": 0.001, "agentIdentity": IDENTITY},
        {"task": "TASK-002", "agent": "openai[a]", "runs": 2, "passes": 0, "meanReward": 0.0,
         "passHatK": {"1": 0.0, "2": 0.0}},
    ],
    "agents": [
        {"agent": "openai[a]", "passHatK": {"1": 0.5, "2": 0.5}},
        {"agent": "openai[b]", "passHatK": {"1": 0.5, "2": 0.0}},
    ],
}  # fmt: skip


def _cells(html: str) -> list[list[str]]:
    page = Page(html)
    return [[td.text for td in tr.children] for tr in page.find("tr")]


def test_each_model_is_a_column_and_each_task_a_row() -> None:
    rows = _cells(agents_side_by_side(SUMMARY))
    assert rows[0] == ["task", "openai[a]", "openai[b]"]
    assert rows[1] == [
        "TASK-001",
        "pass^2 1.002/2 passedreward 1.003,000 tokens$0.0042",
        "pass^2 0.001/2 passedreward 0.501,000 tokens$0.0010",
    ]
    assert rows[2] == ["TASK-002", "pass^2 0.000/2 passedreward 0.00", "-"]
    assert rows[3][0] == "all tasks"
    assert rows[3][1] == "pass^2 0.50 over 2 task(s)2/4 passedreward 0.503,000 tokens$0.0042"


def test_a_summary_without_rows_has_no_table() -> None:
    assert agents_side_by_side({}) == ""


@SKIP
@pytest.mark.slow
def test_the_sweep_page_shows_the_agents_side_by_side_in_chromium(
    toy_project: Path, tmp_path: Path
) -> None:
    _sweep(toy_project)  # TASK-001 and TASK-002 by solver and noop, 2 runs each
    build_site(_runs(toy_project), tmp_path / "site")
    url = (tmp_path / "site" / "groups" / "sweep_demo" / "index.html").as_uri()
    page = Page(dump_dom(url))
    (heading,) = [e for e in page.elements if e.attrs.get("id") == "agents"]
    assert heading.text == "Agents and models by task"
    table = next(e for e in page.find("table") if e.children[0].text.startswith("task"))
    header = [th.text for th in table.children[0].children[0].children]
    assert header == ["task", "noop", "solver"]
    body = [[td.text for td in tr.children] for tr in table.children[1].children]
    # the toy TASK-002's verifier raises: its row is there, with no graded run to rate
    assert [row[0] for row in body] == ["TASK-001", "TASK-002", "all tasks"]
    assert "0/0 passed" in body[1][1] and "0/0 passed" in body[1][2]
    assert body[0][2].startswith("pass^2 1.00") and body[0][1].startswith("pass^2 0.00")
