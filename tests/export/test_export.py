"""silo-export's library: sft and rl rows rebuilt from exact model turns, loaded by datasets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from silo import run_task
from silo.errors import ArtifactError
from silo.export import Filters, export_rows, export_runs
from tests.export import token_agent

REPO = Path(__file__).resolve().parents[2]
AGENT = str(Path(token_agent.__file__))


def _runs(folder: Path, tasks: tuple[str, ...] = ("TASK-001", "TASK-005"), agent: Any = AGENT):
    return [
        run_task("crm", task, agent, project_dir=REPO, runs_dir=folder, seed=seed)
        for task in tasks
        for seed in (0, 1)
    ]


def _steps(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / "trace.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["type"] == "model_step"]


def test_sft_rows_are_the_whole_conversation_in_openai_format(tmp_path: Path) -> None:
    runs = _runs(tmp_path / "group")
    rows = export_rows([tmp_path / "group"], "sft")
    assert [r["taskId"] for r in rows] == ["TASK-001", "TASK-001", "TASK-005", "TASK-005"]
    by_id = {r.run_id: r for r in runs}
    for row in rows:
        run = by_id[row["runId"]]
        assert (row["reward"], row["passed"]) == (run.reward, run.passed)
        assert row["variant"] is None and row["agentIdentity"] is None
        roles = [m["role"] for m in row["messages"]]
        assert roles == ["system", "user", "assistant", "tool", "assistant"]
        assert row["messages"][1]["content"] == run.task.instruction
        assert row["messages"][2]["tool_calls"][0]["function"]["name"] == "list_users"
        assert row["messages"][-1]["content"] == run.agent_output
        assert {t["function"]["name"] for t in row["tools"]} >= {"list_users", "get_user"}


def test_rl_rows_carry_the_endpoints_tokens_and_mask_the_models_own(tmp_path: Path) -> None:
    (run, *_) = _runs(tmp_path / "group", ("TASK-001",))
    steps = _steps(run.run_dir)
    rows = export_rows([tmp_path / "group"], "rl", Filters(tasks=frozenset({"TASK-001"})))
    row = next(r for r in rows if r["runId"] == run.run_id)
    assert row["group"] == "crm/TASK-001"
    for turn, step in zip(row["turns"], steps, strict=True):
        assert turn["promptTokenIds"] == step["promptTokenIds"]
        assert turn["completionTokenIds"] == step["completion"]["tokenIds"]
        assert turn["completionLogprobs"] == step["completion"]["logprobs"]
    first, second = steps
    prompt, completion = second["promptTokenIds"], second["completion"]["tokenIds"]
    assert row["tokenIds"] == prompt + completion
    start = len(first["promptTokenIds"])
    own = set(range(start, start + len(first["completion"]["tokenIds"])))
    own |= set(range(len(prompt), len(prompt) + len(completion)))
    assert [i for i, m in enumerate(row["lossMask"]) if m] == sorted(own)
    sampled = first["completion"]["logprobs"] + second["completion"]["logprobs"]
    assert [p for p, m in zip(row["logprobs"], row["lossMask"], strict=True) if m] == sampled


def test_a_history_the_template_re_rendered_is_not_trained_on(tmp_path: Path) -> None:
    def drifted(inp: Any) -> str:
        token_agent.agent(inp)  # then one more turn whose prompt re-tokenised the history
        inp.emit(
            "model_step",
            {"turn": 3, "api": "openai.chat",
             "prompt": {"base": 2, "messages": [{"role": "user", "content": "Sure?"}]},
             "promptTokenIds": [7, 7, 7], "completion": {
                 "message": {"role": "assistant", "content": "Yes."}, "finishReason": "stop",
                 "tokenIds": [9], "logprobs": [-0.5]}},
        )  # fmt: skip
        return "Yes."

    run_task("crm", "TASK-001", drifted, project_dir=REPO, runs_dir=tmp_path / "g")
    (row,) = export_rows([tmp_path / "g"], "rl")
    assert (row["tokenIds"], row["lossMask"], row["logprobs"]) == (
        [7, 7, 7, 9], [0, 0, 0, 1], [0.0, 0.0, 0.0, -0.5],
    )  # fmt: skip
    (sft,) = export_rows([tmp_path / "g"], "sft")
    assert [m["role"] for m in sft["messages"]][-3:] == ["assistant", "user", "assistant"]


def test_an_anthropic_run_is_converted_to_openai_chat(tmp_path: Path) -> None:
    def anthropic_shaped(inp: Any) -> str:
        tools = [{"name": t["name"], "description": t["description"],
                  "input_schema": t["inputSchema"]} for t in inp.tools]  # fmt: skip
        use = {"type": "tool_use", "id": "toolu_1", "name": "list_users", "input": {}}
        inp.emit(
            "model_step",
            {"turn": 1, "api": "anthropic.messages",
             "prompt": {"base": None, "system": "Be brief.", "tools": tools,
                        "messages": [{"role": "user", "content": inp.task}]},
             "completion": {"message": {"role": "assistant", "content": [
                 {"type": "text", "text": "Looking."}, use]}, "finishReason": "tool_use"}},
        )  # fmt: skip
        output = inp.call_tool("list_users", {})["output"]
        result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": json.dumps(output)}
        inp.emit(
            "model_step",
            {"turn": 2, "api": "anthropic.messages",
             "prompt": {"base": 1, "messages": [{"role": "user", "content": [result]}]},
             "completion": {"message": {"role": "assistant", "content": [
                 {"type": "text", "text": "Done."}]}, "finishReason": "end_turn"}},
        )  # fmt: skip
        return "Done."

    run_task("crm", "TASK-001", anthropic_shaped, project_dir=REPO, runs_dir=tmp_path / "a")
    (row,) = export_rows([tmp_path / "a"], "sft")
    system, user, called, tool, answer = row["messages"]
    assert system == {"role": "system", "content": "Be brief."}
    assert user["role"] == "user"
    assert called == {
        "role": "assistant",
        "content": "Looking.",
        "tool_calls": [
            {"id": "toolu_1", "type": "function",
             "function": {"name": "list_users", "arguments": "{}"}}
        ],
    }  # fmt: skip
    assert tool["role"] == "tool" and tool["tool_call_id"] == "toolu_1"
    assert answer == {"role": "assistant", "content": "Done."}
    assert row["tools"][0]["type"] == "function" and "parameters" in row["tools"][0]["function"]
    with pytest.raises(ArtifactError) as info:  # no token ids: one line naming the run and fix
        export_rows([tmp_path / "a"], "rl")
    assert info.value.code == "export_no_tokens"
    assert "agent.return_tokens=true" in info.value.message and "\n" not in info.value.message


def test_filters_choose_the_rollouts(tmp_path: Path) -> None:
    runs = _runs(tmp_path / "g")
    run_task("crm", "TASK-002", "solver", project_dir=REPO, runs_dir=tmp_path / "g")
    everything = [tmp_path / "g"]
    with pytest.raises(ArtifactError) as info:  # the solver's run has no model turns
        export_rows(everything, "sft")
    assert info.value.code == "export_no_turns" and "filter it out" in info.value.message
    mine = Filters(agent="token_agent")
    assert len(export_rows(everything, "sft", mine)) == len(runs)
    low = max(r.reward for r in runs)
    top = export_rows(everything, "sft", Filters(agent="token_agent", min_reward=low))
    assert {r["reward"] for r in top} == {low}
    assert not any(r.passed for r in runs)
    with pytest.raises(ArtifactError, match="matches the filters"):
        export_rows(everything, "sft", Filters(passed=True, agent="token_agent"))
    one = export_rows(everything, "sft", Filters(tasks=frozenset({"TASK-005"})))
    assert {r["taskId"] for r in one} == {"TASK-005"} and len(one) == 2
    globbed = export_rows([str(tmp_path / "g" / "run_*")], "sft", mine)
    assert globbed == export_rows(everything, "sft", mine)


@pytest.mark.slow  # imports Hugging Face datasets (seconds)
@pytest.mark.parametrize("suffix", ["jsonl", "parquet"])
def test_datasets_loads_the_files_and_two_exports_are_byte_identical(
    tmp_path: Path, suffix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a local file: nothing may come from the Hub
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    # In [hf], which CI installs for -m slow; [dev] and the dependency-floors venv leave it out.
    datasets = pytest.importorskip("datasets")

    _runs(tmp_path / "g")
    for kind in ("sft", "rl"):
        first, second = tmp_path / f"{kind}-1.{suffix}", tmp_path / f"{kind}-2.{suffix}"
        assert export_runs([tmp_path / "g"], first, kind) == 4
        export_runs([tmp_path / "g"], second, kind)
        assert first.read_bytes() == second.read_bytes()
        loader = "json" if suffix == "jsonl" else "parquet"
        loaded = datasets.load_dataset(
            loader, data_files=str(first), split="train", cache_dir=str(tmp_path / "cache")
        )
        rows = export_rows([tmp_path / "g"], kind)
        assert loaded.num_rows == 4
        assert loaded["runId"] == [r["runId"] for r in rows]
        if kind == "rl":
            assert loaded["tokenIds"] == [r["tokenIds"] for r in rows]
            assert loaded["lossMask"] == [r["lossMask"] for r in rows]
            assert loaded["logprobs"] == [r["logprobs"] for r in rows]
        else:
            first_messages = loaded[0]["messages"]
            assert [m["role"] for m in first_messages] == [m["role"] for m in rows[0]["messages"]]


def test_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ArtifactError, match="no folder matches") as info:
        export_rows([tmp_path / "nowhere"], "sft")
    assert info.value.code == "export_no_runs"
