"""One sweep's rollouts spread over worker processes (``workers=P``).

Contract: :class:`Spread` runs the rollouts :func:`silo.batch.sweep.run_points` planned on
``workers`` processes of this machine, each keeping up to ``max_concurrency`` rollouts in
flight, and hands every outcome to the sweep, which records them in (point, repeat) order in
this process as with one process. The launching process is one of them; the ``workers - 1``
others are started with the standard library's ``spawn`` method (a fresh interpreter each: no
fork of a process that runs threads) and talk to this one over a :func:`multiprocessing.Pipe`
each; what crosses it is plain picklable tuples, never a protocol of Silo's. The launching
process's own rollouts report through a pipe of their own the same way, so every outcome
takes one path. A started worker costs a fresh interpreter, Silo's imports and the
environment (docs/performance.md): running a share here saves one of them, and rollouts start
at once instead of after the workers' start. The model endpoints opened here go to each
worker first, so a worker never imports a model SDK to learn their URL and headers.

The launching process keeps the sweep: it plans, resumes, dispatches each rollout to the
process with the fewest in flight (so a slow one gets fewer), counts refused connections in
the order rollouts end and stops dispatching on a dead endpoint, and prints progress. A
worker only opens, runs and records the rollouts it is sent (their folders are made with an
exclusive ``mkdir``, so processes never share one) and says how each ended. Ctrl-C reaches
only the launching process: the workers ignore SIGINT and are told to end the rollouts in
flight as ``interrupted``, each with its complete record, exactly as one process does. A
worker whose launching process went away does the same and exits. A worker that dies (killed,
out of memory) stops the sweep with one ``worker_lost`` line once the others' rollouts are in.

What a worker needs must pickle: points whose agent is a name, a path, a target or a config
mapping do; an agent given as a lambda or a local function does not, and is refused in one
line before any process starts. Like any ``spawn`` user, a script calling ``run_points(...,
workers=P)`` keeps its top-level code under ``if __name__ == "__main__":``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import pickle
import signal
import sys
import threading
from collections.abc import Iterator
from functools import partial
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

from silo.batch.heap import freeze_for_good
from silo.batch.outcomes import PASSED, start_outcome
from silo.batch.point import Point, point_arguments
from silo.batch.sweep import Outcome, _PointAgent, verdict
from silo.errors import ArtifactError, ConfigError, SiloError
from silo.loading.environment import Environment, load_environment
from silo.rollout.on_worker import start_task
from silo.rollout.run import Interrupt, RolloutResult
from silo.world.pool import WorldPools

if TYPE_CHECKING:
    from silo.batch.sweep import _Job, _Sweep

__all__ = ["Spread", "serve"]

_INTERRUPT = "interrupt"  # to a worker: end the rollouts in flight as interrupted
_ENDPOINTS = "endpoints"  # to a worker, first: (_ENDPOINTS, the endpoints opened here)
# A rollout's end, from a worker: (job index, run folder, outcome, reason, refused connection).
Reply = tuple[int, str | None, str, str | None, bool]
Failed = tuple[int, BaseException]  # a rollout that raised what is not a SiloError


class Spread:
    """The launching side of a sweep spread over processes, run on the sweep's control thread.

    Same shape as :class:`silo.batch.sweep._InFlight`: ``run`` ends with ``over`` set and any
    exception to raise in ``failure``.
    """

    def __init__(
        self, sweep: _Sweep, jobs: Iterator[_Job], limit: int, workers: int, points: list[Point]
    ) -> None:
        self.sweep, self.jobs, self.limit, self.workers = sweep, jobs, limit, workers
        self.points = {id(p): n for n, p in enumerate(points)}  # what a job's point is called
        self.points_list = points
        self.payload = _payload((sweep.project, sweep.group_dir, sweep.group_id, points))
        self.failure: BaseException | None = None
        self.over = threading.Event()
        self.conns: list[Connection] = []  # from each process: this one's own first
        self.processes: list[Any] = []  # None for this one
        self.sent: list[dict[int, _Job]] = []  # each process's rollouts in flight, by job index
        self.send_lock = threading.Lock()  # Ctrl-C sends from the main thread too
        self.local: _Worker | None = None  # this process's share of the rollouts

    def run(self) -> None:
        """Dispatch the jobs in plan order to the started workers, emit outcomes in that order."""
        sweep = self.sweep
        ready: dict[int, tuple[_Job, Outcome]] = {}
        next_index = 0
        try:
            sweep.interrupt.watch(self.interrupt_workers)
            for job in self.jobs:
                if sweep.interrupt.requested or self.failure is not None:
                    break
                settled = sweep.settle(job)
                if settled is not None:
                    ready[job.index] = (job, settled)
                elif not self.dispatch(job, ready):
                    break
                self.receive(ready, block=False)
                next_index = sweep.emit_ready(ready, next_index)
        except BaseException as exc:  # noqa: BLE001 - the main thread raises it after the drain
            self.failure = self.failure or exc
        try:
            while any(self.sent):
                self.receive(ready, block=True)
            sweep.emit_ready(ready, next_index)
        except BaseException as exc:  # noqa: BLE001 - as above
            self.failure = self.failure or exc
        finally:
            sweep.interrupt.unwatch(self.interrupt_workers)
            self.stop()
            self.over.set()

    def start(self) -> None:
        """Start the worker processes, then load the first point here (before :meth:`run`).

        Called on the caller's thread. The first point's environment and agent (its model
        endpoint opened) load here while the workers start, before the heap is frozen
        (:mod:`silo.batch.heap`).

        A worker inherits an ignored SIGINT through ``exec`` only if this process ignores it
        while starting them, and only the main thread may change that: called there, a Ctrl-C
        to the whole process group while the workers import cannot stop them (the launcher
        sees it once they are started). From another thread a worker ignores SIGINT once it
        runs.
        """
        context = multiprocessing.get_context("spawn")
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            replies, reply = context.Pipe(duplex=False)
            sweep = self.sweep
            local = self.local = _Worker(
                reply, sweep.project, sweep.group_dir, sweep.group_id, self.points_list
            )
            local.frozen = True  # this process outlives the sweep: frozen_heap's to do
            self.conns.append(replies)
            self.processes.append(None)
            self.sent.append({})
            for number in range(1, self.workers):
                mine, theirs = context.Pipe()
                process = context.Process(
                    target=serve, args=(theirs, self.payload),
                    name=f"silo-worker-{number}", daemon=True,
                )  # fmt: skip
                process.start()
                theirs.close()  # the worker's end lives in the worker alone: its exit is EOF here
                self.conns.append(mine)
                self.processes.append(process)
                self.sent.append({})
        except BaseException:
            self.stop()  # those already started
            raise
        finally:
            if main:
                signal.signal(signal.SIGINT, previous)
        if self.points_list:
            local.prepare(0).next()  # the first point's environment and agent
        self.hand_over_endpoints()

    def hand_over_endpoints(self) -> None:
        """Send the workers the model endpoints opened here: they need no SDK to open them.

        Importing a model SDK is a large part of a worker's start (docs/performance.md), only
        to learn the URL and headers this process already knows.
        """
        if "silo.agents.endpoints" not in sys.modules:  # no model agent was built here
            return
        from silo.agents.endpoints import opened_endpoints

        opened = opened_endpoints()
        if opened:
            for number in range(1, len(self.conns)):
                self.send(number, (_ENDPOINTS, opened))

    def dispatch(self, job: _Job, ready: dict[int, tuple[_Job, Outcome]]) -> bool:
        """Send ``job`` to the worker with the fewest rollouts in flight, once one has room.

        False, with ``job`` not sent, when Ctrl-C or a failure came while waiting for room.
        """
        while True:
            if self.sweep.interrupt.requested or self.failure is not None:
                return False
            live = [n for n, sent in enumerate(self.sent) if not self.conns[n].closed]
            if not live:
                raise _lost(0, None)
            number = min(live, key=lambda n: len(self.sent[n]))
            if len(self.sent[number]) < self.limit:
                break
            self.receive(ready, block=True)
        message = (job.index, self.points[id(job.point)], job.repeat, job.pid)
        self.sent[number][job.index] = job
        self.send(number, message)
        return True

    def send(self, number: int, message: Any) -> None:
        """Send ``message`` to process ``number`` (a worker that is gone is found on receiving).

        Number 0 is this process: a rollout starts here, an interrupt fires here.
        """
        local = self.local
        if number == 0 and local is not None:
            if message == _INTERRUPT:
                local.interrupt.fire()
            elif message is not None:
                try:
                    local.start(*message)
                except Exception as exc:  # noqa: BLE001 - where a worker would die: reported
                    local.ended(message[0], exc)
            return
        with self.send_lock, contextlib.suppress(OSError, ValueError):
            self.conns[number].send(message)

    def receive(self, ready: dict[int, tuple[_Job, Outcome]], block: bool) -> None:
        """Keep the outcomes the workers sent (waiting for one when ``block``)."""
        woken = wait([c for c in self.conns if not c.closed], timeout=None if block else 0)
        for number, conn in enumerate(self.conns):
            if conn not in woken:
                continue
            try:
                reply: Reply | Failed = conn.recv()
            except (EOFError, OSError):
                self.worker_gone(number, ready)
                continue
            job = self.sent[number].pop(reply[0])
            if len(reply) == 2:  # the rollout raised what is not a SiloError: raised here
                self.failure = self.failure or reply[1]
                continue
            index, run_path, outcome, reason, unreachable = reply
            ended = Outcome(
                job.point, job.repeat, run_path, outcome == PASSED, reason, False, outcome,
                unreachable,
            )  # fmt: skip
            ready[index] = (job, ended if run_path is None else self.sweep.note(ended))

    def worker_gone(self, number: int, ready: dict[int, tuple[_Job, Outcome]]) -> None:
        """A worker's pipe closed: it died, with its rollouts in flight unrecorded."""
        self.conns[number].close()
        lost = self.sent[number]
        self.sent[number] = {}
        process = self.processes[number]
        if process is not None:
            process.join(timeout=5)  # its pipe is closed: it has exited or is about to
        if lost:
            status = None if process is None else process.exitcode
            self.failure = self.failure or _lost(len(lost), status)
            self.sweep.interrupt.fire()  # no further rollout starts; the others end theirs

    def interrupt_workers(self) -> None:
        """Tell every worker to end its rollouts in flight (on the thread that fired)."""
        for number in range(len(self.conns)):
            self.send(number, _INTERRUPT)

    def stop(self) -> None:
        """Tell the workers there is no more work, and wait for them to exit."""
        for number in range(len(self.conns)):
            self.send(number, None)
        for process in self.processes:
            if process is None:  # this process: its rollouts have ended (run drained them)
                continue
            process.join(timeout=60)  # they have no rollout left in flight: exiting is quick
            if process.is_alive():
                process.kill()
                process.join()
        for conn in self.conns:
            conn.close()
        if self.local is not None:
            self.local.conn.close()


def _lost(rollouts: int, status: int | None) -> ArtifactError:
    return ArtifactError(
        "worker_lost",
        f"a worker process ended (exit status {status}) with {rollouts} rollout(s) in flight, "
        "their records incomplete; check memory and the system log, then rerun with resume=true",
    )


def _payload(work: tuple[Path, Path, str, list[Point]]) -> bytes:
    """What every worker needs, pickled once here (one clear line if the agents cannot be)."""
    try:
        return pickle.dumps(work)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise ConfigError(
            "config_invalid",
            f"workers=P needs agents a worker process can load (a name, a file, a target or a "
            f"module-level function); this one cannot be sent: {exc}; use workers=1",
        ) from None


# -- the worker process ---------------------------------------------------------------------


def serve(conn: Connection, payload: bytes) -> None:
    """A worker's life: run every rollout it is sent at once, reply as each ends, then exit.

    Its launching process keeps at most ``max_concurrency`` in flight here. ``None`` means no
    more work; :data:`_INTERRUPT` ends those in flight; a closed pipe (the launching process
    is gone) does both.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the launching process's to handle
    worker = _Worker(conn, *pickle.loads(payload))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            worker.interrupt.fire()
            break
        if message is None:
            break
        if message == _INTERRUPT:
            worker.interrupt.fire()
            continue
        if message[0] == _ENDPOINTS:
            from silo.agents.endpoints import adopt_endpoints

            adopt_endpoints(message[1])
            continue
        worker.start(*message)
    worker.drain()


class _Worker:
    """A worker process's rollouts: its world pools, stop request, points' environments."""

    def __init__(
        self, conn: Connection, project: Path, group_dir: Path, group_id: str, points: list[Point]
    ) -> None:
        self.conn, self.points = conn, points
        self.project, self.group_dir, self.group_id = project, group_dir, group_id
        self.interrupt = Interrupt()
        self.worlds = WorldPools()  # this worker's worlds: one per rollout in flight, reused
        self.agents: dict[int, _PointAgent] = {}
        self.send_lock = threading.Lock()  # rollouts end on threads of their own
        self.count = threading.Condition()
        self.in_flight = 0
        self.frozen = False  # whether the heap was frozen (before the first rollout)

    def prepare(self, number: int) -> _PointAgent:
        """Point ``number``'s environment and agents, loaded on first use."""
        agents = self.agents.get(number)
        if agents is None:  # once per point, as the sweep in one process does
            agents = self.agents[number] = _point_agent(self.points[number], self.project)
        return agents

    def start(self, index: int, number: int, repeat: int, pid: str) -> None:
        """Start repeat ``repeat`` of point ``number`` on its agent's thread."""
        point = self.points[number]
        agents = self.prepare(number)
        agent = agents.next()  # the first of a point opens a model agent's endpoint
        if not self.frozen:
            # This process ends with the sweep: what it loaded for its first rollout (modules,
            # environment, the agent's SDK) stays out of the collector's scans for good.
            freeze_for_good()
            self.frozen = True
        arguments = point_arguments(
            point, repeat, runs_dir=self.group_dir, group_id=self.group_id,
            environment=agents.environment, agent=agent, pid=pid,
        )  # fmt: skip
        with self.count:
            self.in_flight += 1
        start_task(
            partial(self.ended, index), **arguments, project_dir=self.project,
            worlds=self.worlds, interrupt=self.interrupt,
        )  # fmt: skip

    def ended(self, index: int, got: RolloutResult | BaseException) -> None:
        """On the rollout's thread: say how it ended."""
        reply: Reply | Failed
        if isinstance(got, SiloError):
            reply = (index, None, start_outcome(got), got.message, False)
        elif isinstance(got, BaseException):
            reply = (index, _picklable(got))
        else:
            reply = (index, *verdict(got))
        # A launching process that is gone cannot hear it; the record is on disk all the same.
        with self.send_lock, contextlib.suppress(OSError, ValueError):
            self.conn.send(reply)
        with self.count:
            self.in_flight -= 1
            self.count.notify_all()

    def drain(self) -> None:
        """Wait until every rollout started here has its record."""
        with self.count:
            self.count.wait_for(lambda: self.in_flight == 0)


def _point_agent(point: Point, project: Path) -> _PointAgent:
    """A point's environment, loaded once, and its agent for each repeat."""
    try:
        environment: Environment | None = load_environment(point.env, project)
    except SiloError:  # reported per rollout, as in one process
        environment = None
    return _PointAgent(point.agent, environment, project)


def _picklable(exc: BaseException) -> BaseException:
    """``exc`` if it crosses a pipe, else a RuntimeError that says what it was."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any exception can fail to pickle in its own way
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc
