"""From a vLLM endpoint to a training set: agent=openai's recorded tokens reach silo-export exactly.

A sweep of ``agent=openai`` (through ``silo-run``, as a user runs it) against a local server that
answers as vLLM does with ``return_token_ids`` and ``logprobs`` gives ``rl`` rows whose token ids
and logprobs are the ones the server sent, request by request; ``sft`` rows load with the real
Hugging Face ``datasets``; both exports are byte-identical when repeated.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.cli._console import run

REPO = Path(__file__).resolve().parents[2]
AGENTS_TESTS = REPO / "tests" / "agents"


@pytest.mark.slow  # a silo-run sweep of model rollouts and four exports in subprocesses
def test_vllm_tokens_reach_rl_rows_exactly_and_sft_rows_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(AGENTS_TESTS))  # the scripted endpoints of the agent tests
    import fake_openai
    from agent_helpers import solve
    from fake_server import Reply

    solution = solve()
    script = [fake_openai.tool_calls(call) for call in solution.calls]
    script.append(fake_openai.final(solution.answer))
    sent: list[tuple[list[int], list[int], list[float]]] = []
    lock = threading.Lock()

    def vllm(body: dict[str, Any]) -> Reply:
        """The solver's next turn, with token ids and logprobs numbered by request.

        As vLLM's, a turn's prompt ids begin with the previous turn's prompt and completion
        (the rollouts of the sweep run one after another, so "previous" is the last request).
        """
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        reply = script[turn]
        answer = json.loads(json.dumps(reply.body))
        with lock:
            k = len(sent) + 1
            before = [] if turn == 0 else [*sent[-1][0], *sent[-1][1]]
            prompt, completion = [*before, 1000 + k], [2000 + k, 3000 + k]
            logprobs = [-k / 8, -k / 16]
            sent.append((prompt, completion, logprobs))
        answer["prompt_token_ids"] = prompt
        choice = answer["choices"][0]
        choice["token_ids"] = completion
        choice["logprobs"] = {
            "content": [{"token": "t", "logprob": lp, "top_logprobs": []} for lp in logprobs]
        }
        return Reply(reply.status, answer, reply.headers)

    with fake_openai.FakeOpenAI([vllm]) as server:
        sweep = run(
            "silo-run", REPO, "-m", "env=crm", "task=TASK-002", "seed=0,1", "agent=openai",
            "agent.model=qwen", f"agent.base_url={server.base_url}", "agent.return_tokens=true",
            f"hydra.sweep.dir={tmp_path / 'sweep'}", timeout=600,
        )  # fmt: skip
        asked = [r["json"] for r in server.requests]
    assert sweep.returncode == 0, sweep.stderr
    assert all(body.get("return_token_ids") is True and body.get("logprobs") for body in asked)

    exports: dict[str, bytes] = {}
    for kind in ("rl", "sft"):
        outs = []
        for attempt in (1, 2):
            out = tmp_path / f"{kind}-{attempt}.jsonl"
            done = run(
                "silo-export", tmp_path, str(tmp_path / "sweep"), f"out={out}", f"kind={kind}"
            )
            assert done.returncode == 0, done.stderr
            outs.append(out.read_bytes())
        assert outs[0] == outs[1]
        exports[kind] = outs[0]

    rows = [json.loads(line) for line in exports["rl"].decode().splitlines()]
    assert len(rows) == 2 and all(row["reward"] == 1.0 for row in rows)
    exported = [
        (t["promptTokenIds"], t["completionTokenIds"], t["completionLogprobs"])
        for row in rows
        for t in row["turns"]
    ]
    assert sorted(exported) == sorted(sent) and len(sent) == 2 * len(script)
    for row in rows:  # the model's own tokens, and only those, carry the loss
        sampled = [tok for t in row["turns"] for tok in t["completionTokenIds"]]
        masked = [tok for tok, m in zip(row["tokenIds"], row["lossMask"], strict=True) if m]
        assert masked == sampled

    datasets = pytest.importorskip("datasets")
    sft = datasets.load_dataset("json", data_files=str(tmp_path / "sft-1.jsonl"), split="train")
    assert sft.num_rows == 2 and set(sft["taskId"]) == {"TASK-002"}
    assert sft[0]["messages"][0]["role"] == "system" and sft[0]["tools"]
