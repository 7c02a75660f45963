"""Rollouts in flight of Silo's model agents run on the process's model loop (start_task).

Covers: many rollouts in flight on the loop, each graded and recorded as run_task would; a
rollout whose endpoint never answers ended at its deadline (``timeout``) while the others
finish; an interrupt (Ctrl-C) ending those in flight with complete records; the loop refusing
a synchronous call made on its own thread.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from pathlib import Path
from queue import SimpleQueue
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))

from agent_helpers import ENV, ROOT, TASK, Solution, solve  # noqa: E402
from fake_openai import FakeOpenAI, Reply, final, tool_calls  # noqa: E402

from silo.agents.model_loop import model_loop, run_on_model_loop  # noqa: E402
from silo.agents.openai import OpenAIAgent  # noqa: E402
from silo.rollout.on_worker import start_task  # noqa: E402
from silo.rollout.result import RolloutResult  # noqa: E402
from silo.rollout.run import Interrupt  # noqa: E402

KEY_ENV = "SILO_TEST_LOOP_KEY"


def _model(solution: Solution) -> Any:
    """A scripted model: the solver's calls in order; a request with ``user: stall`` hangs."""

    def answer(body: dict[str, Any]) -> Reply:
        if body.get("user") == "stall":
            time.sleep(30)  # longer than the rollout's budget: only a cancel ends its wait
        done = sum(1 for m in body["messages"] if m["role"] == "tool")
        if done < len(solution.calls):
            return tool_calls(solution.calls[done])
        return final(solution.answer)

    return answer


def _start(
    server: Any, tmp_path: Path, rollouts: int, timeout_ms: int, stalled: int = -1
) -> list[RolloutResult | BaseException]:
    ended: SimpleQueue[RolloutResult | BaseException] = SimpleQueue()
    for i in range(rollouts):
        extra = {"user": "stall"} if i == stalled else None
        agent = OpenAIAgent(
            model="m", api_key_env=KEY_ENV, base_url=server.base_url, extra_body=extra
        )
        start_task(
            # The stalled rollout gets the budget under test; those beside it one far beyond
            # any host's speed, so only the stalled one can end by its deadline.
            ended.put, ENV, TASK, agent,
            {"timeout_ms": timeout_ms if stalled in (-1, i) else 120_000},
            project_dir=ROOT, runs_dir=tmp_path / "runs", seed=i,
        )  # fmt: skip
    # A safety net, far beyond the rollouts' own budgets: what it waits for is each record.
    return [ended.get(timeout=60) for _ in range(rollouts)]


def test_model_rollouts_in_flight_all_finish_and_are_recorded(tmp_path: Path) -> None:
    # Every first request is held until all 24 are in: they must all be in flight at once.
    # The barrier's timeout is a safety net, far beyond 24 rollouts opening.
    together = threading.Barrier(24, timeout=60)
    model = _model(solve())

    def answer(body: dict[str, Any]) -> Reply:
        if len(body["messages"]) == 2:
            together.wait()
        return model(body)

    with FakeOpenAI([answer]) as server:
        results = _start(server, tmp_path, 24, 120_000)
    assert all(isinstance(r, RolloutResult) and r.passed for r in results), results
    assert server.peak_in_flight == 24  # every rollout waited on the endpoint at once
    runs = list((tmp_path / "runs").iterdir())
    assert len(runs) == 24 and all((run / "result.json").is_file() for run in runs)


def test_a_rollout_whose_endpoint_hangs_is_cancelled_at_its_deadline(tmp_path: Path) -> None:
    """The hung request ends at the rollout's deadline; the rollouts beside it pass."""
    with FakeOpenAI([_model(solve())]) as server:
        results = _start(server, tmp_path, 4, 1500, stalled=0)
    finished = [r for r in results if isinstance(r, RolloutResult)]
    assert len(finished) == 4, results
    [stalled] = [r for r in finished if r.termination_reason == "timeout"]
    assert stalled.error in ("the run was stopped (timeout)", "the run's time budget ran out")
    assert sum(r.passed for r in finished) == 3


def test_an_interrupt_ends_model_rollouts_in_flight_with_complete_records(tmp_path: Path) -> None:
    """Ctrl-C in a sweep: rollouts waiting on their endpoint end ``interrupted``, recorded."""
    arrived = threading.Semaphore(0)

    def stalls(body: dict[str, Any]) -> Reply:
        arrived.release()
        time.sleep(30)  # only the interrupt ends the rollouts' wait
        return final("late")

    interrupt = Interrupt()
    ended: SimpleQueue[RolloutResult | BaseException] = SimpleQueue()
    with FakeOpenAI([stalls]) as server:
        for i in range(4):
            agent = OpenAIAgent(model="m", api_key_env=KEY_ENV, base_url=server.base_url)
            start_task(
                ended.put, ENV, TASK, agent, {"timeout_ms": 600_000}, interrupt=interrupt,
                project_dir=ROOT, runs_dir=tmp_path / "runs", seed=i,
            )  # fmt: skip
        for _ in range(4):  # every rollout is waiting on its request (safety net: 60 s)
            assert arrived.acquire(timeout=60)
        interrupt.fire()
        results = [ended.get(timeout=60) for _ in range(4)]
    assert all(isinstance(r, RolloutResult) for r in results), results
    assert {r.termination_reason for r in results if isinstance(r, RolloutResult)} == {
        "interrupted"
    }
    for run in (tmp_path / "runs").iterdir():
        assert (run / "result.json").is_file() and (run / "state-diff.json").is_file()


def test_a_synchronous_call_on_the_model_loop_is_refused() -> None:
    async def nested() -> str:
        async def inner() -> str:
            return "never"

        try:
            return run_on_model_loop(inner())
        except RuntimeError as exc:
            return str(exc)

    said = asyncio.run_coroutine_threadsafe(nested(), model_loop()).result(10)
    assert "await its arun() instead" in said
