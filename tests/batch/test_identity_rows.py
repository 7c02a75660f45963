"""Rows split by who answered: two models of one agent are two rows, with their token usage.

``silo-run -m agent.model=good,bad`` runs in a subprocess against a local fake OpenAI-compatible
server; ``summary.json``, the printed table, pass^k and ``silo-compare`` must each give two rows.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from fake_openai import USAGE, FakeOpenAI, final, tool_calls
from fake_server import Reply

from silo.batch.compare import compare
from silo.batch.summary import agent_name
from tests.conftest import script
from tests.waiting import SAFETY_S


def _model(request: dict[str, Any]) -> Reply:
    """Model ``good`` bumps C-1 twice (passing toy TASK-001), ``bad`` answers at once."""
    done = sum(1 for m in request["messages"] if m["role"] == "tool")
    if request["model"] == "good" and done < 2:
        return tool_calls(("bump", {"id": "C-1"}))
    return final("done")


def test_two_models_are_two_rows_with_their_token_usage(toy_project: Path) -> None:
    with FakeOpenAI([_model]) as server:
        proc = subprocess.run(
            [script("silo-run"), "-m", "env=toy", "task=TASK-001", "agent=openai",
             "agent.model=good,bad", f"agent.base_url={server.base_url}", "runs=2",
             "fail_on_error=false", "max_concurrency=4"],
            cwd=toy_project, capture_output=True, text=True, timeout=SAFETY_S,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (sweep,) = (toy_project / ".silo" / "runs").iterdir()
    summary = json.loads((sweep / "summary.json").read_text())
    host = server.base_url.split("//")[1].split("/")[0]
    names = {m: f"openai[{m}, t=0.0, @{host}]" for m in ("good", "bad")}
    rows = {row["agent"]: row for row in summary["rows"]}
    assert sorted(rows) == sorted(names.values())
    good, bad = rows[names["good"]], rows[names["bad"]]
    assert (good["runs"], good["passes"], bad["runs"], bad["passes"]) == (2, 2, 2, 0)
    assert good["agentIdentity"]["model"] == "good" and bad["agentIdentity"]["model"] == "bad"
    per_request = {
        "promptTokens": USAGE["prompt_tokens"],
        "completionTokens": USAGE["completion_tokens"],
        "totalTokens": USAGE["total_tokens"],
    }
    assert good["usage"] == {k: v * 6 for k, v in per_request.items()}  # 3 requests x 2 runs
    assert bad["usage"] == {k: v * 2 for k, v in per_request.items()}  # 1 request x 2 runs
    pass_hat_k = {row["agent"]: row["passHatK"] for row in summary["agents"]}
    assert pass_hat_k == {names["good"]: {"1": 1.0, "2": 1.0}, names["bad"]: {"1": 0.0, "2": 0.0}}
    printed = [line for line in proc.stdout.splitlines() if line.startswith("TASK-001  ")]
    assert len(printed) == 2  # the table's rows (the progress lines have one space)
    assert any(
        names["good"] in line and f" {6 * USAGE['total_tokens']} " in line for line in printed
    )
    assert any(
        names["bad"] in line and f" {2 * USAGE['total_tokens']} " in line for line in printed
    )

    compared = compare(sweep, sweep, toy_project)
    assert sorted(cell["agent"] for cell in compared.cells) == sorted(names.values())
    assert {cell["status"] for cell in compared.cells} == {"same"}
    assert sorted(agent["agent"] for agent in compared.agents) == sorted(names.values())


def test_agent_name_from_run_json() -> None:
    assert agent_name({"agent": "solver"}) == "solver"
    identity = {"kind": "openai", "model": "m", "baseUrl": "https://api.openai.com/v1",
                "temperature": None, "seed": 7}  # fmt: skip
    assert agent_name({"agent": "openai", "agentIdentity": identity}) == "openai[m, seed=7]"
    user = {"kind": "openai", "model": "u", "baseUrl": None, "temperature": 0.5, "seed": 3}
    run = {"agent": "openai", "agentIdentity": identity, "userIdentity": user}
    assert agent_name(run) == "openai[m, seed=7, user=openai:u t=0.5]"  # the user's seed varies
    scripted = {"kind": "scripted", "model": None, "baseUrl": None, "temperature": None}
    # a user that calls no model does not split the agent into two series
    assert agent_name({"agent": "solver", "userIdentity": scripted}) == "solver"
