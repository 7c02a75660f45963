"""Fixtures for the CRM environment tests: a fresh world, its tools and a tool caller.

``crm`` calls a tool the way the engine would (the input is validated against the tool's schema
first) and returns its output; ``crm.refused`` expects a ``ToolError`` with a given code and
checks the refusal left the world untouched.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from silo import Environment, Tool, ToolError
from silo.loading.environment import load_environment

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def crm_env() -> Environment:
    return load_environment("crm", PROJECT)


@pytest.fixture(scope="session")
def crm_tools(crm_env: Environment) -> dict[str, Tool]:
    return {tool.name: tool for tool in crm_env.bind_tools(crm_env.create_state())}


@pytest.fixture
def world(crm_env: Environment) -> dict[str, Any]:
    return crm_env.create_state()


class Caller:
    """Runs CRM tools against one world."""

    def __init__(self, state: dict[str, Any], tools: dict[str, Tool]) -> None:
        self.state = state
        self.tools = tools

    def validator(self, name: str) -> jsonschema.Draft202012Validator:
        return jsonschema.Draft202012Validator(self.tools[name].input_schema)

    def schema_accepts(self, name: str, args: dict[str, Any]) -> bool:
        return self.validator(name).is_valid(args)

    def __call__(self, tool: str, /, **args: Any) -> Any:
        self.validator(tool).validate(args)
        output = self.tools[tool].run(self.state, args)
        json.dumps(output)  # every output must be JSON
        return copy.deepcopy(output)

    def refused(self, tool: str, code: str, /, **args: Any) -> ToolError:
        before = copy.deepcopy(self.state)
        with pytest.raises(ToolError) as caught:
            self(tool, **args)
        assert caught.value.code == code, caught.value.message
        assert self.state == before, f"{tool} changed the world while refusing"
        return caught.value


@pytest.fixture
def crm(world: dict[str, Any], crm_tools: dict[str, Tool]) -> Caller:
    return Caller(world, crm_tools)


# --- the project-tracking environment ---------------------------------------------------------


@pytest.fixture(scope="session")
def project_env() -> Environment:
    import silo

    return silo.load_environment("project", PROJECT)


@pytest.fixture(scope="session")
def project_tools(project_env: Environment) -> dict[str, Tool]:
    return {tool.name: tool for tool in project_env.bind_tools(project_env.create_state())}


@pytest.fixture
def project_world(project_env: Environment) -> dict[str, Any]:
    return project_env.create_state()


@pytest.fixture
def tracker(project_world: dict[str, Any], project_tools: dict[str, Tool]) -> Caller:
    """Calls project-tracking tools on a fresh world (``tracker.refused`` for refusals)."""
    return Caller(project_world, project_tools)
