"""silo.batch.heap: a sweep's heap kept out of the collector's scans, and given back after."""

from __future__ import annotations

import gc
import threading
import weakref
from pathlib import Path
from typing import Any

from silo.batch.heap import frozen_heap
from silo.batch.sweep import Point, run_points
from silo.rollout.run import Budget

REPO = Path(__file__).resolve().parents[2]


def test_the_heap_is_frozen_during_the_sweep_and_given_back_after() -> None:
    assert gc.get_freeze_count() == 0
    with frozen_heap():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_nested_and_concurrent_sweeps_share_one_freeze_undone_by_the_last() -> None:
    inner_done = threading.Event()
    outer_may_end = threading.Event()
    seen: list[int] = []

    def other_sweep() -> None:
        with frozen_heap():
            inner_done.set()
            outer_may_end.wait(30)  # safety net: the main thread sets it at once
        seen.append(gc.get_freeze_count())

    with frozen_heap():
        thread = threading.Thread(target=other_sweep)
        thread.start()
        assert inner_done.wait(30), "the other sweep did not start"
        with frozen_heap():
            pass
        assert gc.get_freeze_count() > 0  # the nested sweep's end keeps the freeze
    assert gc.get_freeze_count() > 0  # the other sweep still runs
    outer_may_end.set()
    thread.join(30)
    assert seen == [0]


def test_a_process_that_froze_its_heap_itself_is_left_as_it_is() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with frozen_heap():
            pass
        # Neither undone (the count would be 0) nor frozen again (it would grow by the
        # thousands the generations hold); it may shrink, as frozen objects are freed.
        assert 0 < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()


class _Node:
    def __init__(self) -> None:
        self.me: _Node | None = self  # a cycle: only the collector frees it


def test_a_cycle_alive_when_the_sweep_began_is_collected_after_it() -> None:
    node = _Node()
    ref = weakref.ref(node)
    with frozen_heap():
        del node
        gc.collect()
        assert ref() is not None  # frozen: the collector does not look at it meanwhile
    gc.collect()
    assert ref() is None


def test_a_sweep_with_rollouts_in_flight_freezes_while_they_run_and_gives_back(
    tmp_path: Path,
) -> None:
    seen: list[int] = []

    def agent(inp: Any) -> str:
        seen.append(gc.get_freeze_count())
        return "done"

    point = Point("crm", "TASK-001", agent, "freeze", Budget())
    outcomes = run_points(
        [point], 3, project_dir=REPO, group_dir=tmp_path / "g", group_id="g",
        progress=False, max_concurrency=2,
    )  # fmt: skip
    assert len(outcomes) == 3 and len(seen) == 3
    assert all(count > 0 for count in seen)  # the environment and modules out of the scans
    assert gc.get_freeze_count() == 0  # given back with the sweep
