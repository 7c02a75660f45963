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
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("verifiers.v1", reason="needs the [verifiers] extra (its own venv)")

import httpx  # noqa: E402

from tests.integrations._mcp_process import http_server, wait_for  # noqa: E402
from tests.integrations.conftest import record_bytes, run_task_bytes  # noqa: E402

HERE = Path(__file__).resolve().parent
GROUP = 8  # a GRPO group: rollouts of one prompt in flight at once
SETUP_S = 900  # a safety net: the first run prepares the harness script with uv


@contextmanager
def _chat(script: Path) -> Iterator[str]:
    """The scripted endpoint (fake_chat.py) replying with ``script``; yields its base URL."""
    server = subprocess.Popen(
        [sys.executable, str(HERE / "fake_chat.py"), str(script)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        ready = server.stdout.readline()  # waits for the listening socket
        assert ready.startswith("ready "), ready
        yield f"http://127.0.0.1:{ready.split()[1]}/v1"
    finally:
        server.kill()
        server.wait()


def _vf_eval(
    env_id: str, base_url: str, out: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """vf-eval of one task on the scripted endpoint, locally (subprocess runtime, no push)."""
    vf_eval = shutil.which("vf-eval", path=str(Path(sys.executable).parent))
    assert vf_eval is not None
    return subprocess.run(
        [
            vf_eval, env_id, "-n", "1", "-m", "fake-model", "--client.base-url", base_url,
            "--client.api-key-var", "SILO_FAKE_KEY", "--no-push", "-o", str(out), *args,
        ],
        env={**os.environ, "SILO_FAKE_KEY": "not-a-secret", **(env or {})},
        capture_output=True,
        text=True,
        timeout=SETUP_S,
    )  # fmt: skip


@pytest.mark.slow  # vf-eval prepares its harness with uv, then runs 8 rollouts
def test_a_grpo_group_gets_silos_rewards_and_run_tasks_bytes(
    tmp_path: Path, solver_calls: Any
) -> None:
    calls, answer = solver_calls("TASK-002")
    # The solver's TASK-002 calls as JSON actions, then its answer.
    replies = [json.dumps({"tool": n, "arguments": a}) for n, a in calls]
    replies.append(json.dumps({"answer": answer}))
    (tmp_path / "script.json").write_text(json.dumps(replies))
    runs, out = tmp_path / "runs", tmp_path / "out"
    with _chat(tmp_path / "script.json") as base_url:
        done = _vf_eval(
            "silo-verifiers", base_url, out, "-r", str(GROUP),
            "--env.player.harness.id", "null", "--env.player.runtime.type", "subprocess",
            "--env.taskset.tasks", '["TASK-002"]', "--env.taskset.runs_dir", str(runs),
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


# silo-mcp needs Silo's [mcp] extra (mcp >= 2.3), which cannot sit in this venv beside
# verifiers' mcp 2.0: the server runs from the project's own venv, as a user's would.
PROJECT_SILO_MCP = HERE.parents[1] / ".venv" / "bin" / "silo-mcp"


@pytest.mark.slow  # vf-eval prepares its harness with uv, then plays one MCP rollout
@pytest.mark.skipif(
    not PROJECT_SILO_MCP.exists(),
    reason=f"needs silo-mcp with the [mcp] extra at {PROJECT_SILO_MCP} (the project's .venv)",
)
def test_the_harness_on_an_episode_url_is_one_rollout_with_the_solvers_bytes(
    tmp_path: Path, solver_calls: Any
) -> None:
    calls, answer = solver_calls("TASK-002")
    # The model replays the solver's calls as tool calls, finishes, then says it is done.
    script: list[Any] = [{"call": n, "arguments": a} for n, a in calls]
    script += [{"call": "silo_finish", "arguments": {"answer": answer}}, "done"]
    (tmp_path / "script.json").write_text(json.dumps(script))
    runs = tmp_path / "mcp"
    with (
        http_server(runs, "env=crm", "task=TASK-002", silo_mcp=str(PROJECT_SILO_MCP)) as server,
        _chat(tmp_path / "script.json") as base_url,
    ):
        created = httpx.post(f"{server.base}/episodes")
        assert created.status_code == 201, created.text
        # silo_vf_episode.py, imported by its id from this folder, reads the URL.
        path = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])
        done = _vf_eval(
            "silo-vf-episode", base_url, tmp_path / "out",
            "--env.agent.harness.id", "null", "--env.agent.runtime.type", "subprocess",
            env={"PYTHONPATH": path, "SILO_EPISODE_URL": created.json()["url"]},
        )  # fmt: skip
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        (result,) = wait_for("*/result.json", runs)  # silo_finish wrote the record
    expected = run_task_bytes("TASK-002", calls, answer, tmp_path / "oracle")
    assert record_bytes(result.parent) == expected
    assert json.loads(result.read_text())["toolCalls"] == len(calls)  # one rollout, every call
    identity = json.loads((result.parent / "run.json").read_text())["agentIdentity"]
    assert identity["kind"] == "mcp" and identity["client"]  # the harness's own clientInfo
