"""The rollout engine: one agent, one task, one budget, one graded world.

Contract of :func:`run_task`:

1. Load the environment and task, resolve the agent, take a fresh world.
2. Run the agent on its own thread with ``call_tool`` as its only way to act. Every call is
   validated against the tool's schema before the tool runs; unknown tools, invalid input, tool
   refusals (``ToolError``) and tool crashes come back as error results, never exceptions. The
   call over ``max_tool_calls`` is refused and not recorded; after a limit or timeout every
   further call raises :class:`RunLimitError`. A timeout ends the run even when the agent does
   not cooperate (a hung thread is abandoned) within ``timeout_ms`` + 1 s.
3. Grade the final world with the task's verifier, whatever happened; a verifier that raises
   or returns no required check fails the run with the reason in ``error``.
4. Write ``trace.jsonl`` (streamed), ``state-diff.json``, ``result.json`` and ``run.json``.

The engine knows nothing of Hydra; the CLI composes a config and calls this function.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from silo.agents.contract import (
    AgentError,
    AgentInput,
    RunLimitError,
    output_text,
    unwrap_output,
)
from silo.agents.resolve import ResolvedAgent, resolve_agent
from silo.artifacts.documents import SCHEMA_VERSION, ResultDocument
from silo.artifacts.run_folder import allocate_run_dir, build_result
from silo.errors import SiloError
from silo.jsonio import write_json_atomic
from silo.loading.environment import Environment, find_project_dir, load_environment
from silo.loading.modules import describe_exception
from silo.rollout.bridge import Bridge, json_value
from silo.rollout.trace import TraceWriter, utc_now_iso
from silo.rollout.trace import _dumps as _trace_dumps
from silo.rollout.worker import release_worker, start_agent
from silo.tasks import Task
from silo.verifiers import Score, VerifierContext, score
from silo.world.pool import World

__all__ = ["Budget", "RolloutResult", "run_task"]

_GRACE_S = 0.3  # how long a timed-out agent may take to return on its own
_TOOL_WAIT_S = 0.5  # how long grading waits for a tool still running at the timeout


@dataclass(frozen=True)
class Budget:
    max_tool_calls: int = 100
    timeout_ms: int = 120_000

    @classmethod
    def of(cls, value: Budget | Mapping[str, Any] | None) -> Budget:
        if value is None:
            return cls()
        if isinstance(value, Budget):
            return value
        unknown = set(value) - {"max_tool_calls", "timeout_ms"}
        if unknown:
            raise SiloError(
                "budget_invalid",
                f"unknown budget key {sorted(unknown)[0]!r}; use max_tool_calls and timeout_ms",
            )
        fields = {}
        for key, default in (("max_tool_calls", 100), ("timeout_ms", 120_000)):
            raw = value.get(key, default)
            if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
                raise SiloError(
                    "budget_invalid",
                    f"budget.{key} must be a positive whole number, got {raw!r}",
                )
            fields[key] = raw
        return cls(**fields)


@dataclass
class RolloutResult:
    """What a rollout produced; ``result`` and ``state_diff`` are the two oracle documents."""

    environment: str
    task: Task
    result: ResultDocument
    state_diff: dict[str, Any]
    run: dict[str, Any]
    run_id: str | None = None
    run_dir: Path | None = None
    # The run's trace writer: kept in memory (write_artifacts=False), its tool events are
    # rendered to text only when trace_lines is read.
    trace: TraceWriter | None = field(default=None, repr=False, compare=False)

    @property
    def trace_lines(self) -> list[str]:
        """The trace's lines when it was kept in memory (empty when it went to trace.jsonl)."""
        return [] if self.trace is None else self.trace.lines

    @property
    def passed(self) -> bool:
        return bool(self.result["passed"])

    @property
    def reward(self) -> float:
        return float(self.result["reward"])

    @property
    def termination_reason(self) -> str:
        return str(self.result["terminationReason"])

    @property
    def error(self) -> str | None:
        return self.result["error"]

    @property
    def agent_output(self) -> Any:
        return self.result["agentOutput"]

    @property
    def tool_calls(self) -> int:
        return int(self.result["toolCalls"])


def _tools_json(world: World) -> tuple[str, bytes, list[dict[str, Any]]]:
    """The tool specs, and the ``tools`` of the ``run_start`` event serialised once per world
    (not per rollout): ``(json_text, json_utf8, specs)``."""
    found = world.tools_json
    if found is None:
        specs = [t.spec() for t in world.tool_list]
        text = _trace_dumps(specs)
        found = world.tools_json = (text, text.encode("utf-8"), specs)
    return found


_PROJECTS: dict[str, Path] = {}


def _project(project_dir: Path | str) -> Path:
    """``Path(project_dir).resolve()``, remembered for absolute paths (a sweep asks each run)."""
    key = os.fspath(project_dir)
    found = _PROJECTS.get(key)
    if found is None:
        found = Path(project_dir).resolve()
        if os.path.isabs(key) and len(_PROJECTS) < 64:
            _PROJECTS[key] = found
    return found


def run_task(
    env: str | Path | Environment,
    task: str | Task,
    agent: Any = "solver",
    budget: Budget | Mapping[str, Any] | None = None,
    *,
    project_dir: Path | None = None,
    runs_dir: Path | None = None,
    write_artifacts: bool = True,
    seed: int = 0,
    group_id: str | None = None,
    agent_label: str | None = None,
    run_fields: Mapping[str, Any] | None = None,
) -> RolloutResult:
    """Run one rollout and return its graded result (see the module docstring).

    ``agent`` is a callable, a name (``solver``, ``noop``, ...), a file or a target (see
    :func:`silo.agents.resolve_agent`). ``run_fields`` are extra keys for ``run.json``.
    """
    project = _project(project_dir) if project_dir else find_project_dir()
    environment = env if isinstance(env, Environment) else load_environment(env, project)
    the_task = task if isinstance(task, Task) else environment.task(task)
    verifier = environment.verifier_for(the_task)
    limits = Budget.of(budget)
    resolved = (
        agent if isinstance(agent, ResolvedAgent) else resolve_agent(agent, environment, project)
    )
    world = environment.pool.acquire()
    reusable = True
    held: Any = None  # the agent's worker thread while the agent runs
    run_id: str | None = None
    run_dir: Path | None = None
    if write_artifacts:
        run_id, run_dir = allocate_run_dir(
            Path(runs_dir) if runs_dir else project / ".silo" / "runs"
        )
    trace = TraceWriter(run_dir / "trace.jsonl" if run_dir else None)
    bridge = Bridge(world, trace, limits.max_tool_calls)
    config = {
        "maxToolCalls": limits.max_tool_calls,
        "timeoutMs": limits.timeout_ms,
        "agentPath": resolved.path,
        "seed": seed,
    }
    try:
        started_at = utc_now_iso()
        tools_text, tools_utf8, specs = _tools_json(world)
        trace.event_with_json(
            "run_start",
            {
                "schemaVersion": SCHEMA_VERSION,
                "runId": run_id,
                "groupId": group_id,
                "environment": environment.name,
                "task": the_task.to_json(),
                "agent": agent_label or resolved.label,
                "config": config,
            },
            "tools",
            tools_text,
            tools_utf8,
        )
        clock = time.monotonic()
        inp = AgentInput(
            task=the_task.instruction,
            tools=list(map(dict, specs)),
            call_tool=bridge.call_tool,
            signal=bridge.signal,
            seed=seed,
            task_id=the_task.id,
            environment=environment.name,
            deadline=clock + limits.timeout_ms / 1000,
            emit=bridge.emit,
        )
        held, done, box = start_agent(resolved, inp, f"silo-agent-{run_id or the_task.id}")
        if not done.wait(limits.timeout_ms / 1000):
            bridge.end("timeout")
            done.wait(_GRACE_S)
        if not bridge.lock.acquire(timeout=_TOOL_WAIT_S):
            reusable = False  # a tool is still running on the abandoned thread
        else:
            bridge.end("completed")  # no call may start from here on
            bridge.lock.release()
        if not done.is_set():
            reusable = False
        worker, held = held, None
        release_worker(worker, done)
        reason, error, output = _settle(bridge, box)
        duration_ms = (time.monotonic() - clock) * 1000
        trace.event("agent_output", {"output": output})
        trace.event(
            "run_end",
            {
                "terminationReason": reason,
                "error": error,
                "toolCalls": bridge.calls,
                "toolErrors": bridge.errors,
                "durationMs": round(duration_ms, 3),
            },
        )
        world.freeze()
        state_diff = world.diff()
        graded, verifier_error = _grade(verifier, world, output, the_task, state_diff)
        if verifier_error:
            error = f"{error}; {verifier_error}" if error else verifier_error
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
        duration_ms = (time.monotonic() - clock) * 1000
        run = {
            "schemaVersion": SCHEMA_VERSION,
            "runId": run_id,
            "groupId": group_id,
            "environment": environment.name,
            "taskId": the_task.id,
            "task": the_task.to_json(),
            "verifierId": verifier.id,
            "verifierName": verifier.name,
            "agent": agent_label or resolved.label,
            "config": config,
            "startedAt": started_at,
            "finishedAt": utc_now_iso(),
            "durationMs": round(duration_ms, 3),
            "terminationReason": reason,
            "toolCallCount": bridge.calls,
        }
        if bridge.usage:
            run["usage"] = bridge.usage
        if run_fields:
            run.update(run_fields)
        if run_dir is not None:
            write_json_atomic(run_dir / "state-diff.json", state_diff)
            write_json_atomic(run_dir / "result.json", result)
            write_json_atomic(run_dir / "run.json", run)
    except BaseException:
        reusable = False
        if held is not None:  # interrupted while the agent ran
            release_worker(held, done)  # kept if its agent returned, else retired
        raise
    finally:
        trace.close()
        environment.pool.release(world, reusable)
    return RolloutResult(
        environment.name, the_task, result, state_diff, run, run_id, run_dir, trace
    )


def _settle(bridge: Bridge, box: dict[str, Any]) -> tuple[str, str | None, Any]:
    """Termination reason, error and output once the agent returned, raised or was abandoned."""
    reason = bridge.reason if bridge.reason not in (None, "completed") else None
    failure = box.get("error")
    if "returned" in box:
        return reason or "completed", None, json_value(unwrap_output(box["returned"]))
    if isinstance(failure, RunLimitError):
        return reason or failure.reason, str(failure), None
    if isinstance(failure, AgentError):
        return reason or "agent_error", str(failure), None
    if failure is not None:
        return reason or "agent_error", describe_exception(failure), None
    return reason or "timeout", "the agent was still running at the timeout and was abandoned", None


def _grade(
    verifier: Any, world: World, output: Any, task: Task, state_diff: dict[str, Any]
) -> tuple[Score | None, str | None]:
    try:
        # The verifier gets its own copy: what it does to it must not reach state-diff.json.
        context = VerifierContext(output_text(output), task, json_value(state_diff))
        checks = verifier.check(world.state, world.initial(), context)
        return score(verifier.id, checks), None
    except Exception as exc:
        return None, f"verifier {verifier.id} failed: {type(exc).__name__}: {exc}"
