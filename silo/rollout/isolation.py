"""Process isolation: a Python agent runs in a child process the rollout can end at its deadline.

Contract: an agent resolved with ``isolation: process`` (see :mod:`silo.agents.resolve`; on the
command line ``+agent.isolation=process``) runs through :func:`call_in_process` instead of on
its worker thread. The rollout's worker thread sends the agent's input to a child process of
:data:`PROCESSES` and serves it: every ``call_tool``, ``emit`` and ``user.send`` the agent makes
there runs here, through the rollout's own bridge (validated, transactional, traced and counted
exactly as on a thread), and the answer goes back. The world never leaves this process. When
the rollout's ``signal`` fires (timeout, tool limit, interrupt) the child is told, and a child
whose agent has not returned :data:`STOP_GRACE_S` later is killed: a CPU-bound agent cannot
hold the GIL of the sweep's process nor outlive its budget. The outcome is what the same agent
on a thread gives (an abandoned agent, an answer, or its exception's kind and one line), so
``result.json`` is the same either way.

Children are forked by a zygote: one helper process per Silo process, a fresh interpreter
started with ``sys.executable`` and this process's import path, that has imported what a child
needs (a child then starts in a fork's time, and nothing of this process's threads or
``__main__`` is copied or re-run). Children are reused, one per rollout in flight; a killed
one is replaced. They inherit the working folder and environment variables.
:func:`check_isolated` proves, before a rollout opens, that the agent can be pickled and
resolved in a child (otherwise one line, exit 2), and readies an idle child with the agent
loaded for each rollout opened, so a process's start and the agent's import do not count
against the agent's budget. Isolation is for Python agents that compute: Silo's model agents gain nothing from it (on
their own they run as coroutines of the model loop, cancelled at the deadline).
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from silo.agents.contract import (
    AgentError,
    AgentInput,
    ModelError,
    RunLimitError,
)
from silo.agents.resolve import ResolvedAgent
from silo.errors import AgentLoadError
from silo.jsonio import exact_loads

__all__ = ["PROCESSES", "STOP_GRACE_S", "AgentProcesses", "call_in_process", "check_isolated"]

STOP_GRACE_S = 0.2
"""How long a stopped agent's process may take to return before it is killed.

Shorter than :data:`silo.rollout.run.GRACE_S`, so the rollout's own worker records it."""
_POLL_S = 0.1
"""How often the serving thread looks at the rollout's signal while the agent computes."""
_RESOLVE_WAIT_S = 300.0
"""Safety net for a child resolving an agent (importing the user's code) before a rollout."""


class _Child:
    """One agent process and the parent's end of its socket."""

    __slots__ = ("pid", "conn", "jobs", "known")

    def __init__(self, pid: int, conn: Connection) -> None:
        self.pid, self.conn = pid, conn
        self.jobs = itertools.count(1)
        self.known: set[bytes] = set()  # the recipes it has resolved


# The zygote's program: the parent's import path first, so the agent's modules import there
# as they do here; then the zygote itself (see silo.rollout.isolation_child).
_ZYGOTE = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[2]); "
    "from silo.rollout.isolation_child import zygote; zygote(int(sys.argv[1]))"
)


class AgentProcesses:
    """The idle agent processes of this process, handed out one per isolated rollout."""

    def __init__(self) -> None:
        self._idle: list[_Child] = []
        self._lock = threading.Lock()
        self._wanted: dict[bytes, int] = {}  # readied children the rollouts opened will take
        self._zygote: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None

    def _start_zygote(self) -> socket.socket:
        ours, theirs = socket.socketpair()
        with theirs:
            self._zygote = subprocess.Popen(
                [sys.executable, "-c", _ZYGOTE, str(theirs.fileno()), json.dumps(sys.path)],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                start_new_session=False,
            )
        self._control = ours
        return ours

    def _start(self) -> _Child:
        """A new agent process, forked by the zygote (started first if need be)."""
        with self._lock:
            for _attempt in (1, 2):
                control = self._control or self._start_zygote()
                try:
                    control.sendall(b"f")
                    message, fds, _, _ = socket.recv_fds(control, 8, 1)
                except OSError:
                    message, fds = b"", []
                if message and fds:
                    return _Child(int.from_bytes(message, "little"), Connection(fds[0]))
                self._stop_zygote()  # it died (killed, out of memory): start it once more
        raise AgentLoadError(
            "agent_invalid",
            "cannot start a process for the agent (isolation=process): the helper that forks "
            "them exited; check memory and process limits, or use agent.isolation=thread",
        )

    def _stop_zygote(self) -> None:
        if self._control is not None:
            self._control.close()
            self._control = None
        if self._zygote is not None:
            with contextlib.suppress(OSError):
                self._zygote.kill()
            self._zygote.wait()
            self._zygote = None

    def take(self, key: bytes, resolved: bool = True) -> _Child:
        """An idle child (a new one when none is); one that has resolved ``key`` if any has.

        ``resolved`` False prefers one that has not (to be readied for another rollout).
        """
        with self._lock:
            idle = self._idle
            for at in range(len(idle) - 1, -1, -1):
                if (key in idle[at].known) is resolved:
                    return idle.pop(at)
            child = idle.pop() if idle else None
        return child if child is not None else self._start()

    def promised(self, key: bytes) -> None:
        """A rollout readied for by :meth:`prepare` has taken its child."""
        with self._lock:
            self._wanted[key] = max(0, self._wanted.get(key, 0) - 1)

    def give_back(self, child: _Child) -> None:
        """Take ``child`` back: its agent returned and it may run the next."""
        with self._lock:
            self._idle.append(child)

    @staticmethod
    def discard(child: _Child) -> None:
        """Kill ``child`` (its agent is still running, or its socket broke); the zygote reaps it."""
        with contextlib.suppress(OSError):  # it is gone already
            os.kill(child.pid, signal.SIGKILL)
        child.conn.close()

    def key(self, agent: ResolvedAgent) -> bytes:
        """``agent``'s recipe pickled: what a child resolves it from."""
        try:
            return pickle.dumps(agent.recipe)
        except Exception as exc:  # noqa: BLE001 - pickling runs the agent's own code
            raise AgentLoadError(
                "agent_invalid",
                f"agent {agent.label} cannot run in a process of its own (isolation=process): "
                f"it cannot be pickled ({type(exc).__name__}: {exc}); name it by file "
                "(agent.path=) or target, define it at module level, or use "
                "agent.isolation=thread",
            ) from None

    def prepare(self, agent: ResolvedAgent) -> None:
        """Make sure an idle child has resolved ``agent``; one line if none can.

        Run before the rollout opens, so that starting a process and loading the agent in it
        never counts against the agent's budget (the rollout then takes that child).
        """
        key = self.key(agent)
        with self._lock:
            # One readied child per rollout between this and its call_in_process.
            wanted = self._wanted[key] = self._wanted.get(key, 0) + 1
            if sum(key in child.known for child in self._idle) >= wanted:
                return
        child = self.take(key, resolved=False)
        if key in child.known:  # the only idle ones had it: a new one is readied
            self.give_back(child)
            child = self._start()
        try:
            child.conn.send(("resolve", key))
            if not child.conn.poll(_RESOLVE_WAIT_S):
                raise AgentLoadError(
                    "agent_invalid",
                    f"agent {agent.label} did not load in its process within "
                    f"{_RESOLVE_WAIT_S:.0f} s (isolation=process); check what its module "
                    "does on import",
                )
            _, _, problem = child.conn.recv()
        except BaseException:
            self.discard(child)
            self.promised(key)
            raise
        if problem is None:
            child.known.add(key)
        self.give_back(child)
        if problem is not None:
            self.promised(key)  # no rollout comes of it
            raise AgentLoadError(
                "agent_invalid",
                f"agent {agent.label} cannot run in a process of its own (isolation=process): "
                f"{problem}; make it importable there (a file or an installed module), or use "
                "agent.isolation=thread",
            )

    def forget(self) -> None:
        """Drop every child and the zygote: a forked process shares their sockets, not them."""
        self._idle = []
        self._lock = threading.Lock()
        self._wanted = {}
        self._zygote, self._control = None, None

    def retire(self) -> None:
        """End every idle child and the zygote (at the process's exit).

        Busy children see their socket close when this process ends, and exit on their own.
        """
        with self._lock:
            idle, self._idle = self._idle, []
            for child in idle:
                self.discard(child)
            self._stop_zygote()


PROCESSES = AgentProcesses()
"""The process's agent processes (a pool: it holds idle children, never results)."""

atexit.register(PROCESSES.retire)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=PROCESSES.forget)


def check_isolated(agent: ResolvedAgent) -> None:
    """Raise one line (:class:`AgentLoadError`) unless ``agent`` can run in a child process.

    Also readies an idle child with the agent loaded, outside the rollout's budget.
    """
    PROCESSES.prepare(agent)


def call_in_process(
    agent: ResolvedAgent, inp: AgentInput
) -> tuple[bool, Any, BaseException | None]:
    """Run ``agent`` in a child process, serving its calls here, to its end or the stop.

    Returns what :func:`silo.rollout.worker.call_agent` returns for the same agent on a
    thread: (returned, what it returned, what it raised); (False, None, None) when it was
    stopped and did not return in :data:`STOP_GRACE_S` (its process is killed).
    """
    child: _Child | None = None
    try:  # like call_agent, never raises: whatever goes wrong is the run's recorded failure
        key = PROCESSES.key(agent)
        PROCESSES.promised(key)
        child = PROCESSES.take(key)
        child.known.add(key)  # it resolves the recipe for this run if it had not
        number = next(child.jobs)
        fields = {
            "task": inp.task,
            "tools": inp.tools,
            "seed": inp.seed,
            "task_id": inp.task_id,
            "environment": inp.environment,
            "deadline": inp.deadline,
            "opening": inp.user.opening if inp.user is not None else None,
        }
        child.conn.send(("run", number, key, fields))
        ended, outcome = _serve(child, number, inp)
    except (EOFError, OSError):  # its socket broke: the process died under it
        if child is not None:
            PROCESSES.discard(child)
        return False, None, AgentError("the agent's process exited before it returned")
    except BaseException as exc:  # noqa: BLE001 - e.g. no process could start: recorded
        if child is not None:
            PROCESSES.discard(child)
        return False, None, exc
    if ended == "gone":  # stopped and killed, or its process died
        return False, None, outcome
    PROCESSES.give_back(child)
    if ended == "raised":
        return False, None, outcome
    return True, outcome, None


def _serve(child: _Child, number: int, inp: AgentInput) -> tuple[str, Any]:
    """Answer the child's calls until its agent ends: how (returned, raised, gone) and with what.

    ``gone`` means the child is killed and reaped: stopped and late (None), or it died (why).
    """
    conn, signal = child.conn, inp.signal
    stop_by: float | None = None
    while True:
        now = time.monotonic()
        if stop_by is None and signal.is_set():
            conn.send(("stop", number, signal.reason))
            stop_by = now + STOP_GRACE_S
        if stop_by is not None:
            wait = stop_by - now
            if wait <= 0:
                PROCESSES.discard(child)
                return "gone", None
        elif now < inp.deadline:
            wait = min(inp.deadline - now, _POLL_S)
        else:  # the deadline passed: its timer ends the bridge any moment now
            wait = 0.005
        try:
            if not conn.poll(wait):
                continue
            message = conn.recv()
        except (EOFError, OSError):
            PROCESSES.discard(child)
            return "gone", AgentError("the agent's process exited before it returned")
        if message[1] != number:  # a stray thread of an agent that already returned
            if message[0] in ("call", "user"):
                conn.send(("reply", message[2], ("limit", "completed", "Run ended: completed.")))
            continue
        kind = message[0]
        if kind == "returned":
            try:
                return "returned", {"output": exact_loads(message[2])}
            except RecursionError:  # deep and not readable by orjson (a lone surrogate)
                return "raised", AgentError("its answer could not be read back from its process")
        if kind == "raised":
            return "raised", _rebuilt(message[2], message[3], message[4])
        if kind == "emit":
            with contextlib.suppress(Exception):  # the trace refused it; the agent goes on
                inp.emit(message[2], message[3])
            continue
        conn.send(("reply", message[2], _answer(inp, kind, message[3:])))


def _answer(inp: AgentInput, kind: str, payload: tuple[Any, ...]) -> tuple[Any, ...]:
    """Run one proxied call here: ("ok", its result) or ("limit", reason, message)."""
    try:
        if kind == "call":
            return ("ok", dict(inp.call_tool(payload[0], payload[1])))
        assert inp.user is not None  # the child has a user channel only when the task has
        return ("ok", dict(inp.user.send(payload[0])))
    except RunLimitError as exc:
        return ("limit", exc.reason, str(exc))


def _rebuilt(kind: str, message: str, connect_failed: bool) -> BaseException:
    """The agent's exception as the driver judges it: its kind and its one line."""
    if kind.startswith("limit:"):
        return RunLimitError(kind.partition(":")[2], message)
    if kind == "model":
        return ModelError(message, connect_failed=connect_failed)
    return AgentError(message)
