"""Where the threads of rollouts in flight run: on one shared CPU, or wherever the OS puts them.

Contract: :func:`choose_placement` turns a sweep's ``cpu_affinity`` setting (:data:`POLICIES`) into a
:class:`Placement`, chosen on the thread that drives the sweep. ``Placement.pins(agent)`` says
whether a rollout of ``agent`` shares the CPU: under ``auto`` an agent that declares
``shares_cpu = True`` (Silo's model agents do), under ``one`` every agent, under ``none``
none. ``Placement.enter()`` on a rollout's worker thread confines that thread to the CPU and
returns what ``leave`` needs to give the thread back the CPUs it had. Where the OS cannot pin a
thread (``os.sched_setaffinity`` is Linux's), every placement is ``none``.

Why: rollouts in flight each have a thread of their own (see :mod:`silo.rollout.worker`), and
the GIL lets one of them run Python at a time. Left to the OS, the threads of one process are
spread over every CPU, so the GIL (and the interpreter's working set with it) moves between
CPUs at every hand-off; on a 2-vCPU VM, 256 rollouts in flight of a model-latency-bound agent
cost ~35 % less CPU each with their threads on one CPU (docs/performance.md). A thread that
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

__all__ = ["POLICIES", "Placement", "checked_policy", "choose_placement"]

POLICIES = ("auto", "one", "none")
"""``cpu_affinity`` values: agents that declare ``shares_cpu``, every agent, or no agent."""


@dataclass(frozen=True, slots=True)
class Placement:
    """A sweep's placement: the policy and the shared CPU (None: threads are not pinned)."""

    policy: str
    cpu: int | None

    def pins(self, agent: Any) -> bool:
        """Whether a rollout of ``agent`` (a callable) runs on the shared CPU."""
        if self.cpu is None:
            return False
        return self.policy == "one" or getattr(agent, "shares_cpu", False) is True

    def enter(self) -> Set[int] | None:
        """Confine this thread to the shared CPU; the CPUs it had (None: left as it was)."""
        if self.cpu is None:
            return None
        had = os.sched_getaffinity(0)
        try:
            os.sched_setaffinity(0, {self.cpu})
        except OSError:  # the CPU left this process's set meanwhile (a cgroup change)
            return None
        return had

    @staticmethod
    def leave(had: Set[int] | None) -> None:
        """Give this thread back the CPUs :meth:`enter` returned."""
        if had is not None:
            # The set may have changed meanwhile (a cgroup): then the thread keeps the CPU.
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, had)


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
    return Placement(policy, current if current in allowed else min(allowed))


def _current_cpu() -> int | None:
    """The CPU this thread runs on now (``sched_getcpu``), or None where it cannot be read."""
    try:
        import ctypes

        cpu = int(ctypes.CDLL(None, use_errno=True).sched_getcpu())
    except (ImportError, OSError, AttributeError):
        return None
    return cpu if cpu >= 0 else None
