"""A sweep through ``hydra/launcher=ray_cluster`` on a real Ray head (opt-in: the ray extra).

Starts ``ray start --head --block`` on a free port (its own process group, stopped at the end;
never ``ray stop``, which would stop every Ray on the machine), runs a sweep on it and compares
every rollout's result and state diff, byte for byte, with the same sweep under Hydra's basic
launcher; then a model sweep (``agent=openai`` against a local fake endpoint) whose jobs each
keep ``max_concurrency`` rollouts in flight on the model loop of their Ray worker. Runs only
with the ``ray`` marker's extra installed (``pip install -e '.[ray]'``); ``-m "not ray"``
leaves it out. It takes about a minute on 2 cores.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from tests.cli._console import run
from tests.conftest import script
from tests.oracle import oracle_bytes

pytestmark = [
    pytest.mark.slow,  # a ray cluster: slow (.ci/run runs it)
    pytest.mark.ray,
    pytest.mark.skipif(
        find_spec("hydra_plugins.hydra_ray_launcher") is None,
        reason="needs the ray extra: pip install -e '.[ray]'",
    ),
]

GRID = [
    "-m",
    "env=toy",
    "task=TASK-001,TASK-002,TASK-003",
    "agent=solver,noop",
    "fail_on_error=false",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")  # one head for the module's tests: it takes ~45 s to start and stop
def ray_head() -> Iterator[dict[str, str]]:
    """The environment of a client of a Ray head started for this test (``ray start --head``).

    Token authentication (Ray 2.60's default once a token exists) with a token of its own:
    the head and every client need ``RAY_AUTH_MODE=token`` and the same token.
    """
    port = _free_port()
    temp = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))  # Ray's socket paths must be short
    token = temp / "auth_token"
    token.write_text(secrets.token_hex(32))
    env = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token)}
    head = subprocess.Popen(
        [script("ray"), "start", "--head", "--block", f"--port={port}", "--num-cpus=2",
         "--include-dashboard=false", f"--temp-dir={temp}", "--disable-usage-stats"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        env=os.environ | env,
    )  # fmt: skip
    client = env | {"RAY_ADDRESS": f"127.0.0.1:{port}"}
    try:
        deadline = time.monotonic() + 180
        while subprocess.run(
            [script("ray"), "status"], capture_output=True, check=False, env=os.environ | client
        ).returncode:
            assert head.poll() is None and time.monotonic() < deadline, "ray head did not start"
            time.sleep(2)
        yield client
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait(timeout=30)
        shutil.rmtree(temp, ignore_errors=True)


def test_a_sweep_on_a_ray_head_writes_the_bytes_of_the_basic_launcher(
    toy_project: Path, tmp_path: Path, ray_head: dict[str, str]
) -> None:
    basic = run("silo-run", toy_project, *GRID)
    assert basic.returncode == 2, basic.stderr  # toy TASK-002's verifier raises: not graded
    expected = oracle_bytes(toy_project / ".silo" / "runs", "taskId", "agent")
    assert len(expected) == 6
    on_ray = tmp_path / "on_ray"
    on_ray.mkdir()
    shutil.copytree(toy_project / "environments", on_ray / "environments")
    proc = run(
        "silo-run", on_ray, *GRID, "hydra/launcher=ray_cluster",
        timeout=300, extra_env=ray_head,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "object_store_memory" not in proc.stderr
    assert "\x1b[" not in proc.stdout  # no colour codes in redirected stdout
    assert oracle_bytes(on_ray / ".silo" / "runs", "taskId", "agent") == expected
    (passed,) = [line for line in basic.stdout.splitlines() if line.startswith("6 rollouts: ")]
    assert passed in proc.stdout.splitlines()  # the summary, from the launching process


N = 4  # rollouts in flight in each job


def _model_sweep(project: Path, base_url: str, *extra: str, extra_env: dict[str, str]) -> Any:
    return run(
        "silo-run", project, "-m", "env=toy", "task=TASK-001,TASK-003", "agent=openai",
        "agent.model=m", f"agent.base_url={base_url}", "agent.max_retries=0", f"runs={N}",
        f"max_concurrency={N}", "fail_on_error=false", *extra, timeout=300, extra_env=extra_env,
    )  # fmt: skip


def _in_flight_at_once(project: Path) -> dict[str, bool]:
    """Per task (one job each): did every rollout start before any of them finished?"""
    runs: dict[str, list[dict[str, Any]]] = {}
    for run_json in (project / ".silo" / "runs").rglob("run.json"):
        meta = json.loads(run_json.read_text())
        runs.setdefault(meta["taskId"], []).append(meta)
    return {
        task: len(group) == N
        and max(r["startedAt"] for r in group) < min(r["finishedAt"] for r in group)
        for task, group in runs.items()
    }


def test_a_model_sweep_on_a_ray_head_keeps_n_in_flight_per_job(
    toy_project: Path, tmp_path: Path, ray_head: dict[str, str]
) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
    from fake_openai import FakeOpenAI, final, tool_calls
    from fake_server import Reply

    # A rollout's first request waits until N first requests are in (a safety net of 60 s
    # lets a broken sweep fail on its assertions instead of hanging): each job must have its
    # N rollouts in flight at once for any of them to get an answer.
    together = threading.Barrier(N, timeout=60)

    def model(request: dict[str, Any]) -> Reply:
        done = sum(1 for m in request["messages"] if m["role"] == "tool")
        if done == 0:
            try:
                together.wait()
            except threading.BrokenBarrierError:
                together.reset()
        if done < 2:
            return tool_calls(("bump", {"id": "C-1"}))  # two bumps pass toy TASK-001
        return final("bumped twice")

    with FakeOpenAI([model]) as server:
        basic = _model_sweep(toy_project, server.base_url, extra_env={})
        assert basic.returncode == 0, basic.stderr
        expected = oracle_bytes(toy_project / ".silo" / "runs", "taskId", "repeat")
        on_ray = tmp_path / "on_ray"
        on_ray.mkdir()
        shutil.copytree(toy_project / "environments", on_ray / "environments")
        proc = _model_sweep(
            on_ray, server.base_url, "hydra/launcher=ray_cluster", extra_env=ray_head
        )
    assert proc.returncode == 0, proc.stderr
    assert (
        len(expected) == 2 * N
        and oracle_bytes(on_ray / ".silo" / "runs", "taskId", "repeat") == expected
    )
    assert (
        _in_flight_at_once(toy_project)
        == _in_flight_at_once(on_ray)
        == {
            "TASK-001": True,
            "TASK-003": True,
        }
    )
    (line,) = [x for x in basic.stdout.splitlines() if x.startswith(f"{2 * N} rollouts: ")]
    assert line in proc.stdout.splitlines()
