"""Entry point of the ERP environment: procure-to-pay and order-to-cash at Meridian Industrial
Supply.

Contract (what Silo loads): ``create_state()`` builds a fresh world from ``data/``,
``bind_tools(state)`` returns the tools an agent may call on it, ``verifiers`` lists how each
task in ``tasks/`` is graded, and ``generators`` make the parameters of its templated tasks.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, Verifier

from .state import create_state
from .tools import ALL_TOOLS
from .variants import generators
from .verifiers import VERIFIERS

__all__ = ["bind_tools", "create_state", "generators", "verifiers"]

verifiers: list[Verifier] = list(VERIFIERS)


def bind_tools(state: dict[str, Any]) -> list[Tool]:
    """Every ERP tool. Tools act on the state passed to each call, so the list is shared."""
    return list(ALL_TOOLS)
