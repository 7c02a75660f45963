"""Inspect AI (PyPI ``inspect-ai``, tested at 0.3.285) on silo-mcp over stdio: the two patterns
docs/integrations.md gives each make one rollout with the solver's bytes.

Inspect's scripted ``mockllm`` model plays the CRM solver's calls, so no endpoint is needed.
Slow (Inspect starts silo-mcp and runs an eval); skipped, saying so, when inspect-ai is not
installed (``pip install inspect-ai==0.3.285``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integrations._mcp_process import REPO, SILO_MCP
from tests.integrations.conftest import record_bytes

pytest.importorskip(
    "inspect_ai", reason="Inspect AI not installed: pip install inspect-ai==0.3.285"
)

from inspect_ai import Task  # noqa: E402  (after the skip: an optional client)
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.agent import react  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.solver import Generate, Solver, TaskState, solver, use_tools  # noqa: E402
from inspect_ai.tool import MCPServer, mcp_connection, mcp_server_stdio, mcp_tools  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    # Inspect's own retry setup calls tenacity with a deprecated argument; not ours to fix.
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
]


def _connected(server: MCPServer) -> Solver:
    """Pattern 2 of the docs: generate inside one ``mcp_connection``."""

    @solver
    def silo_solver() -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            async with mcp_connection([server]):
                return await generate(state)

        return solve

    return silo_solver()


def _said(output: ModelOutput) -> ModelOutput:
    # A usage given up front: otherwise mockllm counts tokens with an encoding it downloads.
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


@pytest.mark.parametrize("pattern", ["react", "mcp_connection"])
def test_both_documented_patterns_are_one_rollout_with_the_solvers_bytes(
    pattern: str, tmp_path: Path, solver_calls: Any, scripted_record: Any
) -> None:
    calls, answer = solver_calls("TASK-002")
    runs = tmp_path / "mcp"
    silo = mcp_server_stdio(
        name="silo",
        command=SILO_MCP,
        args=["env=crm", "task=TASK-002", f"runs_dir={runs}"],
        cwd=str(REPO),
    )
    steps = [*calls, ("silo_finish", {"answer": answer})]
    if pattern == "react":  # react's own ending: its submit tool
        steps.append(("submit", {"answer": "done"}))
    outputs = [_said(ModelOutput.for_tool_call("mockllm/model", n, a)) for n, a in steps]
    outputs.append(_said(ModelOutput.from_content("mockllm/model", "done")))
    plan = react(tools=[mcp_tools(silo)]) if pattern == "react" else [
        use_tools(mcp_tools(silo)),
        _connected(silo),
    ]  # fmt: skip
    (log,) = inspect_eval(
        Task(dataset=[Sample(input="Do the task.")], solver=plan),
        model=get_model("mockllm/model", custom_outputs=outputs),
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success", log.error
    (run_dir,) = [p.parent for p in runs.glob("*/result.json")]  # one rollout, not one per call
    assert record_bytes(run_dir) == scripted_record("TASK-002", calls, answer, tmp_path / "b")
