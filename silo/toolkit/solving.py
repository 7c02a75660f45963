"""Plumbing of scripted reference solvers: a strict tool caller and reading an instruction.

Contract: a reference solver (``solver.py``, ``agent=solver``) must solve its tasks without a
retry, so :func:`strict_caller` wraps an agent input's ``call_tool`` into ``call(name, args)``
that returns the tool's output and raises :class:`SolverError` on any refusal, naming the call
and the error. :func:`first_match` reads a value (an id, an amount) out of an instruction and
raises :class:`SolverError` when the text lacks it. Nothing here knows a particular world.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

from silo.errors import SiloException
from silo.json_types import JSON

__all__ = ["Call", "SolverError", "ToolCaller", "first_match", "strict_caller"]

Call = Callable[[str, dict[str, JSON]], Any]
"""``call(name, args)`` -> the tool's output."""


class ToolCaller(Protocol):
    """What a solver is given: anything with the agent input's ``call_tool``."""

    def call_tool(self, name: str, input: dict[str, JSON]) -> Any:
        """Call one tool; returns ``{"output": ..., "isError": bool}``."""


class SolverError(SiloException, RuntimeError):
    """A tool refused a call the reference solution relies on, or the task was not understood."""


def strict_caller(inp: ToolCaller) -> Call:
    """``call(name, args)`` returning the tool output, raising :class:`SolverError` on a refusal."""

    def call(name: str, args: dict[str, JSON]) -> Any:
        result = inp.call_tool(name, args)
        if result["isError"]:
            raise SolverError(f"{name}({args}) was refused: {result['output']}")
        return result["output"]

    return call


def first_match(pattern: str, text: str) -> str:
    """The first group of the first match of ``pattern`` in ``text``.

    Raises:
        SolverError: "the instruction has no match for {pattern!r}".
    """
    match = re.search(pattern, text)
    if match is None:
        raise SolverError(f"the instruction has no match for {pattern!r}")
    return match.group(1)
