"""Checks on an environment's list of tools.

Contract: :func:`unique_tools` returns the list it is given when every tool's name is unique, and
raises otherwise, naming the duplicates; an environment calls it where it builds its tool list,
so two modules that define the same tool stop the environment at import instead of shadowing
each other in a rollout. The list itself stays a literal in ``tools/__init__.py`` (``silo-env
tool add`` appends to it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from silo.tools import Tool

__all__ = ["unique_tools"]

ToolsT = TypeVar("ToolsT", bound=Sequence[Tool])


def unique_tools(tools: ToolsT) -> ToolsT:
    """``tools`` unchanged, once no two share a name.

    Raises:
        RuntimeError: "duplicate tool names: [...]", the repeated names sorted.
    """
    names = [tool.name for tool in tools]
    if len(set(names)) != len(names):
        raise RuntimeError(
            f"duplicate tool names: {sorted(n for n in names if names.count(n) > 1)}"
        )
    return tools
