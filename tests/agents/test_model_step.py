"""``model_step`` records exact turns: prompts without quadratic growth, completions, vLLM tokens.

Covers: the prompt chain (``base`` + new messages) rebuilding every request the endpoint got,
for both APIs; token ids and logprobs recorded exactly as a vLLM-shaped server sends them (with
no switch), ``return_tokens`` asking for them; nothing recorded when the endpoint sends none;
the key never in the trace.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import fake_anthropic
import fake_openai
import pytest
from agent_helpers import ENV, ROOT, TASK, Solution, events
from fake_server import Reply

import silo
from silo.agents.anthropic import AnthropicAgent
from silo.agents.model import ModelAgent
from silo.agents.openai import OpenAIAgent

KEY_ENV = "SILO_TEST_STEP_KEY"
KEY = "sk-step-4f1c-never-log-me"


def _run(tmp_path: Path, agent: ModelAgent) -> Any:
    return silo.run_task(
        ENV, TASK, agent, budget={"max_tool_calls": 100, "timeout_ms": 20000},
        project_dir=ROOT, runs_dir=tmp_path / "runs",
    )  # fmt: skip


def _vllm(reply: Reply, turn: int) -> Reply:
    """``reply`` as vLLM answers with ``return_token_ids`` and ``logprobs``: ids and logprobs."""
    body = copy.deepcopy(reply.body)
    body["prompt_token_ids"] = [1, 2, 3, 100 + turn]
    choice = body["choices"][0]
    choice["token_ids"] = [7, 8, 9 + turn]
    choice["logprobs"] = {
        "content": [
            {"token": t, "logprob": -0.5 * (i + 1), "bytes": None, "top_logprobs": []}
            for i, t in enumerate(("a", "b", "c"))
        ]
    }
    return Reply(reply.status, body, reply.headers)


def _full_prompts(steps: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Each turn's whole message list rebuilt from the chain, as docs/agents.md says."""
    by_turn: dict[int, list[dict[str, Any]]] = {}
    rebuilt = []
    for step in steps:
        prompt = step["prompt"]
        base = prompt["base"]
        before = [] if base is None else by_turn[base] + [steps[base - 1]["completion"]["message"]]
        messages = before + prompt["messages"]
        by_turn[step["turn"]] = messages
        rebuilt.append(messages)
    return rebuilt


def test_openai_turns_rebuild_every_request_and_keep_vllm_tokens(
    tmp_path: Path, solution: Solution, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    script = [fake_openai.tool_calls(call) for call in solution.calls]
    script.append(fake_openai.final(solution.answer))
    vllm = [_vllm(reply, turn) for turn, reply in enumerate(script, 1)]
    with fake_openai.FakeOpenAI(vllm) as server:
        agent = OpenAIAgent(
            model="m", api_key_env=KEY_ENV, base_url=server.base_url, return_tokens=True
        )
        result = _run(tmp_path, agent)
    assert result.passed, result.error
    steps = [e for e in events(result) if e["type"] == "model_step"]
    assert len(steps) == len(script) == len(server.requests)
    first = server.requests[0]["json"]
    assert first["logprobs"] is True and first["return_token_ids"] is True  # the switch
    assert steps[0]["api"] == "openai.chat"
    assert steps[0]["prompt"]["system"] == first["messages"][0]["content"]
    assert steps[0]["prompt"]["tools"] == first["tools"]
    assert all("system" not in s["prompt"] and "tools" not in s["prompt"] for s in steps[1:])
    for rebuilt, request in zip(_full_prompts(steps), server.requests, strict=True):
        assert rebuilt == request["json"]["messages"][1:]  # everything after the system message
    for turn, (step, sent) in enumerate(zip(steps, vllm, strict=True), 1):
        choice = sent.body["choices"][0]
        assert step["promptTokenIds"] == sent.body["prompt_token_ids"]
        assert step["completion"]["tokenIds"] == choice["token_ids"] == [7, 8, 9 + turn]
        assert step["completion"]["logprobs"] == [-0.5, -1.0, -1.5]
        assert step["completion"]["finishReason"] == choice["finish_reason"]
    assert steps[-1]["completion"]["message"] == {"role": "assistant", "content": solution.answer}
    trace = (result.run_dir / "trace.jsonl").read_text(encoding="utf-8")
    assert KEY not in trace


def test_no_token_data_is_recorded_when_the_endpoint_sends_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    with fake_openai.FakeOpenAI([fake_openai.final("done")]) as server:
        result = _run(
            tmp_path, OpenAIAgent(model="m", api_key_env=KEY_ENV, base_url=server.base_url)
        )
    [step] = [e for e in events(result) if e["type"] == "model_step"]
    assert "promptTokenIds" not in step
    assert "tokenIds" not in step["completion"] and "logprobs" not in step["completion"]
    body = server.requests[0]["json"]
    assert "logprobs" not in body and "return_token_ids" not in body  # asked only when switched on


def test_anthropic_turns_rebuild_every_request(
    tmp_path: Path, solution: Solution, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    script = [fake_anthropic.tool_uses(call) for call in solution.calls]
    script.append(fake_anthropic.final(solution.answer))
    with fake_anthropic.FakeAnthropic(script) as server:
        agent = AnthropicAgent(model="m", api_key_env=KEY_ENV, base_url=server.base_url)
        result = _run(tmp_path, agent)
    assert result.passed, result.error
    steps = [e for e in events(result) if e["type"] == "model_step"]
    assert steps[0]["api"] == "anthropic.messages"
    assert steps[0]["prompt"]["system"] == server.requests[0]["json"]["system"]
    assert steps[0]["prompt"]["tools"] == server.requests[0]["json"]["tools"]
    for rebuilt, request in zip(_full_prompts(steps), server.requests, strict=True):
        assert rebuilt == request["json"]["messages"]
    assert json.dumps(steps).count('"tool_result"') == len(solution.calls)  # each once: linear
