"""Helpers for the ready-made agents' tests: the project, the CRM task, its scripted solution."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import silo
from silo.agents.contract import output_text

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ENV = "crm"
TASK = "TASK-002"


def events(result: Any) -> list[dict[str, Any]]:
    """The trace events of a rollout, from its file or (without artifacts) from memory."""
    if result.run_dir is not None:
        lines = (result.run_dir / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    else:
        lines = result.trace_lines
    return [json.loads(line) for line in lines if line.strip()]


@dataclass(frozen=True)
class Solution:
    calls: list[tuple[str, dict[str, Any]]]  # (tool, input) in order
    answer: str  # the solver's final output as text


@cache
def solve() -> Solution:
    """How the CRM's scripted solver solves TASK-002, for a scripted "model" to repeat."""
    run = silo.run_task(ENV, TASK, "solver", project_dir=ROOT, write_artifacts=False)
    assert run.passed, f"the {ENV} solver no longer passes {TASK}: {run.result}"
    calls = [(e["tool"], e["input"]) for e in events(run) if e["type"] == "tool_call"]
    return Solution(calls, output_text(run.result["agentOutput"]))
