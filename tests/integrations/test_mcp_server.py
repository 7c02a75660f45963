"""silo-mcp with the real MCP client: stdio and streamable HTTP, errors, finish, records."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from silo.integrations.mcp_server import EPISODE_HEADER
from silo.loading.environment import load_environment
from tests.waiting import SAFETY_S, wait_until

REPO = Path(__file__).resolve().parents[2]
SILO_MCP = str(Path(sys.executable).parent / "silo-mcp")


def _stdio(*args: str) -> StdioServerParameters:
    # These tests read the grade silo_finish returns on request (finish_result=grade).
    return StdioServerParameters(
        command=SILO_MCP, args=[*args, "finish_result=grade"], cwd=str(REPO)
    )


def _payload(result: Any) -> Any:
    return json.loads(result.content[0].text)


def _only_run(runs: Path) -> Path:
    (run_dir,) = [p for p in runs.iterdir() if p.is_dir()]
    return run_dir


def _bytes(run_dir: Path) -> tuple[bytes, bytes]:
    return (run_dir / "result.json").read_bytes(), (run_dir / "state-diff.json").read_bytes()


async def _drive(session: ClientSession, calls: list[tuple[str, Any]], answer: Any) -> Any:
    for name, args in calls:
        await session.call_tool(name, args)
    return _payload(await session.call_tool("silo_finish", {"answer": answer}))


def test_stdio_tools_errors_finish_and_the_same_bytes_as_run_task(
    tmp_path: Path, solver_calls: Any, scripted_record: Any, bad_calls: Any
) -> None:
    calls, answer = solver_calls("TASK-002")
    calls = bad_calls + calls
    runs = tmp_path / "mcp"
    seen: dict[str, Any] = {}

    async def client() -> None:
        params = _stdio("env=crm", "task=TASK-002", f"runs_dir={runs}")
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            init = await s.initialize()
            seen["instructions"] = init.instructions
            seen["tools"] = (await s.list_tools()).tools
            prompt = await s.get_prompt("TASK-002")
            seen["prompt"] = prompt.messages[0].content.text
            seen["bad"] = await s.call_tool(*bad_calls[0])
            seen["unknown"] = await s.call_tool(*bad_calls[1])
            for name, args in calls[2:]:
                await s.call_tool(name, args)
            seen["finish"] = _payload(await s.call_tool("silo_finish", {"answer": answer}))
            seen["after"] = await s.call_tool("get_current_date", {})

    anyio.run(client)
    crm = load_environment("crm", REPO)
    instruction = crm.task("TASK-002").instruction
    assert instruction in seen["instructions"] and seen["prompt"] == instruction
    by_name = {t.name: t for t in seen["tools"]}
    for spec in crm.tool_specs():
        assert by_name[spec["name"]].input_schema == spec["inputSchema"]
        assert by_name[spec["name"]].description == spec["description"]
    assert "silo_finish" in by_name
    assert seen["bad"].is_error and _payload(seen["bad"])["code"] == "invalid_input"
    assert seen["unknown"].is_error and _payload(seen["unknown"])["code"] == "tool_not_found"
    finish = seen["finish"]
    assert finish["passed"] is True and finish["reward"] == 1.0 and finish["checks"]
    assert seen["after"].is_error and _payload(seen["after"])["code"] == "session_finished"
    run_dir = _only_run(runs)
    assert finish["runDir"] == str(run_dir)
    for name in ("trace.jsonl", "state-diff.json", "result.json", "run.json"):
        assert (run_dir / name).is_file(), name
    assert _bytes(run_dir) == scripted_record("TASK-002", calls, answer, tmp_path / "b")


@pytest.mark.slow  # a real MCP client and a silo-mcp process: an edge the default suite leaves to -m slow
def test_a_budget_end_is_graded_as_the_world_stands_like_result_json(
    tmp_path: Path, solver_calls: Any
) -> None:
    calls, answer = solver_calls("TASK-002")  # the change done, then one call too many
    runs = tmp_path / "mcp"
    seen: dict[str, Any] = {}

    async def client() -> None:
        params = _stdio(
            "env=crm", "task=TASK-002", f"runs_dir={runs}", f"budget.max_tool_calls={len(calls)}"
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            for name, args in calls:
                await s.call_tool(name, args)
            seen["over"] = await s.call_tool("list_users", {})
            seen["finish"] = _payload(await s.call_tool("silo.finish", {"answer": answer}))

    anyio.run(client)
    assert seen["over"].is_error and _payload(seen["over"])["code"] == "max_tool_calls"
    finish = seen["finish"]
    recorded = json.loads((_only_run(runs) / "result.json").read_text())
    assert finish["terminationReason"] == recorded["terminationReason"] == "max_tool_calls"
    assert finish["reward"] == recorded["reward"] > 0


def test_a_client_that_leaves_without_finishing_still_leaves_a_record(tmp_path: Path) -> None:
    runs = tmp_path / "mcp"

    async def client() -> None:
        params = _stdio("env=crm", "task=TASK-001", f"runs_dir={runs}")
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            await s.call_tool("list_users", {})

    anyio.run(client)
    wait_until(lambda: list(runs.glob("*/result.json")), "the run's result.json")
    result = json.loads((_only_run(runs) / "result.json").read_text())
    assert result["terminationReason"] == "agent_error"
    assert result["error"] == "the session was closed without finish()"
    assert result["toolCalls"] == 1


@pytest.mark.slow  # a real MCP client and a silo-mcp process: an edge the default suite leaves to -m slow
def test_an_open_task_is_chosen_by_the_client(tmp_path: Path) -> None:
    runs = tmp_path / "mcp"
    seen: dict[str, Any] = {}

    async def client() -> None:
        params = _stdio("env=crm", f"runs_dir={runs}")
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            seen["early"] = _payload(await s.call_tool("list_users", {}))
            seen["tasks"] = _payload(await s.call_tool("silo_list_tasks", {}))
            seen["badstart"] = await s.call_tool("silo_start_task", {"task_id": "TASK-999"})
            seen["start"] = _payload(await s.call_tool("silo_start_task", {"task_id": "TASK-001"}))
            seen["again"] = _payload(await s.call_tool("silo_start_task", {"task_id": "TASK-002"}))
            seen["finish"] = _payload(await s.call_tool("silo_finish", {"answer": "no idea"}))

    anyio.run(client)
    assert seen["early"]["code"] == "task_not_chosen"
    assert [t["id"] for t in seen["tasks"]["tasks"]][:2] == ["TASK-001", "TASK-002"]
    assert seen["badstart"].is_error and "TASK-999" in _payload(seen["badstart"])["message"]
    assert seen["start"]["taskId"] == "TASK-001" and seen["start"]["instruction"]
    assert seen["again"]["code"] == "task_already_started"
    assert seen["finish"]["passed"] is False
    assert json.loads((_only_run(runs) / "run.json").read_text())["taskId"] == "TASK-001"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_server(tmp_path: Path) -> Any:
    port = _free_port()
    runs = tmp_path / "mcp"
    args = ["env=crm", "task=TASK-002", f"runs_dir={runs}", "transport=http", f"port={port}"]
    args.append("finish_result=grade")
    proc = subprocess.Popen([SILO_MCP, *args], cwd=REPO, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + SAFETY_S
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "silo-mcp did not start listening"
            time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp", runs, proc
    proc.terminate()
    proc.wait(timeout=SAFETY_S)


def test_http_concurrent_sessions_get_separate_worlds_and_run_folders(
    tmp_path: Path, http_server: Any, solver_calls: Any, scripted_record: Any, bad_calls: Any
) -> None:
    url, runs, _ = http_server
    calls, answer = solver_calls("TASK-002")
    calls = bad_calls + calls
    finished: list[Any] = []

    async def one_client() -> None:
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            assert "silo_finish" in [t.name for t in (await s.list_tools()).tools]
            finished.append(await _drive(s, calls, answer))

    async def clients() -> None:
        async with anyio.create_task_group() as group:
            for _ in range(3):
                group.start_soon(one_client)

    anyio.run(clients)
    assert [f["passed"] for f in finished] == [True, True, True]  # each on its own world
    run_dirs = sorted(Path(f["runDir"]) for f in finished)
    assert len(set(run_dirs)) == 3 and all(d.parent == runs for d in run_dirs)
    expected = scripted_record("TASK-002", calls, answer, tmp_path / "b")
    for run_dir in run_dirs:
        assert _bytes(run_dir) == expected


@pytest.mark.slow  # a real MCP client and a silo-mcp process: an edge the default suite leaves to -m slow
def test_http_server_survives_bad_requests_and_records_abandoned_sessions(
    http_server: Any,
) -> None:
    url, runs, proc = http_server

    async def client() -> None:
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            await s.call_tool("list_users", {})
            bad = await s.call_tool("silo_finish", {"answer": 1, "surprise": 2})
            assert bad.is_error and _payload(bad)["code"] == "invalid_input"

    anyio.run(client)
    assert proc.poll() is None  # still serving
    proc.terminate()
    proc.wait(timeout=SAFETY_S)
    result = json.loads((_only_run(runs) / "result.json").read_text())
    assert result["terminationReason"] == "agent_error" and result["toolCalls"] == 1


def slow(*values: object) -> Any:
    """A case the default suite leaves to -m slow: one ``silo-mcp`` process each."""
    return pytest.param(*values, marks=pytest.mark.slow)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["env=nowhere", "task=TASK-001"], 'unknown env "nowhere"'),
        (["env=crm", "task=TASK-999"], "TASK-999"),
        slow(["env=crm", "port=http"], "port must be a number"),
        (["env=crm", "transport=carrier-pigeon"], "transport must be stdio or http"),
        slow(["env=crm", "task=TASK-007", "user=nope"], 'unknown user "nope"'),
        slow(["env=crm", "task=TASK-007", "user=openai"], "user.model=<model name>"),
        slow(["env=crm", "finish_result=maybe"], "finish_result must be recorded or grade"),
        slow(
            ["env=crm", "transport=http", "max_sessions=0"], "max_sessions must be a whole number"
        ),
        slow(
            ["env=crm", "transport=http", "auth=env"], "auth=env needs the token in SILO_MCP_TOKEN"
        ),
        slow(["env=crm", "transport=http", "allowed_hosts=[1]"], "allowed_hosts must be a list"),
        (["env=crm", "transport=http", "drop_grace_s=0"], "drop_grace_s must be above 0"),
    ],
)
def test_bad_command_lines_are_one_line_and_exit_2(args: list[str], expected: str) -> None:
    done = subprocess.run(
        [SILO_MCP, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=SAFETY_S,
        stdin=subprocess.DEVNULL,
        env={k: v for k, v in os.environ.items() if k != "SILO_MCP_TOKEN"},
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("silo-mcp: ") and expected in lines[0], lines


def test_without_the_extra_the_command_names_it(tmp_path: Path) -> None:
    # sitecustomize runs before silo-mcp and makes "import mcp" fail as if not installed.
    (tmp_path / "sitecustomize.py").write_text("import sys\nsys.modules['mcp'] = None\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [SILO_MCP, "env=crm", "task=TASK-001"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=SAFETY_S,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "silo-mcp: silo-mcp needs the [mcp] extra; install it with pip install 'silo-worlds[mcp]' "
        "(or pip install -e '.[mcp]' in a checkout)"
    ]


def test_the_stateless_protocol_needs_an_episode_header(http_server: Any) -> None:
    url = http_server[0]
    seen: dict[str, Any] = {}

    async def clients() -> None:
        async with Client(url) as bare:  # mode "auto": the 2026-07-28 protocol, no session
            seen["bare"] = await bare.call_tool("list_users", {})
        headers = {EPISODE_HEADER: "episode-1"}
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            Client(streamable_http_client(url, http_client=http)) as named,
        ):
            seen["named"] = await named.call_tool("list_users", {})
            seen["finish"] = _payload(await named.call_tool("silo_finish", {"answer": "x"}))

    anyio.run(clients)
    assert seen["bare"].is_error and _payload(seen["bare"])["code"] == "episode_unknown"
    assert not seen["named"].is_error
    assert seen["finish"]["toolCalls"] == 1  # the header kept both calls in one rollout
