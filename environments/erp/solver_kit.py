"""What every step of the ERP reference solver needs: a strict tool caller and instruction reading.

Contract: :func:`caller` wraps an agent input's ``call_tool`` into ``call(name, args)`` that
returns the tool output and raises :class:`SolverError` on any refusal (the reference solution
never needs a retry). :func:`first`, :func:`user_after` and :func:`dollars` read ids, the user
named for a role and amounts out of an instruction, raising when the text lacks them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["Call", "SolverError", "caller", "dollars", "first", "user_after"]

Call = Callable[[str, dict[str, Any]], Any]


class SolverError(RuntimeError):
    """A tool refused a call the reference solution relies on, or the task was not understood."""


def caller(inp: Any) -> Call:
    """``call(name, args)`` returning the tool output, raising on a refusal."""

    def call(name: str, args: dict[str, Any]) -> Any:
        result = inp.call_tool(name, args)
        if result["isError"]:
            raise SolverError(f"{name}({args}) was refused: {result['output']}")
        return result["output"]

    return call


def first(pattern: str, text: str) -> str:
    """The first group of the first match of ``pattern`` in ``text``."""
    match = re.search(pattern, text)
    if match is None:
        raise SolverError(f"the instruction has no match for {pattern!r}")
    return match.group(1)


def user_after(name: str, text: str) -> str:
    """The user id written right after a person's name: ``Sofia Duarte (user USR-007)``."""
    return first(re.escape(name) + r" \(user (USR-\d+)\)", text)


def dollars(text: str) -> float:
    """The first dollar amount in ``text`` (``$82.00`` -> 82.0)."""
    return float(first(r"\$([\d,]+(?:\.\d+)?)", text).replace(",", ""))
