"""The typed documents match what a rollout writes: keys, order and schemaVersion."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

from silo import run_task
from silo.artifacts.documents import (
    SCHEMA_VERSION,
    ResultDocument,
    RunDocument,
    RunEndEvent,
    RunStartEvent,
    StateDiffDocument,
    SummaryDocument,
    ToolCallEvent,
    ToolResultEvent,
    VerifierResultEvent,
    read_document,
)
from silo.artifacts.run_folder import RESULT_KEYS, allocate_run_dir
from silo.batch.summary import summarize


def keys(document: Any) -> set[str]:
    """The keys a TypedDict declares (required and optional)."""
    return set(typing.get_type_hints(document))


def test_written_documents_have_exactly_the_declared_keys(toy_project: Path) -> None:
    def agent(inp: Any) -> str:
        inp.call_tool("bump", {"id": "C-1"})
        return "done"

    rollout = run_task("toy", "TASK-001", agent, project_dir=toy_project)
    folder = rollout.run_dir
    result = read_document(folder / "result.json", ResultDocument)
    assert tuple(result) == tuple(typing.get_type_hints(ResultDocument)) == RESULT_KEYS
    assert set(read_document(folder / "state-diff.json", StateDiffDocument)) == keys(
        StateDiffDocument
    )
    run = read_document(folder / "run.json", RunDocument)
    assert run["schemaVersion"] == SCHEMA_VERSION
    assert RunDocument.__required_keys__ <= set(run) <= keys(RunDocument)
    events = [json.loads(line) for line in (folder / "trace.jsonl").read_text().splitlines()]
    declared = {
        "run_start": RunStartEvent,
        "tool_call": ToolCallEvent,
        "tool_result": ToolResultEvent,
        "run_end": RunEndEvent,
        "verifier_result": VerifierResultEvent,
    }
    for event in events:
        if event["type"] in declared:
            kind = declared[event["type"]]
            assert kind.__required_keys__ <= set(event) <= keys(kind), event["type"]
    assert "toolsSha256" in events[0] and "tools" not in events[0]  # on disk: stored once
    assert events[0]["schemaVersion"] == SCHEMA_VERSION


def test_summary_document_keys(toy_project: Path) -> None:
    _, group = allocate_run_dir(toy_project / ".silo" / "runs", prefix="group")
    run_task("toy", "TASK-001", "solver", project_dir=toy_project, runs_dir=group)
    summary = summarize(group)
    # ``templates`` only when the group ran instances of a task template
    assert set(summary) == keys(SummaryDocument) - {"templates"}
    assert summary["rollouts"] == 1 and summary["rows"][0]["passHatK"] == {"1": 1.0}


def test_allocation_remembers_nothing_and_remakes_a_removed_runs_folder(tmp_path: Path) -> None:
    runs = tmp_path / "a" / "runs"
    first_id, first = allocate_run_dir(runs)
    first.rmdir()
    runs.rmdir()
    second_id, second = allocate_run_dir(runs)
    assert second.is_dir() and second_id != first_id and second.parent == runs
