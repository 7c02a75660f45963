"""The Hydra configs of the ready-made agents: they build, and a missing setting is one line."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from agent_helpers import BIN, ROOT
from omegaconf import OmegaConf

from silo import SiloError
from silo.agents.openai import OpenAIAgent
from silo.agents.random import RandomAgent
from silo.agents.replay import ReplayAgent
from silo.agents.resolve import resolve_agent
from tests.waiting import SAFETY_S


def build(name: str, seed: int = 7, **settings: Any) -> Any:
    node = OmegaConf.create(
        {"seed": seed, "agent": OmegaConf.load(ROOT / "conf" / "agent" / f"{name}.yaml")}
    )
    node.agent.update(settings)
    config = OmegaConf.to_container(node, resolve=True)
    assert isinstance(config, dict)
    return resolve_agent(config["agent"], None, ROOT)


def test_openai_config_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    resolved = build("openai", model="gpt-test")
    agent = resolved.fn
    assert isinstance(agent, OpenAIAgent) and resolved.deterministic is False
    assert (agent.model, agent.base_url, agent.api_key_env) == ("gpt-test", None, "OPENAI_API_KEY")
    assert (agent.temperature, agent.seed, agent.max_turns, agent.system_prompt) == (
        0.0,
        None,
        30,
        None,
    )


@pytest.mark.parametrize(("agent", "variable"), [("openai", "OPENAI"), ("anthropic", "ANTHROPIC")])
def test_a_missing_api_key_stops_the_agent_being_built(
    agent: str, variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(f"{variable}_API_KEY", raising=False)
    monkeypatch.delenv(f"{variable}_BASE_URL", raising=False)
    with pytest.raises(SiloError, match=f"^no API key: set the {variable}_API_KEY environment"):
        build(agent, model="m")  # a run that could not start, never a graded rollout


def test_random_config_follows_the_run_seed() -> None:
    resolved = build("random", seed=42)
    assert isinstance(resolved.fn, RandomAgent) and resolved.deterministic is True
    assert (resolved.fn.seed, resolved.fn.calls) == (None, 20)  # None: the run's seed (+ repeat)


def test_replay_config() -> None:
    resolved = build("replay", trace="runs/x/trace.jsonl")
    assert isinstance(resolved.fn, ReplayAgent) and resolved.deterministic is True
    assert resolved.fn.trace == "runs/x/trace.jsonl"
    with pytest.raises(SiloError, match=r"^set agent.trace=<path to trace.jsonl>$"):
        build("replay")


@pytest.mark.parametrize(
    ("agent", "expected"),
    [
        ("openai", "set agent.model=<model name>"),
        ("replay", "set agent.trace=<path"),
    ],
)
def test_missing_setting_on_the_command_line_is_one_line(
    toy_project: Path, agent: str, expected: str
) -> None:
    done = subprocess.run(
        [str(BIN / "silo-run"), "env=toy", "task=TASK-001", f"agent={agent}"],
        cwd=toy_project,
        capture_output=True,
        text=True,
        timeout=SAFETY_S,
    )
    assert done.returncode == 2  # could not start: a config mistake, not an agent failure
    assert done.stderr.count("\n") == 1 and expected in done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert not list((toy_project / ".silo" / "runs").glob("run_*"))
