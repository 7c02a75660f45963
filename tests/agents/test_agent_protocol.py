"""silo.Agent is a Protocol a type checker holds agents to: sync, async and callable objects pass."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each runs mypy over silo: several seconds

ROOT = Path(__file__).resolve().parents[2]

AGENTS = """
from silo import Agent, AgentInput
from silo.agents.resolve import AgentChoice
from silo.users.resolve import UserChoice


def sync_agent(inp: AgentInput) -> dict[str, str]:
    return {"output": inp.task}


async def async_agent(inp: AgentInput) -> str:
    return str(inp.task)


class CallableAgent:
    def __call__(self, inp: AgentInput) -> None:
        return None


agents: list[Agent] = [sync_agent, async_agent, CallableAgent()]
choices: list[AgentChoice] = ["solver", {"name": "noop"}, sync_agent]
users: list[UserChoice] = [None, "scripted", {"name": "openai", "model": "m"}]
"""

NOT_AN_AGENT = """
from silo import Agent


def two_arguments(inp: object, extra: int) -> None:
    return None


agent: Agent = two_arguments
"""


def _mypy(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    source = tmp_path / "checked.py"
    source.write_text(text, encoding="utf-8")
    command = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(source)]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_functions_coroutines_and_callable_objects_are_agents(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    checked = _mypy(tmp_path, AGENTS)
    assert checked.returncode == 0, checked.stdout


def test_a_callable_of_two_arguments_is_not_an_agent(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    checked = _mypy(tmp_path, NOT_AN_AGENT)
    assert checked.returncode == 1
    assert 'variable has type "SyncAgent | AsyncAgent"' in checked.stdout
