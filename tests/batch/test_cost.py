"""pricing=<table>: estimatedCost in run.json and a cost column, from a model's token usage.

``silo-run`` runs in a subprocess against a local fake OpenAI-compatible server; the price
table is a config of the project's own ``conf/pricing/``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from fake_openai import USAGE, FakeOpenAI, final, tool_calls

from silo import SiloError
from silo.batch.cost import estimated_cost, price_table
from tests.conftest import script

PRICES = "models:\n  good: {input: 2.0, output: 8.0}\n"
# 3 requests a run (two bumps, then the answer), each 11 prompt and 7 completion tokens
RUN_COST = round(3 * (USAGE["prompt_tokens"] * 2.0 + USAGE["completion_tokens"] * 8.0) / 1e6, 6)


def _silo_run(project: Path, base_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [script("silo-run"), "env=toy", "task=TASK-001", "agent=openai",
         f"agent.base_url={base_url}", *args],
        cwd=project, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def _model() -> list[object]:
    return [tool_calls(("bump", {"id": "C-1"})), tool_calls(("bump", {"id": "C-1"})), final("ok")]


def test_a_priced_group_records_the_cost_of_each_run_and_prints_it(toy_project: Path) -> None:
    (toy_project / "conf" / "pricing").mkdir(parents=True)
    (toy_project / "conf" / "pricing" / "mine.yaml").write_text(PRICES)
    with FakeOpenAI(_model() * 2) as server:
        proc = _silo_run(toy_project, server.base_url, "agent.model=good", "runs=2",
                         "pricing=mine")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (group,) = (toy_project / ".silo" / "runs").glob("group_*")
    costs = [json.loads(p.read_text())["estimatedCost"] for p in group.glob("run_*/run.json")]
    assert costs == [RUN_COST, RUN_COST]
    (row,) = json.loads((group / "summary.json").read_text())["rows"]
    assert row["estimatedCost"] == round(2 * RUN_COST, 6)
    header = proc.stdout.splitlines()[0]
    assert header.split()[9:11] == ["tokens", "cost"]  # after runs, pass, fail, error, rate, ...
    line = next(line for line in proc.stdout.splitlines() if line.startswith("TASK-001"))
    assert f"${2 * RUN_COST:.4f}" in line.split()
    compared = subprocess.run(
        [script("silo-compare"), str(group), str(group)],
        cwd=toy_project, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    table = compared.stdout.splitlines()
    header = next(line for line in table if line.startswith("task"))
    assert header.split()[-4:] == ["costA", "costB", "Δcost", "status"]
    row = next(line for line in table if line.startswith("TASK-001"))
    assert row.split()[-4:] == [f"{2 * RUN_COST:.4f}"] * 2 + ["+0.0000", "same"]


def test_without_a_price_table_nothing_is_priced(toy_project: Path) -> None:
    with FakeOpenAI(_model()) as server:
        proc = _silo_run(toy_project, server.base_url, "agent.model=good")
    assert proc.returncode == 0, proc.stderr
    (run_json,) = (toy_project / ".silo" / "runs").glob("run_*/run.json")
    assert "estimatedCost" not in json.loads(run_json.read_text())


def test_a_model_the_table_does_not_list_has_no_cost() -> None:
    run = {"agentIdentity": {"model": "other"}, "usage": {"promptTokens": 5}}
    assert estimated_cost(run, price_table({"models": {"good": {"input": 1, "output": 2}}})) is None


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"models": {"m": {"input": -1, "output": 1}}}, "pricing.models.m.input must be a price"),
        ({"models": {"m": {"input": 1}}}, "pricing.models.m must be {input: X, output: Y}"),
        ({"models": ["m"]}, "pricing.models must map model names"),
    ],
)
def test_a_bad_price_table_is_one_line(config: object, message: str) -> None:
    with pytest.raises(SiloError) as refused:
        price_table(config)
    assert refused.value.code == "pricing_invalid" and message in refused.value.message
