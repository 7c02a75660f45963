"""What the CRM probe agents share: make a fixed list of calls and count how they came back.

Contract: :func:`run_calls` makes each ``(tool, input)`` call in order through the agent's
``call_tool`` and returns ``calls=<n> ok=<n> refused=<n>``. The probes are deterministic, so
their tool events and final world can be pinned as goldens.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def run_calls(inp: Any, calls: Sequence[tuple[str, dict[str, Any]]]) -> str:
    """Make ``calls`` in order; the summary line counts answered and refused calls."""
    refused = sum(1 for name, args in calls if inp.call_tool(name, args)["isError"])
    return f"calls={len(calls)} ok={len(calls) - refused} refused={refused}"
