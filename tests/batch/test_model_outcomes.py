"""A failing model endpoint is not the model's failure, through ``silo-run`` as a user runs it.

Against an endpoint that answers HTTP 500 to every third request, those rollouts end as
``model_error``: listed apart in ``summary.json`` and the table, left out of the pass rate, and
the command exits 2. Against a port where nothing listens, the sweep stops after
``UNREACHABLE_STOP`` refusals in a row, records the rest as model errors that never began, and
ends with one line and exit 2.
"""

from __future__ import annotations

import itertools
import json
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, error, final, tool_calls
from fake_server import Reply

from silo.batch.sweep import UNREACHABLE_STOP
from tests.conftest import script


def _silo_run(project: Path, *words: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [script("silo-run"), *words], cwd=project, capture_output=True, text=True, timeout=timeout
    )


def _summary(project: Path) -> dict[str, Any]:
    (group,) = (project / ".silo" / "runs").glob("group_*")
    summary: dict[str, Any] = json.loads((group / "summary.json").read_text())
    return summary


def test_http_500_on_a_third_of_requests_is_model_error_not_failure(toy_project: Path) -> None:
    opened = itertools.count(1)

    def model(request: dict[str, Any]) -> Reply:
        done = sum(1 for m in request["messages"] if m["role"] == "tool")
        if done == 0 and next(opened) % 3 == 0:  # every third rollout's first request
            return error(500, "overloaded")
        if done < 2:
            return tool_calls(("bump", {"id": "C-1"}))  # two bumps pass toy TASK-001
        return final("C-1 is now 3")

    with FakeOpenAI([model]) as server:
        # One rollout at a time and no retries: rollouts 3 and 6 meet the 500.
        proc = _silo_run(
            toy_project, "env=toy", "task=TASK-001", "agent=openai", "agent.model=m",
            f"agent.base_url={server.base_url}", "agent.max_retries=0", "runs=6",
            timeout=120,
        )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    summary = _summary(toy_project)
    assert (summary["rollouts"], summary["graded"], summary["passed"]) == (6, 4, 4)
    assert (summary["modelErrors"], summary["environmentErrors"], summary["failed"]) == (2, 0, 0)
    (row,) = summary["rows"]
    assert (row["rollouts"], row["runs"], row["modelErrors"], row["passRate"]) == (6, 4, 2, 1.0)
    assert row["passHatK"]["4"] == 1.0 and "5" not in row["passHatK"]  # over the graded alone
    assert [(r["outcome"], r["repeat"]) for r in summary["notGraded"]] == [
        ("modelError", 2),
        ("modelError", 5),
    ]
    assert all("HTTP 500" in r["error"] for r in summary["notGraded"])
    assert "model error x2: " in proc.stdout and "HTTP 500" in proc.stdout
    assert "6 rollouts: 4 passed, 0 failed, 2 model errors" in proc.stdout


def _free_port() -> int:
    """A local port with nothing listening on it (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_a_sweep_against_a_stopped_endpoint_stops_early(toy_project: Path) -> None:
    runs = 40
    started = time.monotonic()
    proc = _silo_run(
        toy_project, "env=toy", "task=TASK-001", "agent=openai", "agent.model=m",
        f"agent.base_url=http://127.0.0.1:{_free_port()}/v1", f"runs={runs}",
        timeout=120,  # a safety net: each refusal takes milliseconds
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert proc.returncode == 2, proc.stdout + proc.stderr
    stopped = [line for line in proc.stderr.splitlines() if "stopped early" in line]
    assert len(stopped) == 1 and "resume=true" in stopped[0], proc.stderr
    assert f"refused {UNREACHABLE_STOP} rollouts in a row" in stopped[0]
    summary = _summary(toy_project)
    assert summary["rollouts"] == runs and summary["modelErrors"] == runs
    assert summary["graded"] == 0 and summary["rows"][0]["passRate"] is None
    began = [r for r in summary["notGraded"] if r["runDir"] is not None]
    assert len(began) == UNREACHABLE_STOP  # one at a time: the rest never started
    assert all("cannot connect" in r["error"] for r in began)
    assert f"{runs} rollouts: 0 passed, 0 failed, {runs} model errors" in proc.stdout
    assert elapsed < 60, f"{elapsed:.1f}s for a dead endpoint"


def test_an_endpoint_limit_below_max_concurrency_is_said(toy_project: Path) -> None:
    with FakeOpenAI([final("C-1 is now 1")]) as server:
        proc = _silo_run(
            toy_project, "env=toy", "task=TASK-001", "agent=openai", "agent.model=m",
            f"agent.base_url={server.base_url}", "agent.max_connections=2", "runs=4",
            "max_concurrency=4", "fail_on_error=false", timeout=120,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "silo-run: note: max_concurrency=4 rollouts in flight, but agent.max_connections=2 caps "
        "the requests to the model endpoint at 2 at once; set agent.max_connections=4 to match"
    ]
