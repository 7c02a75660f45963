"""The agent's answer is stored as UTF-8-safe JSON and bounded in size, and the run says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from silo import run_task
from silo.rollout.bridge import MAX_OUTPUT_CHARS


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
