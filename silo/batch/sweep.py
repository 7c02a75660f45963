"""Running many rollouts: points × repeats, resume, progress.

Contract: for points (:class:`silo.batch.point.Point`: environment, task, agent, budget, seed),
:func:`run_points` runs each point ``runs`` times in this process (repeat *i* gets seed
``seed + i``), every rollout in its own folder under ``group_dir``, and returns one
:class:`Outcome` per rollout. A point that cannot start (bad config, missing agent) is an
*infrastructure* failure, recorded in ``group_dir/infra-errors.jsonl`` and never counted as an
agent failure. Each outcome says which of :mod:`silo.batch.outcomes`' five it is. With
``resume`` a rollout whose ``pointId`` already completed anywhere under ``runs_root`` is
skipped and listed in ``group_dir/resumed.jsonl`` instead. Each call is its own batch: a
``group_dir`` holding an earlier batch is refused unless ``resume`` continues it.

A sweep whose model endpoint cannot be reached stops early: after :data:`UNREACHABLE_STOP`
rollouts in a row end with the endpoint refusing the connection (``run.json``'s
``modelUnreachable``), no further rollout starts; each of the rest is recorded in
``infra-errors.jsonl`` as a ``modelError`` that never began, so ``resume=true`` runs it once
the endpoint is back.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from queue import SimpleQueue
from typing import TYPE_CHECKING, Any, TypeVar

from silo.agents.resolve import ResolvedAgent, resolve_agent
from silo.artifacts.run_folder import unwritable
from silo.batch.heap import frozen_heap
from silo.batch.outcomes import (
    COULD_NOT_START,
    FAILED,
    MODEL_ERROR,
    NOT_GRADED,
    PASSED,
    rollout_outcome,
    start_outcome,
)
from silo.batch.point import Point, expand_tasks, point_arguments, point_id, run_point
from silo.batch.summary import run_folders
from silo.errors import ArtifactError, ConfigError, SiloError
from silo.loading.environment import Environment, load_environment
from silo.rollout.on_worker import start_task
from silo.rollout.run import Interrupt, RolloutResult
from silo.world.pool import WorldPools

if TYPE_CHECKING:
    from silo.batch.spread import Spread

# Point, run_point, point_id and expand_tasks live in silo.batch.point and are re-exported here.
__all__ = [
    "UNREACHABLE_STOP",
    "Outcome",
    "worker_count",
    "Point",
    "completed_points",
    "concurrency",
    "expand_tasks",
    "ordered_map",
    "point_id",
    "record_infra_error",
    "refuse_earlier_group",
    "run_point",
    "run_points",
]


T = TypeVar("T")
R = TypeVar("R")

# Connection refusals in a row that stop a sweep: enough that one refused connection (a
# server restarting) does not end it, few enough that a dead endpoint costs seconds.
UNREACHABLE_STOP = 5


@dataclass(frozen=True, slots=True)  # a sweep keeps one per rollout: no __dict__ each
class Outcome:
    """One rollout of a sweep: its point, repeat, run folder, verdict and outcome.

    ``outcome`` is one of :data:`silo.batch.outcomes.OUTCOMES`; ``infra_error`` is the
    one-line reason of a rollout that was not graded (``None`` when it was). The run folder
    is kept as text (``run_path``): a ``Path`` costs about three times the memory of its
    ``str``, and a sweep holds one outcome per rollout.
    """

    point: Point
    repeat: int
    run_path: str | None
    passed: bool
    infra_error: str | None = None
    resumed: bool = False
    outcome: str = COULD_NOT_START
    unreachable: bool = False  # the endpoint refused the connection (see UNREACHABLE_STOP)
    stopped: bool = False  # not started: the sweep had stopped on a dead endpoint

    @property
    def run_dir(self) -> Path | None:
        """The rollout's run folder (``None`` when it could not start)."""
        return None if self.run_path is None else Path(self.run_path)


def completed_points(runs_root: Path) -> dict[str, Path]:
    """Every finished, graded rollout at any depth under ``runs_root`` by its pointId.

    Any depth: a sweep's ``hydra.sweep.subdir`` (e.g. ``${hydra.job.num}``) nests its runs.
    A rollout that was not graded (an environment or model error) does not count: ``resume``
    runs it again once its cause is fixed.
    """
    found: dict[str, Path] = {}
    for folder in run_folders(runs_root):
        try:
            run = json.loads((folder / "run.json").read_text(encoding="utf-8"))
            result = json.loads((folder / "result.json").read_text(encoding="utf-8"))
            graded = rollout_outcome(run, result)[1] is None
        except (OSError, ValueError, AttributeError):
            continue
        if run.get("pointId") and graded:
            found.setdefault(run["pointId"], folder)
    return found


def _recorded(job: _Job, run_dir: Path) -> Outcome:
    """The outcome of a finished rollout as its ``run.json`` and ``result.json`` say."""
    try:
        run = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
        result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
        outcome, reason = rollout_outcome(run, result)
    except (OSError, ValueError, AttributeError):
        outcome, reason = FAILED, None
    passed = outcome == PASSED
    return Outcome(job.point, job.repeat, str(run_dir), passed, reason, True, outcome)


class _Progress:
    def __init__(self, total: int, mode: Any) -> None:
        on_terminal = sys.stderr.isatty() and not os.environ.get("CI")
        self.enabled = total > 1 and (mode is True or (mode in ("auto", None) and on_terminal))
        self.total, self.done = total, 0

    def step(self, label: str) -> None:
        self.done += 1
        if self.enabled:
            end = "\n" if self.done == self.total else ""
            sys.stderr.write(f"\r\033[K[{self.done}/{self.total}] {label}{end}")
            sys.stderr.flush()


def record_infra_error(
    group_dir: Path,
    *,
    environment: str | None,
    task_id: str,
    agent: Any,
    error: str,
    point_id: str | None = None,
    repeat: int | None = None,
    outcome: str = COULD_NOT_START,
) -> None:
    """Append a rollout that never began to ``group_dir/infra-errors.jsonl``.

    ``outcome`` says whose failure it is (see :mod:`silo.batch.outcomes`); the group summary
    counts these records apart from agent failures.
    """
    record = {
        "pointId": point_id,
        "environment": environment,
        "taskId": task_id,
        "agent": agent,
        "repeat": repeat,
        "error": error,
        "outcome": outcome,
    }
    _append_jsonl(group_dir / "infra-errors.jsonl", record)


def _append_jsonl(path: Path, record: Mapping[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")


class _PointAgent:
    """A point's agent for each repeat, resolved once when that is all resolving does.

    The first two repeats resolve the spec as ``run_task`` would; when both give the very same
    callable (a function, a module's ``agent``), later repeats reuse it. A spec that builds a
    new agent each time (a class, a factory with keyword arguments) keeps being resolved per
    repeat, and one that fails is left to ``run_task`` to report like any agent that fails.
    """

    __slots__ = ("spec", "environment", "project_dir", "seen", "stable", "tries")

    def __init__(self, spec: Any, environment: Environment | None, project_dir: Path) -> None:
        self.spec, self.environment, self.project_dir = spec, environment, project_dir
        self.seen: ResolvedAgent | None = None
        self.stable: ResolvedAgent | None = None
        self.tries = 0 if environment is not None else 2

    def next(self) -> Any:
        if self.stable is not None:
            return self.stable
        if self.tries >= 2:
            return self.spec
        self.tries += 1
        try:
            resolved = resolve_agent(self.spec, self.environment, self.project_dir)
        except Exception:  # noqa: BLE001 - run_task resolves again and reports it as always
            self.tries = 2
            return self.spec
        if self.seen is None:
            _open_endpoint(resolved)
        elif self.seen.fn is resolved.fn:
            self.stable = resolved
        self.seen = resolved
        return resolved


def _open_endpoint(resolved: ResolvedAgent) -> None:
    """Open a model agent's endpoint now: its SDK is imported before the heap is frozen.

    Anything wrong with it is left to the rollouts to report, as always.
    """
    opener = getattr(resolved.fn, "open_endpoint", None)
    if getattr(resolved.fn, "runs_on_model_loop", False) is True and callable(opener):
        with contextlib.suppress(Exception):
            opener()


def _whole_number(value: Any, key: str, meaning: str) -> int:
    """``value`` of ``key`` checked: a whole number >= 1 (one clear line otherwise)."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(
            "config_invalid", f"{key} must be a whole number >= 1 ({meaning}), got {value!r}"
        )
    return value


def concurrency(value: Any) -> int:
    """``max_concurrency`` checked: a whole number >= 1 (one clear line otherwise)."""
    return _whole_number(value, "max_concurrency", "rollouts in flight")


def worker_count(value: Any) -> int:
    """``workers`` checked: a whole number >= 1 (processes to spread a sweep over)."""
    return _whole_number(value, "workers", "processes to spread the rollouts over")


def ordered_map(fn: Callable[[T], R], items: Iterable[T], max_concurrency: int) -> Iterator[R]:
    """``map(fn, items)`` with up to ``max_concurrency`` calls in flight, results in order.

    For callers whose items are whole rollouts (e.g. ``silo-baseline check``): each call runs
    on a thread of its own, and results are yielded as soon as every earlier one is in.
    """
    limit = concurrency(max_concurrency)
    if limit == 1:
        yield from map(fn, items)
        return
    with ThreadPoolExecutor(limit, thread_name_prefix="silo-rollout") as pool:
        window: deque[Future[R]] = deque()
        for item in items:
            window.append(pool.submit(fn, item))
            if len(window) >= limit:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()


@dataclass(frozen=True, slots=True)
class _Job:
    """One rollout of a sweep, planned in (point, repeat) order."""

    index: int
    point: Point
    repeat: int
    pid: str
    label: str
    environment: Environment | None
    agent: Any
    resumed_from: str | None


def run_points(
    points: list[Point],
    runs: int,
    *,
    project_dir: Path,
    group_dir: Path,
    group_id: str,
    runs_root: Path | None = None,
    resume: bool = False,
    progress: Any = "auto",
    max_concurrency: int = 1,
    shared_group: bool = False,
    workers: int = 1,
) -> list[Outcome]:
    """Run every point ``runs`` times, up to ``max_concurrency`` rollouts in flight at once.

    ``workers=P`` (P > 1) spreads the rollouts over P processes, this one and P - 1 it starts,
    each keeping up to ``max_concurrency`` in flight (see :mod:`silo.batch.spread`); everything
    below holds the same, and each rollout's ``result.json`` and ``state-diff.json`` are the
    same bytes.

    Each rollout in flight has an agent thread of its own (see :mod:`silo.rollout.worker`),
    so sync and async agents alike overlap their waits, and one that hangs is abandoned at
    its timeout without holding up the others. Outcomes, ``infra-errors.jsonl``,
    ``resumed.jsonl`` and progress come in (point, repeat) order whatever finished first.
    Ctrl-C stops starting rollouts, ends those in flight as ``interrupted`` with complete
    records, then raises ``KeyboardInterrupt``; ``resume`` finishes the rest.

    Each call is a batch of its own: a ``group_dir`` that already holds an earlier batch's
    rollouts is refused (``group_not_new``) unless ``resume`` continues it, so a summary never
    adds two batches up. ``shared_group`` is for the jobs of one Hydra sweep, which write one
    folder together (the sweep checks it once, before its first job).
    """
    limit = concurrency(max_concurrency)
    # No more processes than rollouts: a worker costs a fresh interpreter's start.
    processes = min(worker_count(workers), max(1, len(points) * runs))
    if not (resume or shared_group):
        refuse_earlier_group(group_dir)
    project = Path(project_dir).resolve()
    try:
        group_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise unwritable(group_dir, exc, "the group folder") from None
    done_before = completed_points(runs_root or group_dir.parent) if resume else {}
    if resume:  # the group's own rollouts first: a continued group counts each once
        done_before.update(completed_points(group_dir))
    bar = _Progress(len(points) * runs, progress)
    sweep = _Sweep(project, group_dir, group_id, bar)
    jobs = _plan(points, runs, project, done_before, load=processes == 1)
    if processes > 1:
        from silo.batch.spread import Spread  # a sweep in one process never starts another

        spread = Spread(sweep, jobs, limit, processes, points)
        spread.start()  # on this thread: see Spread.start
        with frozen_heap():
            sweep.run_concurrently(spread)
    elif limit == 1:
        for job in jobs:
            outcome = sweep.skipped(job) if sweep.stopped else sweep.attempt(job)
            sweep.emit(job, sweep.note(outcome))
    else:
        # The first point's environment and agent loaded (and its endpoint opened) first, so
        # that they are part of the heap kept out of the collector's scans (silo.batch.heap).
        first = next(jobs, None)
        with frozen_heap():
            chained = jobs if first is None else itertools.chain([first], jobs)
            sweep.run_concurrently(_InFlight(sweep, chained, limit))
    return sweep.outcomes


def refuse_earlier_group(group_dir: Path) -> None:
    """Raise ``group_not_new`` when ``group_dir`` holds a rollout or record of an earlier batch."""
    records = ("infra-errors.jsonl", "resumed.jsonl")
    if not group_dir.is_dir():
        return
    earlier = len(run_folders(group_dir)) or any((group_dir / r).is_file() for r in records)
    if earlier:
        raise ArtifactError(
            "group_not_new",
            f"{group_dir} already holds an earlier batch; give a new group folder, "
            "or resume=True (silo-run: resume=true) to continue that group",
        )


def _plan(
    points: list[Point], runs: int, project: Path, done_before: Mapping[str, Path], load: bool
) -> Iterator[_Job]:
    """The rollouts in (point, repeat) order; with ``load``, each point's environment loaded once.

    Without ``load`` (the rollouts run in worker processes, which load their own), jobs carry
    no environment and no agent.
    """
    index = 0
    for point in points:
        environment: Environment | None = None
        # Once per point; a point whose environment cannot load reports it per rollout.
        with contextlib.suppress(SiloError):
            environment = load_environment(point.env, project) if load else None
        agents = _PointAgent(point.agent, environment, project)
        for repeat in range(runs):
            pid = point_id(point, repeat)
            label = f"{point.task} {point.agent_label} #{repeat + 1}"
            found = done_before.get(pid)
            resumed = None if found is None else str(found)
            agent = agents.next() if resumed is None and load else None
            yield _Job(index, point, repeat, pid, label, environment, agent, resumed)
            index += 1


def verdict(result: RolloutResult) -> tuple[str | None, str, str | None, bool]:
    """A finished rollout's run folder, outcome, reason not graded, and refused connection."""
    run_path = None if result.run_dir is None else str(result.run_dir)
    # A verifier that raised, or a failing endpoint, is not the agent's: counted apart.
    outcome, reason = rollout_outcome(result.run, result.result)
    return run_path, outcome, reason, result.run.get("modelUnreachable") is True


def _outcome(job: _Job, result: RolloutResult) -> Outcome:
    run_path, outcome, reason, unreachable = verdict(result)
    return Outcome(
        job.point, job.repeat, run_path, outcome == PASSED, reason, False, outcome, unreachable
    )


def _start_failure(job: _Job, error: SiloError) -> Outcome:
    return Outcome(job.point, job.repeat, None, False, error.message, outcome=start_outcome(error))


class _Sweep:
    """The running state of one ``run_points`` call: its pools, stop request and outcomes."""

    def __init__(self, project: Path, group_dir: Path, group_id: str, bar: _Progress) -> None:
        self.project, self.group_dir, self.group_id, self.bar = project, group_dir, group_id, bar
        self.worlds = WorldPools()  # this sweep's worlds: one per rollout in flight, reused
        self.interrupt = Interrupt()
        self.outcomes: list[Outcome] = []
        self.refused = 0  # rollouts in a row whose endpoint refused the connection
        self.stopped: str | None = None  # why no further rollout starts (a dead endpoint)
        self.settings: dict[str, Any] = {  # what every rollout of the sweep shares
            "project_dir": project,
            "runs_dir": group_dir,
            "group_id": group_id,
            "worlds": self.worlds,
            "interrupt": self.interrupt,
        }

    def attempt(self, job: _Job) -> Outcome:
        """Run one rollout (on any thread); a rollout that cannot start is an infra outcome."""
        if job.resumed_from is not None:  # its verdict is the one recorded back then
            return _recorded(job, Path(job.resumed_from))
        try:
            result = run_point(
                job.point, job.repeat, environment=job.environment, agent=job.agent,
                pid=job.pid, **self.settings,
            )  # fmt: skip
        except SiloError as exc:
            return _start_failure(job, exc)
        return _outcome(job, result)

    def note(self, outcome: Outcome) -> Outcome:
        """Count a rollout that ended (in the order they end); stop the sweep on a dead endpoint."""
        if outcome.resumed or outcome.run_path is None:
            return outcome
        self.refused = self.refused + 1 if outcome.unreachable else 0
        if self.refused >= UNREACHABLE_STOP and self.stopped is None:
            self.stopped = (
                f"not started: the model endpoint refused {UNREACHABLE_STOP} rollouts in a row "
                f"(last: {outcome.infra_error}); start it, then rerun with resume=true"
            )
        return outcome

    def settle(self, job: _Job) -> Outcome | None:
        """The outcome of a job that runs no rollout (resumed, or the sweep stopped); else None."""
        if job.resumed_from is not None:
            return self.attempt(job)
        return None if self.stopped is None else self.skipped(job)

    def skipped(self, job: _Job) -> Outcome:
        """A rollout not started because the sweep stopped on a dead endpoint: a model error."""
        reason = self.stopped or "not started"
        return Outcome(
            job.point, job.repeat, None, False, reason, outcome=MODEL_ERROR, stopped=True
        )

    def emit(self, job: _Job, outcome: Outcome) -> None:
        """Record an outcome (on the calling thread, in plan order): files, progress, list."""
        if outcome.resumed:
            _append_jsonl(
                self.group_dir / "resumed.jsonl", {"pointId": job.pid, "runDir": outcome.run_path}
            )
            self.bar.step(f"{job.label} (resumed)")
        elif outcome.run_path is None:  # it never began: the one record of it
            record_infra_error(
                self.group_dir,
                environment=job.point.env,
                task_id=job.point.task,
                agent=job.point.agent_label,
                error=outcome.infra_error or "?",
                point_id=job.pid,
                repeat=job.repeat,
                outcome=outcome.outcome,
            )
            self.bar.step(f"{job.label} ERROR")
        elif outcome.outcome in NOT_GRADED:
            self.bar.step(f"{job.label} ERROR")
        else:
            self.bar.step(f"{job.label} {'PASS' if outcome.passed else 'FAIL'}")
        self.outcomes.append(outcome)

    def run_concurrently(self, control: _InFlight | Spread) -> None:
        """Run ``control`` (rollouts in flight, here or in workers); it emits in plan order.

        The bookkeeping runs on a thread of its own, so Ctrl-C (always raised in the main
        thread) can only fire the interrupt, never land between starting a rollout and
        counting it; the main thread waits for every started rollout's record, then raises.
        """
        thread = threading.Thread(target=control.run, name="silo-sweep", daemon=True)
        thread.start()
        # An Event, not Thread.join: a join that Ctrl-C interrupted takes the thread for ended
        # (CPython 3.11), and the records of the rollouts in flight would be cut short.
        try:
            control.over.wait()
        except KeyboardInterrupt:
            self.interrupt.fire()  # those in flight end now, each with its whole record
            control.over.wait()
            raise
        if control.failure is not None:
            raise control.failure

    def emit_ready(self, ready: dict[int, tuple[_Job, Outcome]], next_index: int) -> int:
        """Emit the outcomes that are next in plan order; the index of the next one to come."""
        while next_index in ready:
            self.emit(*ready.pop(next_index))
            next_index += 1
        return next_index


class _InFlight:
    """A sweep's rollouts in flight, each run whole on its agent's thread (``start_task``)."""

    def __init__(self, sweep: _Sweep, jobs: Iterator[_Job], limit: int) -> None:
        self.sweep, self.jobs, self.limit = sweep, jobs, limit
        self.ended: SimpleQueue[tuple[_Job, RolloutResult | BaseException]] = SimpleQueue()
        self.in_flight = 0
        self.failure: BaseException | None = None
        self.over = threading.Event()  # set when every rollout started has its record

    def run(self) -> None:
        """Start the jobs in plan order, up to ``limit`` at once; emit outcomes in that order.

        After a failure (or Ctrl-C) no rollout starts, and those in flight are waited for.
        """
        sweep = self.sweep
        ready: dict[int, tuple[_Job, Outcome]] = {}
        next_index = 0
        try:
            for job in self.jobs:
                if sweep.interrupt.requested or self.failure is not None:
                    break
                settled = sweep.settle(job)
                if settled is None:
                    self.start(job)
                else:
                    ready[job.index] = (job, settled)
                while self.in_flight >= self.limit or (self.in_flight and not self.ended.empty()):
                    self.receive(ready)
                next_index = sweep.emit_ready(ready, next_index)
        except BaseException as exc:  # noqa: BLE001 - the main thread raises it after the drain
            self.failure = self.failure or exc
        try:
            while self.in_flight:
                self.receive(ready)
            sweep.emit_ready(ready, next_index)
        except BaseException as exc:  # noqa: BLE001 - as above
            self.failure = self.failure or exc
        finally:
            self.over.set()

    def start(self, job: _Job) -> None:
        sweep = self.sweep
        arguments = point_arguments(
            job.point, job.repeat, runs_dir=sweep.group_dir, group_id=sweep.group_id,
            environment=job.environment, agent=job.agent, pid=job.pid,
        )  # fmt: skip
        start_task(
            partial(self._ended, job), **arguments, project_dir=sweep.project,
            worlds=sweep.worlds, interrupt=sweep.interrupt,
        )  # fmt: skip
        self.in_flight += 1

    def _ended(self, job: _Job, got: RolloutResult | BaseException) -> None:
        self.ended.put((job, got))  # on the rollout's thread: the one hand-off back

    def receive(self, ready: dict[int, tuple[_Job, Outcome]]) -> None:
        """Wait for the next rollout to end and keep its outcome (a failure: to raise)."""
        job, got = self.ended.get()
        self.in_flight -= 1
        if isinstance(got, SiloError):
            ready[job.index] = (job, _start_failure(job, got))
        elif isinstance(got, BaseException):
            self.failure = self.failure or got
        else:
            ready[job.index] = (job, self.sweep.note(_outcome(job, got)))
