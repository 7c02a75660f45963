"""The process's timer thread: callbacks at their deadlines, in order; cancelled ones never."""

from __future__ import annotations

import threading
import time

from silo.rollout.deadlines import Deadlines
from tests.waiting import SHORT_SAFETY_S


def test_callbacks_run_at_their_deadlines_in_order_and_cancelled_ones_never() -> None:
    deadlines = Deadlines()
    ran: list[tuple[str, float]] = []
    all_ran = threading.Event()
    start = time.monotonic()

    def note(name: str) -> None:
        ran.append((name, time.monotonic() - start))
        if name == "late":
            all_ran.set()

    deadlines.at(start + 0.30, lambda: note("late"))
    cancelled = deadlines.at(start + 0.10, lambda: note("cancelled"))
    # Added after a later one: the sleeping thread must wake up to run it first.
    deadlines.at(start + 0.05, lambda: note("early"))
    cancelled.cancel()
    cancelled.cancel()  # twice is fine
    assert all_ran.wait(SHORT_SAFETY_S), "waited for the last deadline's callback"
    # "early" before "late": the thread woke for the deadline added after a later one.
    assert [name for name, _ in ran] == ["early", "late"]
    assert ran[0][1] >= 0.05 and ran[1][1] >= 0.30


def test_a_callback_that_raises_does_not_stop_the_others() -> None:
    deadlines = Deadlines()
    after = threading.Event()

    def broken() -> None:
        raise RuntimeError("broken callback")

    now = time.monotonic()
    deadlines.at(now + 0.01, broken)
    deadlines.at(now + 0.02, after.set)
    assert after.wait(SHORT_SAFETY_S), "waited for the callback after the broken one"


def test_many_cancelled_deadlines_do_not_pile_up() -> None:
    deadlines = Deadlines()
    far = time.monotonic() + 3600
    for _ in range(1000):
        deadlines.at(far, lambda: None).cancel()
    kept = deadlines.at(far, lambda: None)
    assert kept.callback is not None
    assert deadlines.pending() <= 2 * 64 + 1  # rebuilt without the cancelled entries
