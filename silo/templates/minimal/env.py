"""Entry point of a minimal environment: a small lending library.

Silo imports this file and uses three exports: ``create_state()`` builds a fresh world for every
rollout, ``bind_tools(state)`` returns the tools an agent may call on it, and ``verifiers`` lists
how tasks are graded (each task file in ``tasks/`` names its verifier in ``verifierId``).
"""

from __future__ import annotations

from silo import Tool, Verifier

from .state import Library, create_state
from .tools import TOOLS
from .verifiers import VERIFIERS

__all__ = ["bind_tools", "create_state", "verifiers"]

verifiers: list[Verifier] = list(VERIFIERS)


def bind_tools(state: Library) -> list[Tool]:
    """Every tool; each acts on the state its call receives, so one list serves every world."""
    return list(TOOLS)
