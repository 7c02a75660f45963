"""silo.rollout.placement: which rollouts in flight share one CPU, and their threads given back."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from silo.agents.openai import OpenAIAgent
from silo.batch.sweep import Point, run_points
from silo.errors import ConfigError
from silo.rollout.placement import Placement, checked_policy, choose_placement
from silo.rollout.run import Budget, run_task

pinnable = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="pinning a thread needs Linux and a process allowed on two CPUs or more",
)


class _Recording:
    """An agent that notes the CPUs its thread may run on; ``shares_cpu`` as asked."""

    def __init__(self, shares_cpu: bool) -> None:
        self.shares_cpu = shares_cpu
        self.seen: list[frozenset[int]] = []

    def __call__(self, inp: Any) -> str:
        self.seen.append(frozenset(os.sched_getaffinity(0)))  # list.append: atomic
        return "done"


def _sweep(project: Path, agent: Any, policy: str, n: int = 4) -> None:
    run_points(
        [Point("toy", "TASK-001", agent, "a", Budget())], 8, project_dir=project,
        group_dir=project / f"g-{policy}", group_id="g", progress=False, max_concurrency=n,
        cpu_affinity=policy,
    )  # fmt: skip


def test_a_policy_that_is_not_one_of_the_three_is_one_config_line() -> None:
    assert [checked_policy(p) for p in ("auto", "one", "none")] == ["auto", "one", "none"]
    for bad in ("ONE", "", 1, None, True):
        with pytest.raises(ConfigError) as caught:
            checked_policy(bad)
        assert caught.value.code == "config_invalid"
        assert "cpu_affinity must be one of auto, one, none" in caught.value.message


def test_only_agents_that_say_so_share_the_cpu_under_auto() -> None:
    auto, one, none = Placement("auto", 0), Placement("one", 0), Placement("none", None)
    assert auto.pins(_Recording(True)) and not auto.pins(_Recording(False))
    assert not auto.pins(lambda inp: "x")  # a plain callable declares nothing
    assert one.pins(lambda inp: "x")
    assert not none.pins(_Recording(True))
    assert OpenAIAgent.shares_cpu is True  # Silo's model agents wait on sockets


@pinnable
def test_the_shared_cpu_is_one_this_process_may_use() -> None:
    chosen = choose_placement("auto")
    assert chosen.cpu in os.sched_getaffinity(0)
    assert choose_placement("none").cpu is None


@pinnable
def test_enter_confines_the_thread_and_leave_gives_its_cpus_back() -> None:
    allowed = os.sched_getaffinity(0)
    chosen = choose_placement("one")
    seen: dict[str, set[int]] = {}

    def on_a_thread() -> None:
        chosen.enter()
        seen["inside"] = os.sched_getaffinity(0)
        chosen.leave()
        seen["after"] = os.sched_getaffinity(0)

    thread = threading.Thread(target=on_a_thread)
    thread.start()
    thread.join()
    assert seen == {"inside": {chosen.cpu}, "after": allowed}
    assert os.sched_getaffinity(0) == allowed  # the calling thread was never touched


@pinnable
@pytest.mark.parametrize(
    ("policy", "shares", "pinned"),
    [("auto", True, True), ("auto", False, False), ("one", False, True), ("none", True, False)],
)
def test_rollouts_in_flight_run_where_the_policy_says(
    toy_project: Path, policy: str, shares: bool, pinned: bool
) -> None:
    allowed = frozenset(os.sched_getaffinity(0))
    agent = _Recording(shares)
    _sweep(toy_project, agent, policy)
    assert len(agent.seen) == 8
    if pinned:
        assert len(set(agent.seen)) == 1 and len(agent.seen[0]) == 1  # one CPU, the same
        assert agent.seen[0] <= allowed
    else:
        assert set(agent.seen) == {allowed}
    assert os.sched_getaffinity(0) == allowed  # the sweep's own thread keeps every CPU


@pinnable
def test_a_worker_thread_gets_its_cpus_back_for_the_next_rollout(toy_project: Path) -> None:
    allowed = frozenset(os.sched_getaffinity(0))
    _sweep(toy_project, _Recording(True), "one", n=2)  # pins the pool's worker threads
    later = _Recording(False)
    _sweep(toy_project, later, "auto", n=2)  # the same worker threads, not pinned now
    run_task("toy", "TASK-001", later, project_dir=toy_project, write_artifacts=False)
    assert set(later.seen) == {allowed}


@pinnable
def test_one_rollout_at_a_time_is_never_pinned(toy_project: Path) -> None:
    allowed = frozenset(os.sched_getaffinity(0))
    agent = _Recording(True)
    _sweep(toy_project, agent, "one", n=1)
    assert set(agent.seen) == {allowed}


def test_a_bad_cpu_affinity_stops_a_sweep_before_any_rollout(toy_project: Path) -> None:
    with pytest.raises(ConfigError):
        _sweep(toy_project, _Recording(True), "always")
    assert not (toy_project / "g-always").exists()


@pinnable
def test_threads_the_confined_sweep_thread_starts_leave_its_cpu(toy_project: Path) -> None:
    allowed = frozenset(os.sched_getaffinity(0))
    n = threading.active_count() + 8  # more than every thread alive: new workers are started

    class _Slow(_Recording):
        def __call__(self, inp: Any) -> str:
            time.sleep(0.3)  # all n in flight at once
            return super().__call__(inp)

    agent = _Slow(False)
    run_points(
        [Point("toy", "TASK-001", agent, "a", Budget())], n, project_dir=toy_project,
        group_dir=toy_project / "g", group_id="g", progress=False, max_concurrency=n,
        cpu_affinity="auto",
    )  # fmt: skip
    assert len(agent.seen) == n and set(agent.seen) == {allowed}
