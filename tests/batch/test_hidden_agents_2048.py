"""At 2,048 rollouts in flight, agents that hang end as ``timeout`` and stall nobody.

2,045 ``agent=openai`` rollouts (on the model loop) share one sweep with a sync agent that never
returns, an async agent that never awaits and an agent looping on the CPU (each on its own
worker thread). The three end as ``timeout``; every model rollout completes and passes.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))

from fake_openai import FakeOpenAI, final, tool_calls  # noqa: E402
from fake_server import Reply  # noqa: E402

from silo.batch.sweep import Point, run_points  # noqa: E402
from silo.rollout.run import Budget  # noqa: E402

IN_FLIGHT = 2048
HUNG_MS = 2000


def _model(request: dict[str, Any]) -> Reply:
    """Bumps C-1 twice (passing the toy TASK-001), then answers."""
    done = sum(1 for m in request["messages"] if m["role"] == "tool")
    return tool_calls(("bump", {"id": "C-1"})) if done < 2 else final("done")


def never_returns(inp: Any) -> None:
    time.sleep(3600)  # blocks its thread, whatever the signal says


def _spinners(released: threading.Event) -> tuple[Any, Any]:
    """An async agent that never awaits and one looping on the CPU, both until ``released``.

    ``released`` is set when the test ends: neither spins for the rest of the session.
    """

    async def never_awaits(inp: Any) -> None:
        while not released.is_set():  # async code that never yields to its loop
            pass

    def cpu_loop(inp: Any) -> None:
        total = 0
        while not released.is_set():
            total += 1

    return never_awaits, cpu_loop


@pytest.mark.slow
def test_hung_agents_among_2048_in_flight_time_out_and_stall_nobody(
    toy_project: Path, released: threading.Event
) -> None:
    group = toy_project / "g"
    never_awaits, cpu_loop = _spinners(released)
    with FakeOpenAI([_model], latency_s=0.2) as server:
        model = {
            "_target_": "silo.agents.openai.OpenAIAgent",
            "model": "m",
            "base_url": server.base_url,
            # The fake server runs a thread per connection: 256 keeps its threads few; the
            # rollouts in flight (2,048) wait for a connection on the loop.
            "max_connections": 256,
        }
        # Safety net, far beyond what 2,045 model rollouts take: their pass is the point.
        model_budget = Budget(timeout_ms=600_000)
        hung = Budget(timeout_ms=HUNG_MS)
        points = [
            Point("toy", "TASK-001", never_returns, "never-returns", hung),
            Point("toy", "TASK-001", never_awaits, "never-awaits", hung),
            Point("toy", "TASK-001", cpu_loop, "cpu-loop", hung),
        ] + [
            Point("toy", "TASK-001", model, "openai", model_budget, seed=i)  # a point id each
            for i in range(IN_FLIGHT - 3)
        ]
        outcomes = run_points(
            points, 1, project_dir=toy_project, group_dir=group, group_id="g",
            progress=False, max_concurrency=IN_FLIGHT,
        )  # fmt: skip
    assert len(outcomes) == IN_FLIGHT
    runs = [json.loads(p.read_text()) for p in group.glob("*/run.json")]
    by_agent: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        by_agent.setdefault(run["agent"], []).append(run)
    for name in ("never-returns", "never-awaits", "cpu-loop"):
        [run] = by_agent[name]
        assert run["terminationReason"] == "timeout", run
    model_runs = by_agent["openai"]
    assert len(model_runs) == IN_FLIGHT - 3
    assert all(r["terminationReason"] == "completed" for r in model_runs)
    assert sum(o.passed for o in outcomes) == IN_FLIGHT - 3
