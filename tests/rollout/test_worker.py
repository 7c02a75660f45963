"""Agent worker threads: an async agent's leftovers never run into the next agent's rollout."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import silo
from tests.waiting import SAFETY_S, SHORT_SAFETY_S


def test_tasks_an_async_agent_left_behind_are_cancelled_when_it_returns(
    toy_project: Path,
) -> None:
    ticks: list[float] = []
    cancelled: list[bool] = []

    async def ticker() -> None:
        try:
            while True:
                ticks.append(time.monotonic())
                await asyncio.sleep(0.005)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def leaves_a_task(inp: Any) -> str:
        asyncio.get_running_loop().create_task(ticker())
        await asyncio.sleep(0.02)
        return "left a task running"

    async def waits(inp: Any) -> str:
        await asyncio.sleep(0.2)
        return "waited"

    for agent in (leaves_a_task, waits, waits):  # the next agents run on the same worker
        started = time.monotonic()
        result = silo.run_task(
            "toy", "TASK-001", agent, project_dir=toy_project, write_artifacts=False
        )
        assert result.termination_reason == "completed"
        if agent is waits:
            assert not [t for t in ticks if t >= started]  # nothing ran in its rollout
    assert cancelled == [True]


def test_a_worker_whose_job_says_no_exits_instead_of_taking_the_next_job() -> None:
    import threading

    from silo.rollout.worker import AgentWorkers

    back = threading.Event()

    class Watched(AgentWorkers):
        def idle(self, worker: Any) -> None:
            super().idle(worker)
            back.set()

    workers = Watched()
    ran_on: list[threading.Thread] = []
    done = threading.Event()

    def job(keep: bool) -> bool:
        ran_on.append(threading.current_thread())
        done.set()
        return keep

    workers.start(lambda: job(True), "kept")
    assert done.wait(SHORT_SAFETY_S), "waited for the first job"
    done.clear()
    kept = ran_on[-1]
    assert back.wait(SHORT_SAFETY_S), "waited for the thread to be back in the idle list"
    workers.start(lambda: job(False), "retired")  # reuses the idle thread
    assert done.wait(SHORT_SAFETY_S), "waited for the second job"
    assert ran_on[-1] is kept
    kept.join(SHORT_SAFETY_S)
    assert not kept.is_alive()  # its agent was abandoned: the thread left the pool
    done.clear()
    workers.start(lambda: job(True), "fresh")
    assert done.wait(SHORT_SAFETY_S), "waited for the third job"
    assert ran_on[-1] is not kept


def test_leftovers_are_cancelled_when_the_agent_set_its_own_task_factory(
    toy_project: Path,
) -> None:
    cancelled: list[bool] = []

    async def forever() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def own_factory(inp: Any) -> str:
        loop = asyncio.get_running_loop()
        loop.set_task_factory(lambda loop, coro, **kw: asyncio.Task(coro, loop=loop, **kw))
        loop.create_task(forever())
        await asyncio.sleep(0)
        return "set a factory"

    result = silo.run_task(
        "toy", "TASK-001", own_factory, project_dir=toy_project, write_artifacts=False
    )
    assert result.termination_reason == "completed"
    assert cancelled == [True]


_MANY_ASYNC_ROLLOUTS = """
import asyncio, sys
from pathlib import Path
from silo.batch.sweep import Point, run_points
from silo.rollout.run import Budget

async def agent(inp):
    await asyncio.sleep(0.01)
    return "ok"

work = Path(sys.argv[2])
run_points([Point("toy", "TASK-001", agent, "quiet", Budget())], 96, project_dir=Path(sys.argv[1]),
           group_dir=work / "g", group_id="g", progress=False, max_concurrency=48)
print("ran")
"""


def test_a_process_that_ran_async_agents_on_many_workers_exits_quietly(
    toy_project: Path, tmp_path: Path
) -> None:
    import subprocess
    import sys

    script = tmp_path / "many.py"
    script.write_text(_MANY_ASYNC_ROLLOUTS)
    for attempt in range(3):  # what is left at exit is collected in no fixed order
        work = tmp_path / f"attempt-{attempt}"  # each run_points call is a group of its own
        work.mkdir()
        done = subprocess.run(
            [sys.executable, str(script), str(toy_project), str(work)],
            capture_output=True, text=True, timeout=SAFETY_S, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "ran"
        assert done.stderr == ""  # no "Exception ignored in BaseEventLoop.__del__"
