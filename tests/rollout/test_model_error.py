"""An agent whose model endpoint failed it ends as ``model_error``, not ``agent_error``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from silo import AgentError, ModelError, run_task


def test_a_model_error_ends_the_run_as_model_error_with_its_line(toy_project: Path) -> None:
    def agent(inp: Any) -> Any:
        raise ModelError("the endpoint http://127.0.0.1:9/v1 refused the connection")

    result = run_task("toy", "TASK-001", agent, project_dir=toy_project)
    assert result.termination_reason == "model_error"
    assert not result.passed
    stored = json.loads((result.run_dir / "result.json").read_text(encoding="utf-8"))
    assert stored["terminationReason"] == "model_error"
    assert "refused the connection" in stored["error"]


def test_an_agent_error_is_still_the_agents_failure(toy_project: Path) -> None:
    def agent(inp: Any) -> Any:
        raise AgentError("bad key")

    assert run_task("toy", "TASK-001", agent, project_dir=toy_project).termination_reason == (
        "agent_error"
    )
