"""The no-op agent: calls nothing and answers nothing.

Contract: returns ``{"output": ""}`` at once. A task that the no-op agent passes is broken.
"""

from __future__ import annotations

from typing import Any

from silo.agents.contract import AgentInput


def agent(inp: AgentInput) -> dict[str, Any]:
    """Do nothing: the floor every task's verifier must fail."""
    return {"output": ""}
