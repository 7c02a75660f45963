"""``+agent.isolation=process`` through silo-run: a looping agent ends at its budget, a bad value is one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from tests.cli._console import one_line_error, run
from tests.conftest import script
from tests.waiting import finish, wait_until

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


PID_LOOPER = """
import os
from pathlib import Path

def agent(inp):
    (Path(__file__).parent / f"looper-{os.getpid()}.pid").write_text("")
    while True:
        pass
"""


def test_ctrl_c_ends_isolated_loopers_and_records_them_interrupted(toy_project: Path) -> None:
    (toy_project / "looper.py").write_text(PID_LOOPER)
    proc = subprocess.Popen(
        [script("silo-run"), "env=toy", "task=TASK-001", "agent=file", "agent.path=looper.py",
         "+agent.isolation=process", "runs=2", "max_concurrency=2", "budget.timeout_ms=300000"],
        cwd=toy_project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip

    def pids() -> list[int]:
        return [int(p.stem.split("-")[1]) for p in toy_project.glob("looper-*.pid")]

    wait_until(lambda: len(pids()) == 2 or proc.poll() is not None, "both loopers to start")
    proc.send_signal(signal.SIGINT)
    finish(proc, "silo-run interrupted")
    assert proc.returncode != 0
    results = [json.loads(p.read_text()) for p in toy_project.glob(".silo/runs/*/*/result.json")]
    assert [r["terminationReason"] for r in results] == ["interrupted", "interrupted"]

    def gone(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    wait_until(lambda: all(gone(pid) for pid in pids()), "the loopers' processes to end")
