"""A fixture-free caller of ERP tools for tests (any ERP test module may import it).

``ErpCaller`` runs a tool the way the engine would — the input is validated against the tool's
JSON Schema first — and returns a detached copy of its output; ``refused`` expects a
``ToolError`` with a given code and checks that the refusal left the world untouched. Only
Silo's public API is used: the environment comes from ``silo.load_environment``.
"""

from __future__ import annotations

import copy
import json
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import silo

PROJECT = Path(__file__).resolve().parents[2]


@lru_cache(maxsize=1)
def erp_env() -> silo.Environment:
    """The ERP environment, loaded once per test process."""
    return silo.load_environment("erp", PROJECT)


@lru_cache(maxsize=1)
def erp_tools() -> dict[str, silo.Tool]:
    """Every ERP tool by name."""
    env = erp_env()
    return {tool.name: tool for tool in env.bind_tools(env.create_state())}


@cache
def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(erp_tools()[name].input_schema)


class ErpCaller:
    """Runs ERP tools against one fresh world (``state``)."""

    def __init__(self) -> None:
        self.state: dict[str, Any] = erp_env().create_state()
        self.initial: dict[str, Any] = copy.deepcopy(self.state)

    def accepts(self, tool: str, /, **args: Any) -> bool:
        """Whether the tool's schema accepts ``args`` (the engine's first check)."""
        return bool(_validator(tool).is_valid(args))

    def __call__(self, tool: str, /, **args: Any) -> Any:
        """Validate ``args``, run the tool, and return a copy of its JSON output."""
        _validator(tool).validate(args)
        output = erp_tools()[tool].run(self.state, args)
        json.dumps(output)  # every output must be JSON
        return copy.deepcopy(output)

    def refused(self, tool: str, code: str, /, **args: Any) -> silo.ToolError:
        """Expect a ``code`` refusal that leaves the world exactly as it was."""
        before = copy.deepcopy(self.state)
        with pytest.raises(silo.ToolError) as caught:
            self(tool, **args)
        assert caught.value.code == code, caught.value.message
        assert self.state == before, f"{tool} changed the world while refusing"
        return caught.value

    def audit_actions(self) -> list[str]:
        """Actions of the audit rows added since the world was created."""
        seed = len(self.initial["auditLog"])
        return [row["action"] for row in self.state["auditLog"][seed:]]


def erp_module(name: str) -> Any:
    """A module of the loaded ERP package (``"state"``, ``"domain.stock"``...)."""
    import importlib

    return importlib.import_module(f"{erp_env().package}.{name}")
