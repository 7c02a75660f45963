"""One timer thread for the process: a callback at a deadline, unless it was cancelled first.

Contract: :meth:`Deadlines.at` ``(when, callback)`` returns a :class:`Deadline`; ``callback()``
runs once on the process's timer thread as soon as ``time.monotonic() >= when``, unless
:meth:`Deadline.cancel` ran first. Callbacks must be quick (end a bridge, schedule another
deadline, start a thread): every deadline of the process waits while one runs. A deadline later
than the earliest one pending does not wake the thread, so N rollouts in flight cost one
sleeping thread and a heap entry each, where a ``threading.Timer`` apiece cost N threads.
"""

from __future__ import annotations

import heapq
import itertools
import os
import sys
import threading
import time
from collections.abc import Callable

__all__ = ["DEADLINES", "Deadline", "Deadlines"]

_COMPACT_AT = 64  # cancelled entries kept in the heap before it is rebuilt without them


class Deadline:
    """A pending callback of :class:`Deadlines`; ``cancel`` drops it (and what it holds)."""

    __slots__ = ("_owner", "callback")

    def __init__(self, owner: Deadlines, callback: Callable[[], object]) -> None:
        self._owner = owner
        self.callback: Callable[[], object] | None = callback

    def cancel(self) -> None:
        """Never run the callback (a no-op once it ran or was cancelled)."""
        self._owner.cancel(self)


class Deadlines:
    """The deadlines of this process, kept by one daemon thread started on first use."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._heap: list[tuple[float, int, Deadline]] = []
        self._cond = threading.Condition(threading.Lock())
        self._order = itertools.count()
        self._cancelled = 0
        self._thread: threading.Thread | None = None

    def at(self, when: float, callback: Callable[[], object]) -> Deadline:
        """Run ``callback`` on the timer thread at ``time.monotonic()`` ``when``."""
        entry = Deadline(self, callback)
        with self._cond:
            heap = self._heap
            earliest = not heap or when < heap[0][0]
            heapq.heappush(heap, (when, next(self._order), entry))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="silo-deadlines")
                self._thread.daemon = True
                self._thread.start()
            elif earliest:  # the thread sleeps until the old earliest: wake it to re-aim
                self._cond.notify()
        return entry

    def cancel(self, entry: Deadline) -> None:
        """Drop ``entry``; the heap is rebuilt once it is mostly cancelled entries."""
        with self._cond:
            if entry.callback is None:
                return
            entry.callback = None
            self._cancelled += 1
            heap = self._heap
            if self._cancelled > _COMPACT_AT and self._cancelled * 2 > len(heap):
                heap[:] = [item for item in heap if item[2].callback is not None]
                heapq.heapify(heap)
                self._cancelled = 0

    def pending(self) -> int:
        """Entries in the heap, cancelled ones not yet dropped included."""
        with self._cond:
            return len(self._heap)

    def _run(self) -> None:
        cond, heap = self._cond, self._heap
        with cond:
            while True:
                now = time.monotonic()
                while heap and heap[0][0] <= now:
                    entry = heapq.heappop(heap)[2]
                    callback, entry.callback = entry.callback, None
                    if callback is None:
                        self._cancelled -= 1
                        continue
                    cond.release()
                    try:
                        callback()
                    except Exception as exc:  # noqa: BLE001 - one broken callback must not stop the rest
                        sys.excepthook(type(exc), exc, exc.__traceback__)
                    finally:
                        cond.acquire()
                    now = time.monotonic()
                cond.wait(heap[0][0] - now if heap else None)

    def forget(self) -> None:
        """Start afresh: in a forked child the timer thread does not exist."""
        self._reset()


DEADLINES = Deadlines()
"""The process's timer thread (a scheduler: it holds pending callbacks, never results)."""

if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=DEADLINES.forget)
