"""cpu_affinity through silo-run: rollouts in flight on one CPU when asked, bad values one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli._console import one_line_error, run

REPO = Path(__file__).resolve().parents[2]

_REPORTS_ITS_CPUS = """
import os

def agent(inp):
    return ",".join(map(str, sorted(os.sched_getaffinity(0))))
"""


@pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="pinning a thread needs Linux and a process allowed on two CPUs or more",
)
@pytest.mark.parametrize(("policy", "pinned"), [("one", True), ("auto", False)])
def test_silo_run_puts_rollouts_in_flight_where_cpu_affinity_says(
    toy_project: Path, policy: str, pinned: bool
) -> None:
    (toy_project / "cpus.py").write_text(_REPORTS_ITS_CPUS)
    proc = run(
        "silo-run", toy_project, "env=toy", "task=TASK-001", "agent=file", "agent.path=cpus.py",
        "runs=4", "max_concurrency=4", f"cpu_affinity={policy}", "fail_on_error=false",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    seen = {
        json.loads(p.read_text())["agentOutput"]
        for p in (toy_project / ".silo" / "runs").glob("*/*/result.json")
    }
    everything = ",".join(map(str, sorted(os.sched_getaffinity(0))))
    if pinned:  # all four on one CPU, the same one
        assert len(seen) == 1 and "," not in next(iter(seen))
    else:  # a plain file agent declares nothing: auto leaves it where the OS puts it
        assert seen == {everything}


@pytest.mark.parametrize("value", ["always", "1", "ONE"])
def test_a_bad_cpu_affinity_is_one_line_and_exit_2(value: str) -> None:
    proc = run("silo-run", REPO, "env=crm", "task=TASK-002", f"cpu_affinity={value}")
    assert proc.returncode == 2
    assert "cpu_affinity must be one of auto, one, none" in one_line_error(proc, prog="silo-run")
