"""Silo's verifiers environment under verifiers' own vf-eval: a GRPO group on the CRM.

Runs only in the [verifiers] venv (tests/integrations/verifiers.sh): verifiers pins mcp 2.0
and openai < 3. vf-eval drives the null (chat) harness against a scripted OpenAI-compatible
endpoint on loopback; 8 rollouts of one task run at once, each on its own Silo world.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("verifiers.v1", reason="needs the [verifiers] extra (its own venv)")

from tests.integrations.conftest import record_bytes, run_task_bytes  # noqa: E402

HERE = Path(__file__).resolve().parent
GROUP = 8  # a GRPO group: rollouts of one prompt in flight at once
SETUP_S = 900  # a safety net: the first run prepares the harness script with uv


@pytest.fixture
def endpoint(tmp_path: Path, solver_calls: Any) -> Iterator[tuple[str, list[Any], Any]]:
    """A scripted endpoint replying with the solver's TASK-002 calls, then its answer."""
    calls, answer = solver_calls("TASK-002")
    replies = [json.dumps({"tool": n, "arguments": a}) for n, a in calls]
    replies.append(json.dumps({"answer": answer}))
    script = tmp_path / "script.json"
    script.write_text(json.dumps(replies))
    server = subprocess.Popen(
        [sys.executable, str(HERE / "fake_chat.py"), str(script)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        ready = server.stdout.readline()  # waits for the listening socket
        assert ready.startswith("ready "), ready
        yield f"http://127.0.0.1:{ready.split()[1]}/v1", calls, answer
    finally:
        server.kill()
        server.wait()


@pytest.mark.slow  # vf-eval prepares its harness with uv, then runs 8 rollouts
def test_a_grpo_group_gets_silos_rewards_and_run_tasks_bytes(
    tmp_path: Path, endpoint: tuple[str, list[Any], Any]
) -> None:
    base_url, calls, answer = endpoint
    runs, out = tmp_path / "runs", tmp_path / "out"
    vf_eval = shutil.which("vf-eval", path=str(Path(sys.executable).parent))
    assert vf_eval is not None
    done = subprocess.run(
        [
            vf_eval, "silo-verifiers", "-n", "1", "-r", str(GROUP), "-m", "fake-model",
            "--client.base-url", base_url, "--client.api-key-var", "SILO_FAKE_KEY",
            "--no-push", "--env.player.harness.id", "null",
            "--env.player.runtime.type", "subprocess", "-o", str(out),
            "--env.taskset.tasks", '["TASK-002"]', "--env.taskset.runs_dir", str(runs),
        ],
        env={**os.environ, "SILO_FAKE_KEY": "not-a-secret"},
        capture_output=True,
        text=True,
        timeout=SETUP_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (traces,) = out.glob("*/traces.jsonl")
    episodes = [json.loads(line) for line in traces.read_text().splitlines()]
    rewards = [t["rewards"]["silo"]["score"] for e in episodes for t in e["traces"]]
    assert rewards == [1.0] * GROUP
    folders = sorted(p.parent for p in runs.glob("*/result.json"))
    assert len(folders) == GROUP  # one world and one record per rollout
    expected = run_task_bytes("TASK-002", calls, answer, tmp_path / "oracle")
    assert all(record_bytes(folder) == expected for folder in folders)
    assert {json.loads((f / "run.json").read_text())["agent"] for f in folders} == {"verifiers"}
