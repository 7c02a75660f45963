"""silo-mcp over stdio as clients end it, and what every client is told (names, hints, version)."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from silo.distribution import version
from silo.integrations.episodes import EpisodeSpec, EpisodeTable
from silo.integrations.mcp_server import build_server
from silo.loading.environment import load_environment
from tests.integrations._mcp_process import REPO, SILO_MCP, START_S, results


def _line(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def _reply(proc: subprocess.Popen[bytes]) -> Any:
    assert proc.stdout is not None
    return json.loads(proc.stdout.readline())


def _started(runs: Path, *args: str) -> subprocess.Popen[bytes]:
    """silo-mcp after the handshake (as Claude Code makes it) and one tool call."""
    proc = subprocess.Popen(
        [SILO_MCP, "env=crm", "task=TASK-001", f"runs_dir={runs}", *args],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    info = {"name": "claude-code", "version": "2.1.197"}
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": info}
    _line(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    assert _reply(proc)["result"]["serverInfo"]["version"] == version()
    _line(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    call = {"name": "list_users", "arguments": {}}
    _line(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
    assert not _reply(proc)["result"]["isError"]
    return proc


# SIGTERM by default; SIGINT and SIGHUP, which take the same path, with -m slow.
@pytest.mark.parametrize(
    "signum",
    [
        pytest.param(signal.SIGINT, marks=pytest.mark.slow),
        signal.SIGTERM,
        pytest.param(signal.SIGHUP, marks=pytest.mark.slow),
    ],
)
def test_each_signal_a_client_stops_it_with_leaves_a_complete_graded_record(
    tmp_path: Path, signum: signal.Signals
) -> None:
    proc = _started(tmp_path)
    proc.send_signal(signum)  # stdin stays open, as Claude Code and Codex leave it
    assert proc.wait(timeout=START_S) == 128 + signum
    (result,) = results(tmp_path)
    assert result["terminationReason"] == "agent_error" and result["toolCalls"] == 1
    assert result["error"] == f"the session was ended by {signum.name} without finish()"
    assert result["checks"]  # graded
    (run_dir,) = [p.parent for p in tmp_path.glob("*/run.json")]
    run = json.loads((run_dir / "run.json").read_text())
    identity = {"kind": "mcp", "client": "claude-code", "clientVersion": "2.1.197"}
    assert run["agentIdentity"] == identity
    for name in ("trace.jsonl", "state-diff.json", "state-changes.json"):
        assert (run_dir / name).is_file()
    assert json.loads((run_dir / "trace.jsonl").read_text().splitlines()[-1])


@pytest.mark.slow  # a real MCP client and a silo-mcp process: an edge the default suite leaves to -m slow
def test_a_process_that_ends_after_one_call_warns_of_a_process_per_call(tmp_path: Path) -> None:
    proc = _started(tmp_path)
    _, stderr = proc.communicate(timeout=START_S)  # closes stdin: the client is done
    (result,) = results(tmp_path)
    assert result["error"] == "the session was closed without finish()"
    lines = stderr.decode().splitlines()
    assert any("start silo-mcp once per tool call" in line for line in lines), lines


def test_finish_records_without_telling_the_grade_and_the_old_names_still_answer(
    tmp_path: Path,
) -> None:
    proc = _started(tmp_path)
    finish = {"name": "silo.finish", "arguments": {"answer": "done"}}
    _line(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": finish})
    reply = _reply(proc)["result"]
    _, stderr = proc.communicate(timeout=START_S)
    assert reply["content"] == [{"type": "text", "text": "recorded"}] and not reply["isError"]
    assert "silo.finish is deprecated and goes in the next release; call silo_finish" in (
        stderr.decode()
    )
    (result,) = results(tmp_path)
    assert result["terminationReason"] == "completed"
    assert "start silo-mcp once per tool call" not in stderr.decode()  # it finished


def test_tools_carry_model_safe_names_read_only_hints_and_a_typed_answer(tmp_path: Path) -> None:
    spec = EpisodeSpec(env="crm", project_dir=REPO, runs_dir=tmp_path)
    table = EpisodeTable(spec, spec.load())
    seen: dict[str, Any] = {}

    async def client() -> None:
        async with Client(build_server(table)) as c:
            seen["info"] = c.server_info
            seen["tools"] = {t.name: t for t in (await c.list_tools()).tools}

    anyio.run(client)
    tools = seen["tools"]
    assert seen["info"].version == version()
    reserved = [n for n in tools if n.startswith("silo")]
    assert sorted(reserved) == ["silo_finish", "silo_list_tasks", "silo_start_task"]
    crm = load_environment("crm", REPO)
    for tool in crm.tools():
        assert tools[tool.name].annotations.read_only_hint is tool.read_only
    assert any(t.read_only for t in crm.tools()) and not all(t.read_only for t in crm.tools())
    answer = tools["silo_finish"].input_schema["properties"]["answer"]
    assert answer["type"] == "string" and tools["silo_finish"].input_schema["required"] == [
        "answer"
    ]
