"""The agent's answer is stored as UTF-8-safe JSON and bounded in size, and the run says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson

from silo import run_task
from silo.jsondepth import depth_of, dumps_deep
from silo.rollout.bridge import MAX_OUTPUT_CHARS, MAX_OUTPUT_DEPTH


def test_a_lone_surrogate_in_the_answer_is_escaped_not_a_crash(toy_project: Path) -> None:
    def agent(inp: Any) -> Any:
        return {"answer": "bad \ud800 text", "\udfffkey": ["\udc80"]}

    result = run_task("toy", "TASK-001", agent, project_dir=toy_project)
    assert result.termination_reason == "completed"
    expected = {"answer": "bad \\ud800 text", "\\udfffkey": ["\\udc80"]}
    assert result.agent_output == expected
    stored = json.loads((result.run_dir / "result.json").read_text(encoding="utf-8"))
    assert stored["agentOutput"] == expected
    lines = (result.run_dir / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-3])["output"] == expected  # agent_output, then run_end, verifier


def test_a_huge_answer_is_cut_and_the_run_says_so(toy_project: Path) -> None:
    def agent(inp: Any) -> str:
        return "y" * (MAX_OUTPUT_CHARS + 5)

    result = run_task("toy", "TASK-001", agent, project_dir=toy_project)
    assert result.agent_output == "y" * MAX_OUTPUT_CHARS
    run = json.loads((result.run_dir / "run.json").read_text())
    assert run["agentOutputTruncated"] == {
        "chars": MAX_OUTPUT_CHARS + 5,
        "keptChars": MAX_OUTPUT_CHARS,
    }
    trace = (result.run_dir / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    event = json.loads(trace[-3])
    assert event["type"] == "agent_output" and event["truncatedFrom"] == MAX_OUTPUT_CHARS + 5
    assert (result.run_dir / "result.json").stat().st_size < 2 * MAX_OUTPUT_CHARS


def _nested(levels: int, bottom: str = "bottom") -> Any:
    value: Any = bottom
    for _ in range(levels):
        value = [value]
    return value


def test_an_answer_2000_deep_is_cut_to_the_stated_depth_and_the_run_says_so(
    toy_project: Path,
) -> None:
    result = run_task("toy", "TASK-001", lambda inp: _nested(2000), project_dir=toy_project)
    assert result.termination_reason == "completed"
    assert result.run_dir is not None
    run = json.loads((result.run_dir / "run.json").read_text())
    assert run["agentOutputTruncated"] == {"keptDepth": MAX_OUTPUT_DEPTH}
    stored = orjson.loads((result.run_dir / "result.json").read_bytes())  # within its limit
    assert depth_of(stored["agentOutput"]) == MAX_OUTPUT_DEPTH
    assert dumps_deep(stored["agentOutput"]) == dumps_deep(_nested(MAX_OUTPUT_DEPTH, "…"))
    trace = (result.run_dir / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    assert orjson.loads(trace[-3])["truncatedAtDepth"] == MAX_OUTPUT_DEPTH


def test_an_answer_as_deep_as_stated_is_kept_whole(toy_project: Path) -> None:
    answer = _nested(MAX_OUTPUT_DEPTH - 1)  # the string at the bottom adds no level
    result = run_task("toy", "TASK-001", lambda inp: answer, project_dir=toy_project)
    assert result.run_dir is not None
    assert "agentOutputTruncated" not in json.loads((result.run_dir / "run.json").read_text())
    # Compared as text: == on values this deep would need the recursion limit raised.
    assert dumps_deep(result.agent_output) == dumps_deep(answer)


class _Hostile:
    def __repr__(self) -> str:
        raise ValueError("repr refused")

    def __str__(self) -> str:
        raise ValueError("str refused")


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise ValueError("str refused")


def test_an_answer_whose_str_and_repr_raise_is_recorded_as_text(toy_project: Path) -> None:
    result = run_task("toy", "TASK-001", lambda inp: _Hostile(), project_dir=toy_project)
    assert result.termination_reason == "completed"
    assert result.agent_output == "<_Hostile whose __str__ and __repr__ raise>"


def test_an_exception_whose_str_raises_is_an_agent_error_line(toy_project: Path) -> None:
    def agent(inp: Any) -> Any:
        raise _Unprintable

    result = run_task("toy", "TASK-001", agent, project_dir=toy_project)
    assert result.termination_reason == "agent_error"
    assert result.error is not None and result.error.endswith("_Unprintable: _Unprintable()")


def test_a_cyclic_answer_is_recorded_as_its_text(toy_project: Path) -> None:
    loop: list[Any] = [1]
    loop.append(loop)
    result = run_task("toy", "TASK-001", lambda inp: loop, project_dir=toy_project)
    assert result.agent_output == "[1, [...]]"
