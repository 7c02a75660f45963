"""The objects a sweep starts with, kept out of the garbage collector's scans while it runs.

Contract: :func:`frozen_heap` is a context manager around a sweep's rollouts in flight. On
entry it moves every object the process tracks (its modules, the loaded environments, the
model agents' SDK and endpoints) to the collector's permanent generation
(:func:`gc.freeze`); on exit it puts them back (:func:`gc.unfreeze`), so nothing frozen is
kept beyond the sweep: garbage among them is collected as before, only later. The collector
then scans only what the rollouts allocate. Without it, every full collection during a sweep
walks the whole heap again, and a sweep with many rollouts in flight triggers several
(docs/architecture.md, "Concurrency"). Nested or concurrent sweeps share one freeze, undone
by the last to end, and a process that froze its heap itself (``gc.get_freeze_count()`` not
zero) is left as it is. :func:`freeze_for_good` is for a process that is Silo's alone (a
``workers=P`` worker) and ends with its sweep.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["freeze_for_good", "frozen_heap"]

_lock = threading.Lock()
_holders = 0  # sweeps running inside frozen_heap
_ours = False  # whether the freeze in force is frozen_heap's (else the process's own, or none)


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Keep the heap of the process as it is now out of the collector's scans, until exit."""
    global _holders, _ours
    with _lock:
        if _holders == 0:
            _ours = gc.get_freeze_count() == 0
            if _ours:
                gc.freeze()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _ours:
                gc.unfreeze()
                _ours = False


def freeze_for_good() -> None:
    """Freeze the heap as it is now, in a process that ends with its sweep (never undone)."""
    gc.freeze()
