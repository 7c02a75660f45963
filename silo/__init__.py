"""Silo: simulated worlds in which AI agents are evaluated and trained.

The public API. An environment exports ``create_state()``, ``bind_tools(state)`` (a list of
:class:`Tool`) and ``verifiers`` (a list of :class:`Verifier`); :func:`run_task` runs one agent
against one task and writes the run's artifacts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from silo.errors import SiloError
from silo.tasks import Task
from silo.tools import Tool, ToolError, define_tool, tool
from silo.verifiers import Check, Verifier, VerifierContext, check, define_verifier, optional

if TYPE_CHECKING:
    from silo.agent import AgentError, AgentInput, CancelSignal, RunLimitError, ToolResult
    from silo.compare import compare
    from silo.environment import Environment, load_environment
    from silo.indexes import Index
    from silo.point import Point
    from silo.rollout import Budget, RolloutResult, run_task
    from silo.summary import summarize
    from silo.sweep import run_points
    from silo.validate import validate_environment

__all__ = [
    "AgentError",
    "AgentInput",
    "Budget",
    "CancelSignal",
    "Check",
    "Environment",
    "Index",
    "Point",
    "RolloutResult",
    "RunLimitError",
    "SiloError",
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
    "optional",
    "run_points",
    "run_task",
    "summarize",
    "tool",
    "validate_environment",
]

# The engine is imported on first use so that environment files importing ``silo`` stay cheap.
_LAZY = {
    "AgentError": "silo.agent",
    "AgentInput": "silo.agent",
    "CancelSignal": "silo.agent",
    "RunLimitError": "silo.agent",
    "ToolResult": "silo.agent",
    "Environment": "silo.environment",
    "load_environment": "silo.environment",
    "Index": "silo.indexes",
    "Budget": "silo.rollout",
    "RolloutResult": "silo.rollout",
    "run_task": "silo.rollout",
    "Point": "silo.point",
    "run_points": "silo.sweep",
    "summarize": "silo.summary",
    "compare": "silo.compare",
    "validate_environment": "silo.validate",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'silo' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
