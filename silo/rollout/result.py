"""What a rollout is given and gives back: its budget and its result.

Contract: :class:`Budget` holds one rollout's limits (tool calls, wall time, messages to a
simulated user), checked when built from a mapping (:meth:`Budget.of`: one clear
``budget_invalid`` line). :class:`RolloutResult` is what a finished rollout produced: the three
oracle documents (``result``, ``state_diff``, ``state_changes``), ``run.json``'s document, the
run's id and folder, and the trace when it was kept in memory. Both are plain values: nothing
here runs a rollout (:mod:`silo.rollout.core` does).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from silo.artifacts.documents import ResultDocument
from silo.errors import ConfigError
from silo.json_types import JSON
from silo.rollout.trace import TraceWriter
from silo.tasks import Task

__all__ = ["Budget", "RolloutResult"]


@dataclass(frozen=True)
class Budget:
    """The limits of one rollout: tool calls, wall time, and messages to a simulated user."""

    max_tool_calls: int = 100
    timeout_ms: int = 120_000
    max_user_turns: int = 20  # read only by conversational tasks

    @classmethod
    def of(cls, value: Budget | Mapping[str, JSON] | None) -> Budget:
        """A budget from itself, a mapping of its two keys (checked: one clear error), or None."""
        if value is None:
            return cls()
        if isinstance(value, Budget):
            return value
        unknown = set(value) - {"max_tool_calls", "timeout_ms", "max_user_turns"}
        if unknown:
            raise ConfigError(
                "budget_invalid",
                f"unknown budget key {sorted(unknown)[0]!r}; use max_tool_calls, timeout_ms "
                "and max_user_turns",
            )
        fields = {}
        for key, default in (
            ("max_tool_calls", 100), ("timeout_ms", 120_000), ("max_user_turns", 20),
        ):  # fmt: skip
            raw = value.get(key, default)
            if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
                raise ConfigError(
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
    state_diff: dict[str, JSON]
    run: dict[str, JSON]
    run_id: str | None = None
    run_dir: Path | None = None
    # The field-level changes (silo.world.changes): the third oracle document.
    state_changes: dict[str, JSON] = field(default_factory=dict)
    # The run's trace writer: kept in memory (write_artifacts=False), its tool events are
    # rendered to text only when trace_lines is read.
    trace: TraceWriter | None = field(default=None, repr=False, compare=False)

    @property
    def trace_lines(self) -> list[str]:
        """The trace's lines when it was kept in memory (empty when it went to trace.jsonl)."""
        return [] if self.trace is None else self.trace.lines

    @property
    def passed(self) -> bool:
        """Whether every required check passed."""
        return bool(self.result["passed"])

    @property
    def reward(self) -> float:
        """The verifier's reward in [0, 1]."""
        return float(self.result["reward"])

    @property
    def termination_reason(self) -> str:
        """Why the rollout ended: completed, max_tool_calls, timeout, agent_error, interrupted."""
        return str(self.result["terminationReason"])

    @property
    def error(self) -> str | None:
        """The one-line reason the rollout went wrong, or None."""
        error = self.result["error"]
        return None if error is None else str(error)

    @property
    def environment_error(self) -> str | None:
        """Why the environment (not the agent) spoiled this rollout (a verifier raised), or None."""
        found = self.run.get("environmentError")
        return None if found is None else str(found)

    @property
    def agent_output(self) -> JSON:
        """The agent's final answer, as result.json records it."""
        return self.result["agentOutput"]

    @property
    def tool_calls(self) -> int:
        """Tool calls recorded (refused ones are not counted)."""
        return int(self.result["toolCalls"])
