"""Agents of ``bench_isolation.py``, in a file of their own so an agent process can load them.

Contract: :func:`looper` computes until its process is killed (it never calls a tool nor looks
at its signal); :func:`caller` makes ``CALLS`` calls of a CRM read tool and returns.
"""

from __future__ import annotations

from typing import Any

CALLS = 200
"""Tool calls :func:`caller` makes (the per-call overhead is measured over them)."""


def looper(inp: Any) -> None:
    """A CPU-bound agent that ignores its budget: the case process isolation is for."""
    total = 0
    while True:
        total += 1


def caller(inp: Any) -> dict[str, Any]:
    """``CALLS`` reads of one account, then an answer."""
    for _ in range(CALLS):
        inp.call_tool("get_account", {"accountId": "ACC-001"})
    return {"output": "done"}
