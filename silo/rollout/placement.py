"""Where the threads of rollouts in flight run: on one shared CPU, or wherever the OS puts them.

Contract: :func:`choose_placement` turns a sweep's ``cpu_affinity`` (:data:`POLICIES`) into a
:class:`Placement`, chosen on the thread that drives the sweep. ``Placement.pins(agent)`` says
whether a rollout of ``agent`` shares the CPU: under ``auto`` an agent that declares
``shares_cpu = True`` (Silo's model agents do), under ``one`` every agent, under ``none``
none. ``Placement.enter()`` confines the calling thread to the CPU; ``Placement.leave()`` gives
it the CPUs the driving thread had (a thread started by a confined one starts confined, so
every thread a placement touched leaves that way). Where the OS cannot pin a thread
(``os.sched_setaffinity`` is Linux's), every placement is ``none`` and both are no-ops.

Why: rollouts in flight each have a thread of their own (see :mod:`silo.rollout.worker`), and
the GIL lets one of them run Python at a time. Left to the OS, the threads of one process are
spread over every CPU, so the GIL (and the interpreter's working set with it) moves between
CPUs at every hand-off; on a 2-vCPU VM, with 256 rollouts in flight waiting on a model, each
cost 16-35 % less CPU for an async agent and ~13 % less for ``agent=openai`` with their
threads on one CPU (docs/performance.md). A thread that
waits on a socket and runs GIL-bound Python loses nothing by it. Threads that do parallel
native work (a local model, numpy) would, which is why only agents that say so share the CPU
by default. The CPU is the one the driving thread runs on when the sweep starts: two sweep
processes running at once are on two CPUs then, so they do not pile onto one.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Set
from dataclasses import dataclass
from typing import Any

from silo.errors import ConfigError

__all__ = ["POLICIES", "UNPLACED", "Placement", "checked_policy", "choose_placement"]

POLICIES = ("auto", "one", "none")
"""``cpu_affinity`` values: agents that declare ``shares_cpu``, every agent, or no agent."""


@dataclass(frozen=True, slots=True)
class Placement:
    """A sweep's placement: its policy, shared CPU and the CPUs :meth:`leave` restores.

    ``cpu`` None: threads are not pinned. ``allowed``: the CPUs of the thread that chose it.
    """

    policy: str
    cpu: int | None
    allowed: frozenset[int] = frozenset()

    def pins(self, agent: Any) -> bool:
        """Whether a rollout of ``agent`` (a callable) runs on the shared CPU."""
        if self.cpu is None:
            return False
        return self.policy == "one" or getattr(agent, "shares_cpu", False) is True

    def enter(self) -> None:
        """Confine this thread to the shared CPU (a no-op without one)."""
        if self.cpu is not None:
            _confine({self.cpu})

    def leave(self) -> None:
        """Give this thread the CPUs of the thread that chose the placement (a no-op without)."""
        if self.cpu is not None:
            _confine(self.allowed)


UNPLACED = Placement("none", None)
"""No thread pinned: rollouts one at a time, or ``cpu_affinity=none``."""


def _confine(cpus: Set[int]) -> None:
    # The process's set may have changed meanwhile (a cgroup): the thread then stays put.
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, cpus)


def checked_policy(value: Any) -> str:
    """``value`` when it is one of :data:`POLICIES`; otherwise a one-line ``config_invalid``."""
    if isinstance(value, str) and value in POLICIES:
        return value
    choices = ", ".join(POLICIES)
    raise ConfigError("config_invalid", f"cpu_affinity must be one of {choices}, got {value!r}")


def choose_placement(policy: Any) -> Placement:
    """The :class:`Placement` of ``cpu_affinity`` = ``policy``, chosen on this thread now."""
    policy = checked_policy(policy)
    if policy == "none" or not hasattr(os, "sched_setaffinity"):
        return Placement(policy, None)
    allowed = os.sched_getaffinity(0)
    if len(allowed) < 2:  # one CPU already: nothing to share
        return Placement(policy, None)
    current = _current_cpu()
    cpu = current if current in allowed else min(allowed)
    return Placement(policy, cpu, frozenset(allowed))


def _current_cpu() -> int | None:
    """The CPU this thread runs on now (``sched_getcpu``), or None where it cannot be read."""
    try:
        import ctypes

        cpu = int(ctypes.CDLL(None, use_errno=True).sched_getcpu())
    except (ImportError, OSError, AttributeError):
        return None
    return cpu if cpu >= 0 else None
