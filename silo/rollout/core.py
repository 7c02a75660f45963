"""The rollout core: one rollout from its ``run_start`` event to its five artifacts.

Contract: :meth:`Rollout.open` takes a fresh world, allocates the run folder (when artifacts are
written), opens the trace and writes ``run_start``, whose tool specs are stored once in the
project's ``.silo/tools`` and named by ``toolsSha256`` (:mod:`silo.artifacts.tool_store`; a
trace kept in memory, or run folders outside a ``.silo``, carry them as ``tools``). Tool calls go through ``rollout.bridge``.
:meth:`Rollout.finish` ends it once: no call may start after it began, the verifier grades the
frozen world, ``trace.jsonl`` is completed and ``state-diff.json``, ``state-changes.json``,
``result.json`` and ``run.json`` are written; the world goes back to its pool. Every driver (:func:`run_task` with
an agent on a worker thread, :class:`~silo.rollout.session.Session` driven by outside code,
sweeps and baselines through ``run_task``) ends its rollouts here, so they agree byte for byte.

A task with a ``user`` block (and a user other than ``none``) gets a
:class:`~silo.rollout.conversation.Conversation`: the agent receives the user's opening as its
task and the user channel; ``run.json`` adds ``user``, ``userIdentity``, ``userTurns``,
``conversationEndedBy`` and ``config.maxUserTurns``, and the verifier's context carries the
transcript. A task without one is rolled out exactly as before.
"""

from __future__ import annotations

import contextvars
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from silo.agents.contract import UserChannel
from silo.artifacts.atomic import write_json_new
from silo.artifacts.documents import SCHEMA_VERSION
from silo.artifacts.run_folder import allocate_run_dir, build_result, unwritable
from silo.artifacts.tool_store import TOOLS_KEY, store_for, store_tools, tools_digest
from silo.json_types import JSON
from silo.loading.discovery import locate, project_path
from silo.loading.environment import (
    Environment,
    check_tools,
    tool_mistake,
)
from silo.rollout.bridge import Bridge, recorded_error, stored_output
from silo.rollout.conversation import Conversation
from silo.rollout.grading import grade, world_failed
from silo.rollout.result import Budget, RolloutResult
from silo.rollout.trace import TraceWriter, event_json
from silo.tasks import Task
from silo.users.resolve import UserChoice, resolve_user
from silo.verifiers import Verifier
from silo.world.changes import state_changes
from silo.world.pool import World, WorldPool, WorldPools

__all__ = [
    "ACTIVE_ROLLOUT",
    "SHARED_WORLDS",
    "Rollout",
    "locate",  # moved to silo.loading.discovery; importable here as before
    "project_path",
]

SHARED_WORLDS = WorldPools()
"""The worlds of rollouts whose caller brought no pools of its own (a cache, never results)."""

ACTIVE_ROLLOUT: contextvars.ContextVar[Rollout | None] = contextvars.ContextVar(
    "silo_active_rollout", default=None
)
"""The rollout whose agent runs in this context: sessions refuse calls made for another one."""


def _tool_mistake(world: World) -> str:
    """The first malformed tool of a pool's worlds ("" when none), computed once per pool."""
    return tool_mistake(world.tool_list) or ""


def _tools_sha(world: World) -> str:
    """The stored specs' name (:func:`tools_digest`), computed once per pool."""
    return tools_digest(run_start_tools(world)[1])


def run_start_tools(world: World) -> tuple[str, bytes, list[dict[str, JSON]]]:
    """The tool specs and the ``tools`` of ``run_start`` as JSON text and UTF-8.

    Made once per pool (:meth:`WorldPool.derived`): every world of an environment offers the
    same tools, and a rollout must not pay for serialising them again.
    """
    specs = [t.spec() for t in world.tool_list]
    text = event_json(specs)
    return text, text.encode("utf-8"), specs


class Rollout:
    """One rollout's world, bridge and trace, from ``run_start`` to its five artifacts."""

    def __init__(
        self,
        *,
        environment: Environment,
        task: Task,
        verifier: Verifier,
        limits: Budget,
        pool: WorldPool,
        world: World,
        trace: TraceWriter,
        run_id: str | None,
        run_dir: Path | None,
        run: dict[str, JSON],
        extra: Mapping[str, JSON] | None = None,
    ) -> None:
        self.environment, self.task, self.verifier, self.limits = (
            environment,
            task,
            verifier,
            limits,
        )
        self.pool, self.world, self.trace = pool, world, trace
        self.run_id, self.run_dir, self.run_fields = run_id, run_dir, run
        self.extra = dict(extra or {})  # the caller's own run.json keys, written last
        self.bridge = Bridge(world, trace, limits.max_tool_calls)
        self.tool_specs: list[dict[str, JSON]] = []
        self.clock = time.monotonic()
        self.deadline = float("inf")
        self.result: RolloutResult | None = None
        self.conversation: Conversation | None = None
        self._finishing = threading.Lock()
        self.recorded = threading.Event()  # set when a finish() ends (its record written)

    @property
    def agent_task(self) -> str:
        """What the agent receives as its task: the user's opening, or the instruction."""
        conversation = self.conversation
        return self.task.instruction if conversation is None else conversation.spec.opening

    @property
    def user_channel(self) -> UserChannel | None:
        """The agent's line to the simulated user (None when the task is no conversation)."""
        return None if self.conversation is None else self.conversation.channel

    @classmethod
    def open(
        cls,
        environment: Environment,
        task: Task,
        *,
        limits: Budget,
        seed: int,
        agent_label: str,
        agent_path: str | None,
        runs_dir: Path | None,
        group_id: str | None = None,
        run_fields: Mapping[str, JSON] | None = None,
        worlds: WorldPools | None = None,
        user: UserChoice = None,
    ) -> Rollout:
        """Take a world, make the run folder (``runs_dir`` None: in memory), write run_start.

        ``user`` chooses the simulated user of a conversational task (see
        :func:`silo.users.resolve.resolve_user`; default scripted); other tasks ignore it.
        """
        verifier = environment.verifier_for(task)
        simulated = resolve_user(user) if task.user is not None else None
        pool = (worlds or SHARED_WORLDS).pool(environment)
        try:
            world = pool.acquire()
        except Exception as exc:  # create_state() or bind_tools() raised: the environment's fault
            raise world_failed(environment, exc) from None
        try:
            # Once per pool: a malformed tool schema stops the run here, blamed on the environment.
            check_tools(environment.name, [], pool.derived(_tool_mistake, world))
            run_id: str | None = None
            run_dir: Path | None = None
            store: str | None = None  # where the tool specs are stored, if they are
            if runs_dir is not None:
                run_id, run_dir = allocate_run_dir(runs_dir)
                store = store_for(os.fspath(runs_dir))
                try:  # before the trace names them: no reader finds a reference without specs
                    if store is not None:
                        digest = pool.derived(_tools_sha, world)
                        store_tools(store, digest, pool.derived(run_start_tools, world)[1])
                except OSError as exc:
                    raise unwritable(Path(store or runs_dir), exc, "the tool specs store") from None
            try:
                trace = TraceWriter(f"{os.fspath(run_dir)}{os.sep}trace.jsonl" if run_dir else None)
            except OSError as exc:
                raise unwritable(run_dir or runs_dir or Path("."), exc, "the run folder") from None
        except BaseException:
            pool.release(world)
            raise
        config = {
            "maxToolCalls": limits.max_tool_calls,
            "timeoutMs": limits.timeout_ms,
            "agentPath": agent_path,
            "seed": seed,
        }
        if simulated is not None:
            config["maxUserTurns"] = limits.max_user_turns
        run: dict[str, JSON] = {
            "schemaVersion": SCHEMA_VERSION,
            "runId": run_id,
            "groupId": group_id,
            "environment": environment.name,
            "taskId": task.id,
            "task": task.to_json(),
            "verifierId": verifier.id,
            "verifierName": verifier.name,
            "agent": agent_label,
            "config": config,
            "startedAt": trace.now_iso(),
        }
        if simulated is not None:
            run["user"] = simulated.label
            run["userIdentity"] = simulated.user.identity(seed)
        rollout = cls(
            environment=environment, task=task, verifier=verifier, limits=limits, pool=pool,
            world=world, trace=trace, run_id=run_id, run_dir=run_dir, run=run, extra=run_fields,
        )  # fmt: skip
        try:
            tools_text, tools_utf8, specs = pool.derived(run_start_tools, world)
            start = {
                "schemaVersion": SCHEMA_VERSION,
                "runId": run_id,
                "groupId": group_id,
                "environment": environment.name,
                "task": run["task"],
                "agent": agent_label,
                "config": config,
            }
            if store is not None:
                trace.event("run_start", {**start, TOOLS_KEY: pool.derived(_tools_sha, world)})
            else:  # in memory, or outside a .silo: no store to refer to
                trace.event_with_json("run_start", start, "tools", tools_text, tools_utf8)
            if simulated is not None and task.user is not None:
                rollout.conversation = Conversation(
                    task.user, simulated, rollout.bridge, limits.max_user_turns, seed
                )
        except BaseException:
            trace.close()
            pool.release(world, False)
            raise
        rollout.tool_specs = specs
        rollout.clock = time.monotonic()
        rollout.deadline = rollout.clock + limits.timeout_ms / 1000
        if rollout.conversation is not None:
            rollout.conversation.deadline = rollout.deadline
        return rollout

    @property
    def finished(self) -> bool:
        """True once :meth:`finish` began: the record is written or being written."""
        return self._finishing.locked() or self.result is not None

    def stop_calls(self, wait_s: float) -> bool:
        """End the bridge so no call may start, waiting up to ``wait_s`` for a running tool.

        False when a tool was still running after ``wait_s``: the world it is changing must not
        be reused.
        """
        bridge = self.bridge
        if not bridge.lock.acquire(timeout=wait_s):
            bridge.end("completed")
            return False
        bridge.end("completed")  # first reason wins: a timeout stays a timeout
        bridge.lock.release()
        return True

    def finish(
        self, reason: str, error: str | None, output: JSON, reusable: bool = True
    ) -> RolloutResult | None:
        """Grade and write the record once; None when another thread already finished it."""
        if not self._finishing.acquire(blocking=False):
            return None
        try:
            if self.result is not None:
                return None
            self.result = self._record(reason, error, output)
            return self.result
        except BaseException:
            reusable = False
            raise
        finally:
            self.trace.close()
            self.pool.release(self.world, reusable)
            self.recorded.set()
            self._finishing.release()

    def _record(self, reason: str, error: str | None, output: JSON) -> RolloutResult:
        bridge, trace, world, task, verifier = (
            self.bridge, self.trace, self.world, self.task, self.verifier,
        )  # fmt: skip
        duration_ms = (time.monotonic() - self.clock) * 1000
        conversation = self.conversation
        if conversation is not None:
            conversation.close(reason)
        error = recorded_error(error)
        output, cut = stored_output(output)
        answer: dict[str, JSON] = {"output": output}
        if cut is not None:  # say so wherever the answer is kept
            self.extra["agentOutputTruncated"] = cut
            if "chars" in cut:
                answer["truncatedFrom"] = cut["chars"]
            if "keptDepth" in cut:
                answer["truncatedAtDepth"] = cut["keptDepth"]
        end = {
            "terminationReason": reason,
            "error": error,
            "toolCalls": bridge.calls,
            "toolErrors": bridge.errors,
            "durationMs": round(duration_ms, 3),
        }
        trace.events(("agent_output", answer), ("run_end", end))
        world.freeze()
        state_diff = world.diff()
        changes = state_changes(world.initial(), world.state, state_diff)
        transcript = () if conversation is None else tuple(conversation.transcript)
        graded, verifier_error, raised = grade(
            verifier, world, output, task, state_diff, transcript, self.environment
        )
        if verifier_error:
            error = f"{error}; {verifier_error}" if error else verifier_error
        if raised:  # the environment's fault, not the agent's: counted apart
            self.extra["environmentError"] = verifier_error
        result = build_result(
            graded,
            tool_calls=bridge.calls,
            tool_errors=bridge.errors,
            termination_reason=reason,
            agent_output=output,
            error=error,
        )
        trace.event(
            "verifier_result",
            {
                "verifierId": verifier.id,
                "passed": result["passed"],
                "reward": result["reward"],
                "checks": result["checks"],
                "error": verifier_error,
            },
        )
        duration_ms = (time.monotonic() - self.clock) * 1000
        run = self.run_fields
        run["finishedAt"] = trace.now_iso()
        run["durationMs"] = round(duration_ms, 3)
        run["terminationReason"] = reason
        run["toolCallCount"] = bridge.calls
        if bridge.usage:
            run["usage"] = bridge.usage
        if conversation is not None:
            run.update(conversation.record())
        if self.extra:
            run.update(self.extra)
        run_dir = self.run_dir
        if run_dir is not None:
            folder = os.fspath(run_dir)  # made by Rollout.open for this rollout alone: fresh
            try:
                for name, document in (
                    ("state-diff.json", state_diff),
                    ("state-changes.json", changes),
                    ("result.json", result),
                    ("run.json", run),
                ):
                    write_json_new(folder, name, document)
            except OSError as exc:  # a full or read-only disk: one line, never a traceback
                raise unwritable(run_dir, exc, "the run folder") from None
        return RolloutResult(
            self.environment.name, task, result, state_diff, run, self.run_id, run_dir,
            changes, trace,
        )  # fmt: skip
