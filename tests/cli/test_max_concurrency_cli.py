"""max_concurrency through the console scripts: rollouts in flight, same bytes, bad values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli._console import one_line_error, run

REPO = Path(__file__).resolve().parents[2]

_SLEEPY = """
import asyncio

async def agent(inp):
    await asyncio.sleep(1.0)
    await inp.call_tool("bump", {"id": "C-1"})
    return "slept"
"""


def _documents(runs: Path) -> list[bytes]:
    return sorted(
        (p.parent / "result.json").read_bytes() + (p.parent / "state-diff.json").read_bytes()
        for p in runs.glob("*/*/run.json")
    )


def test_silo_run_keeps_n_async_rollouts_in_flight(toy_project: Path) -> None:
    (toy_project / "sleepy.py").write_text(_SLEEPY)
    grid = ["-m", "env=toy", "task=TASK-001", "agent=file", "agent.path=sleepy.py", "runs=8"]
    proc = run("silo-run", toy_project, *grid, "max_concurrency=8", "fail_on_error=false")
    assert proc.returncode == 0, proc.stderr
    runs = [
        json.loads(p.read_text()) for p in (toy_project / ".silo" / "runs").glob("*/*/run.json")
    ]
    assert len(runs) == 8
    # All eight were in flight at once: each started before any finished (timing-independent).
    assert max(r["startedAt"] for r in runs) < min(r["finishedAt"] for r in runs)


@pytest.mark.slow  # a whole run twice (tests/batch checks the bytes at 1, 8 and 256 fast)
def test_silo_run_gives_the_same_bytes_at_1_and_8_in_flight(toy_project: Path) -> None:
    grid = ["-m", "env=toy", "task=TASK-001,TASK-002,TASK-003", "agent=solver", "runs=3"]
    outputs = []
    for n in (1, 8):
        runs_dir = toy_project / f"runs{n}"
        proc = run(
            "silo-run", toy_project, *grid, f"max_concurrency={n}", "fail_on_error=false",
            f"runs_dir={runs_dir}",
        )  # fmt: skip
        assert proc.returncode == 2, proc.stderr  # TASK-002's verifier raises: environment error
        outputs.append(_documents(runs_dir))
    assert len(outputs[0]) == 9 and outputs[0] == outputs[1]


@pytest.mark.parametrize("value", ["0", "-4", "many"])
@pytest.mark.parametrize("prog", ["silo-run", "silo-baseline"])
def test_a_bad_max_concurrency_is_one_line_and_exit_2(prog: str, value: str) -> None:
    args = ["env=crm", "task=TASK-002"] if prog == "silo-run" else ["check"]
    proc = run(prog, REPO, *args, f"max_concurrency={value}")
    assert proc.returncode == 2
    assert "max_concurrency must be a whole number >= 1" in one_line_error(proc, prog)


@pytest.mark.slow  # a whole baseline check twice, rollouts in flight
def test_silo_baseline_check_with_rollouts_in_flight_reports_as_one_at_a_time() -> None:
    serial = run("silo-baseline", REPO, "check")
    proc = run("silo-baseline", REPO, "check", "max_concurrency=8")
    assert proc.returncode == serial.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].endswith(" ok, 0 DRIFT, 0 MISSING, 0 STALE")
    assert proc.stdout == serial.stdout  # same lines, same order
