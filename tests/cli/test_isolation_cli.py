"""``+agent.isolation=process`` through silo-run: a looping agent ends at its budget, a bad value is one line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli._console import one_line_error, run

LOOPER = "def agent(inp):\n    while True:\n        pass\n"


def test_a_looping_file_agent_in_a_process_times_out_and_run_json_says_so(
    toy_project: Path,
) -> None:
    (toy_project / "looper.py").write_text(LOOPER)
    proc = run(
        "silo-run", toy_project, "env=toy", "task=TASK-001", "agent=file",
        "agent.path=looper.py", "+agent.isolation=process", "budget.timeout_ms=500",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr  # a failed rollout, not a usage error
    assert "ended early: timeout" in proc.stdout
    [run_json] = (toy_project / ".silo" / "runs").glob("*/run.json")
    record = json.loads(run_json.read_text())
    assert record["terminationReason"] == "timeout" and record["agentIsolation"] == "process"


def test_an_unknown_isolation_is_one_line_and_exit_2(toy_project: Path) -> None:
    proc = run(
        "silo-run", toy_project, "env=toy", "task=TASK-001", "agent=solver",
        "+agent.isolation=fork",
    )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    line = one_line_error(proc, "silo-run")
    assert "isolation must be one of thread, process, not 'fork'" in line
