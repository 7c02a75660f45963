"""The child's side of process isolation: run agents sent by the parent, proxying every act.

Contract: :func:`zygote` is the body of the helper process :mod:`silo.rollout.isolation`
starts (a fresh interpreter); it forks the agent processes, whose body is :func:`main`. It reads the parent's messages on one thread and runs one agent
at a time on its main thread, resolved from its :class:`~silo.agents.resolve.AgentRecipe`
(once per recipe). The agent's ``call_tool``, ``emit`` and ``user.send`` are proxies: each sends
the call to the parent, where the rollout's bridge runs it against the world, and ``call_tool``
and ``user.send`` wait for the answer. A ``stop`` from the parent sets the agent's ``signal``.
When the agent returns, its answer goes back as the JSON copy a rollout records; when it
raises, the exception goes back as its kind and one line. Calls made after the agent returned
(its stray threads) are refused here, as the bridge refuses them. The child ignores SIGINT (the
parent ends its rollouts on Ctrl-C) and exits when the parent's end of its socket closes.

Messages, parent to child: ``("resolve", key)``, ``("run", job, key, fields)``,
``("reply", call, answer)``, ``("stop", job, reason)``, ``("exit",)``. Child to parent:
``("resolved", key, problem)``, ``("call", job, call, name, input)``, ``("user", job, call,
text)``, ``("emit", job, kind, data)``, ``("returned", job, answer as JSON text)``, ``("raised",
job, kind, message, connect_failed)``. ``key`` is the pickled recipe; ``job`` numbers the child's agents.
"""

from __future__ import annotations

import itertools
import os
import pickle
import signal
import socket
import threading
from collections.abc import Mapping
from multiprocessing.connection import Connection
from pathlib import Path
from queue import SimpleQueue
from typing import Any

from silo.agents.contract import (
    AgentError,
    AgentInput,
    CancelSignal,
    ModelError,
    RunLimitError,
    ToolResult,
    UserChannel,
    UserReply,
    unwrap_output,
)
from silo.agents.resolve import AgentRecipe, ResolvedAgent, resolve_agent
from silo.jsonio import compact
from silo.loading.modules import describe_exception
from silo.rollout.bridge import json_value
from silo.rollout.worker import call_agent

__all__ = ["Unpicklable", "describe_error", "main", "zygote"]


class Unpicklable:
    """Stands for a tool input that cannot cross the pipe: the bridge refuses it, quoting it."""

    def __init__(self, text: str) -> None:
        """``text`` is the input's bounded ``repr``."""
        self.text = text

    def __repr__(self) -> str:
        return self.text


def describe_error(error: BaseException) -> tuple[str, str, bool]:
    """(kind, one line, connect_failed) for an agent's exception, as the parent rebuilds it."""
    if isinstance(error, RunLimitError):
        return f"limit:{error.reason}", str(error), False
    if isinstance(error, ModelError):
        return "model", str(error), error.connect_failed
    if isinstance(error, AgentError):
        return "agent", str(error), False
    return "agent", describe_exception(error), False


class _Job:
    """One agent's run in this child: its number, signal, and whether it has returned."""

    __slots__ = ("number", "signal", "over")

    def __init__(self, number: int) -> None:
        self.number = number
        self.signal = CancelSignal()
        self.over = False


class _Child:
    """The child's state: the pipe, the calls waiting for answers, the agents resolved."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.sending = threading.Lock()
        self.jobs: SimpleQueue[tuple[Any, ...] | None] = SimpleQueue()
        self.waiting: dict[int, SimpleQueue[Any]] = {}
        self.call_ids = itertools.count(1)
        self.job: _Job | None = None
        self.agents: dict[bytes, ResolvedAgent] = {}
        reader = threading.Thread(target=self._read, name="silo-isolation-reader", daemon=True)
        reader.start()

    def send(self, message: tuple[Any, ...]) -> None:
        with self.sending:
            self.conn.send(message)

    def _read(self) -> None:
        while True:
            try:
                message = self.conn.recv()
            except (EOFError, OSError):  # the parent is gone: nothing is left to run for
                os._exit(0)
            kind = message[0]
            if kind == "reply":
                box = self.waiting.pop(message[1], None)
                if box is not None:
                    box.put(message[2])
            elif kind == "stop":
                job = self.job
                if job is not None and job.number == message[1]:
                    job.signal.abort(message[2])
            elif kind == "exit":
                self.jobs.put(None)
            else:
                self.jobs.put(message)

    def ask(self, job: _Job, kind: str, *payload: Any) -> Any:
        """Send a call for ``job`` and wait for its answer; refused once the agent returned."""
        if job.over:
            raise RunLimitError("completed", "Run ended: completed.")
        call = next(self.call_ids)
        box: SimpleQueue[Any] = SimpleQueue()
        self.waiting[call] = box
        try:
            self.send((kind, job.number, call, *payload))
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError, ValueError):
            if kind != "call":
                self.waiting.pop(call, None)
                raise
            # What cannot cross (an object, a value too deep for pickle) goes as its text: the
            # bridge there refuses it, quoting it, as it refuses any input that is not JSON.
            name, value = (Unpicklable(_bounded_repr(v)) for v in payload)
            self.send((kind, job.number, call, payload[0] if type(payload[0]) is str else name,
                       value))  # fmt: skip
        answer = box.get()
        if answer[0] == "limit":
            raise RunLimitError(answer[1], answer[2])
        return answer[1]

    def run(self) -> None:
        while (message := self.jobs.get()) is not None:
            if message[0] == "resolve":
                self.send(("resolved", message[1], self._resolve(message[1])))
            else:
                self._run(message[1], message[2], message[3])

    def _resolve(self, key: bytes) -> str | None:
        """Resolve the recipe ``key`` once; None, or one line saying why it cannot be."""
        if key in self.agents:
            return None
        try:
            recipe: AgentRecipe = pickle.loads(key)
            env = None
            if recipe.env_root is not None:
                from silo.loading.environment import load_environment

                env = load_environment(Path(recipe.env_root))
            self.agents[key] = resolve_agent(recipe.spec, env, Path(recipe.project_dir))
        except BaseException as exc:  # noqa: BLE001 - reported to the parent in one line
            return describe_exception(exc)
        return None

    def _run(self, number: int, key: bytes, fields: Mapping[str, Any]) -> None:
        problem = self._resolve(key)
        job = _Job(number)
        self.job = job
        if problem is not None:
            job.over = True
            self.send(("raised", number, "agent", problem, False))
            return
        opening = fields["opening"]
        user = None
        if opening is not None:
            user = UserChannel(opening, lambda text: UserReply(self.ask(job, "user", text)))
        inp = AgentInput(
            task=fields["task"],
            tools=fields["tools"],
            call_tool=lambda name, input=None: ToolResult(self.ask(job, "call", name, input)),
            signal=job.signal,
            seed=fields["seed"],
            task_id=fields["task_id"],
            environment=fields["environment"],
            deadline=fields["deadline"],
            emit=lambda kind, data: self._emit(job, kind, data),
            user=user,
        )
        returned, value, error = call_agent(self.agents[key], inp)
        job.over = True
        if returned:
            # As JSON text: pickle recurses once per level, and an answer may be as deep as
            # a rollout keeps (json_value's copy is plain JSON, written without recursion).
            self.send(("returned", number, compact(json_value(unwrap_output(value)))))
        else:
            assert error is not None
            self.send(("raised", number, *describe_error(error)))

    def _emit(self, job: _Job, kind: str, data: Mapping[str, Any]) -> None:
        if job.over:
            return
        self.send(("emit", job.number, kind, dict(data)))


def _bounded_repr(value: Any) -> str:
    from silo.rollout.bridge import bounded_repr

    return bounded_repr(value)


def main(conn: Connection) -> None:
    """Run agents for the parent at the other end of ``conn`` until it says exit or goes."""
    _Child(conn).run()


def zygote(control_fd: int) -> None:
    """Fork an agent process for each byte the parent sends on the socket ``control_fd``.

    Each child gets one end of a new socket pair; the other end goes back to the parent with
    the child's pid (``SCM_RIGHTS``). This process is single-threaded, so forking is safe, and
    it has imported what a child needs once, so a child starts in a fork's time. Children are
    reaped as they exit (``SIGCHLD`` ignored); the zygote exits when the parent goes.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent ends its rollouts on Ctrl-C
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    control = socket.socket(fileno=control_fd)
    while control.recv(1):
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:  # the agent's process
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # its own subprocesses are its own
            control.close()
            ours.close()
            try:
                main(Connection(theirs.detach()))
            finally:
                os._exit(0)
        theirs.close()
        socket.send_fds(control, [pid.to_bytes(8, "little")], [ours.fileno()])
        ours.close()
