"""The no-op agent: calls nothing and answers nothing.

Contract: returns ``{"output": ""}`` at once. A task that the no-op agent passes is broken.
"""

from __future__ import annotations

from silo.agents.contract import AgentInput
from silo.json_types import JSON


def agent(inp: AgentInput) -> dict[str, JSON]:
    """Do nothing: the floor every task's verifier must fail."""
    return {"output": ""}
