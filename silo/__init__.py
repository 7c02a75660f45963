"""Silo: simulated worlds in which AI agents are evaluated and trained.

The public API. An environment exports ``create_state()``, ``bind_tools(state)`` (a list of
:class:`Tool`) and ``verifiers`` (a list of :class:`Verifier`); :func:`run_task` runs one agent
against one task and writes the run's artifacts; :func:`open_session` opens the same rollout for
outside code (a trainer, a harness) to drive, one :class:`Session` per rollout in flight.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from silo.errors import SiloError, SiloException
from silo.tasks import Task
from silo.tools import Tool, ToolError, define_tool, tool
from silo.verifiers import Check, Verifier, VerifierContext, check, define_verifier, optional

if TYPE_CHECKING:
    from silo.agents.contract import (
        Agent,
        AgentError,
        AgentInput,
        CancelSignal,
        ModelError,
        RunLimitError,
        ToolResult,
    )
    from silo.batch.compare import compare
    from silo.batch.point import Point
    from silo.batch.summary import summarize
    from silo.batch.sweep import run_points
    from silo.loading.environment import Environment, load_environment
    from silo.rollout.result import Budget, RolloutResult
    from silo.rollout.run import run_task
    from silo.rollout.session import Session, open_session
    from silo.validate.report import validate_environment
    from silo.world.indexes import Index

__all__ = [
    "Agent",
    "AgentError",
    "AgentInput",
    "Budget",
    "CancelSignal",
    "Check",
    "Environment",
    "Index",
    "ModelError",
    "Point",
    "RolloutResult",
    "RunLimitError",
    "Session",
    "SiloError",
    "SiloException",
    "Task",
    "Tool",
    "ToolError",
    "ToolResult",
    "Verifier",
    "VerifierContext",
    "check",
    "compare",
    "define_tool",
    "define_verifier",
    "load_environment",
    "open_session",
    "optional",
    "run_points",
    "run_task",
    "summarize",
    "tool",
    "validate_environment",
]

# The engine is imported on first use so that environment files importing ``silo`` stay cheap.
_LAZY = {
    "Agent": "silo.agents.contract",
    "AgentError": "silo.agents.contract",
    "AgentInput": "silo.agents.contract",
    "CancelSignal": "silo.agents.contract",
    "ModelError": "silo.agents.contract",
    "RunLimitError": "silo.agents.contract",
    "ToolResult": "silo.agents.contract",
    "Environment": "silo.loading.environment",
    "load_environment": "silo.loading.environment",
    "Index": "silo.world.indexes",
    "Budget": "silo.rollout.result",
    "RolloutResult": "silo.rollout.result",
    "Session": "silo.rollout.session",
    "open_session": "silo.rollout.session",
    "run_task": "silo.rollout.run",
    "Point": "silo.batch.point",
    "run_points": "silo.batch.sweep",
    "summarize": "silo.batch.summary",
    "compare": "silo.batch.compare",
    "validate_environment": "silo.validate.report",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'silo' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
