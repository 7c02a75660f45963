"""silo-mcp over HTTP with the real mcp SDK: episode URLs, DELETE, idle clients and the caps."""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

from silo.integrations.mcp_http import WENT_AWAY
from tests.integrations._mcp_process import http_server, results, wait_for


def _payload(result: Any) -> Any:
    return json.loads(result.content[0].text)


def _episode(base: str) -> str:
    created = httpx2.post(f"{base}/episodes")
    assert created.status_code == 201, created.text
    url = str(created.json()["url"])
    assert url == f"{base}/episodes/{created.json()['episode']}/mcp"
    return url


def test_the_default_client_on_an_episode_url_is_one_rollout_with_the_solvers_bytes(
    tmp_path: Path, solver_calls: Any, scripted_record: Any
) -> None:
    calls, answer = solver_calls("TASK-002")
    seen: dict[str, Any] = {}
    with http_server(tmp_path / "mcp", "env=crm", "task=TASK-002") as server:
        url = _episode(server.base)

        async def client() -> None:
            async with Client(url) as c:  # mode "auto": the stateless 2026-07-28 protocol
                for name, args in calls:
                    assert not (await c.call_tool(name, args)).is_error
                finish = await c.call_tool("silo_finish", {"answer": answer})
                seen["finish"] = finish.content[0].text
            async with Client(server.url) as bare:  # no episode: refused, and says how to get one
                seen["bare"] = _payload(await bare.call_tool("list_users", {}))

        anyio.run(client)
    assert seen["finish"] == "recorded"  # the grade stays with Silo by default
    assert seen["bare"]["code"] == "episode_unknown" and "POST /episodes" in seen["bare"]["message"]
    (run_dir,) = [p.parent for p in (tmp_path / "mcp").glob("*/result.json")]
    expected = scripted_record("TASK-002", calls, answer, tmp_path / "b")
    assert ((run_dir / "result.json").read_bytes(), (run_dir / "state-diff.json").read_bytes()) == (
        expected
    )
    identity = json.loads((run_dir / "run.json").read_text())["agentIdentity"]
    assert identity["kind"] == "mcp" and identity["client"] and identity["clientVersion"]


def test_delete_ends_a_handshake_session_or_an_episode_at_once_with_a_record(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "mcp"
    with http_server(runs, "env=crm", "task=TASK-001") as server:
        url = _episode(server.base)

        async def clients() -> None:
            # Leaving the handshake client's block sends DELETE; the rollout ends then.
            async with (
                streamable_http_client(server.url) as (read, write),
                ClientSession(read, write) as s,
            ):
                await s.initialize()
                await s.call_tool("list_users", {})
            async with Client(url) as c:
                await c.call_tool("get_current_date", {})

        anyio.run(clients)
        wait_for("*/result.json", runs, count=1)  # before any shutdown or idle timeout
        ended = httpx2.delete(url.removesuffix("/mcp"))
        assert ended.status_code == 200 and ended.json()["ended"] is True
        assert httpx2.post(url, json={}).status_code == 404  # the id is gone with its episode
        assert httpx2.post(f"{server.base}/episodes/made-up/mcp", json={}).status_code == 404
        # An episode whose client never came is recorded too, as a rollout of no calls.
        unused = _episode(server.base).removesuffix("/mcp")
        assert httpx2.delete(unused).json()["ended"] is True
        records = sorted((r["toolCalls"], r["error"]) for r in results(runs))
    ended = "the session was ended by DELETE without finish()"
    assert records == [(0, ended), (1, ended), (1, ended)]


@pytest.mark.slow  # a real MCP client and a silo-mcp process: an edge the default suite leaves to -m slow
def test_a_client_that_goes_away_is_recorded_after_the_idle_timeout(tmp_path: Path) -> None:
    runs = tmp_path / "mcp"
    with http_server(runs, "env=crm", "task=TASK-001", "idle_timeout_s=1") as server:
        url = _episode(server.base)

        async def client() -> None:
            async with Client(url) as c:
                await c.call_tool("list_users", {})

        anyio.run(client)
        (path,) = wait_for("*/result.json", runs)  # the server still runs: the reaper wrote it
        assert server.proc.poll() is None
    result = json.loads(path.read_text())
    assert result["terminationReason"] == "agent_error" and result["toolCalls"] == 1
    assert "after 1 s without a request" in result["error"]


@pytest.mark.slow  # a real MCP client and a silo-mcp process: an edge the default suite leaves to -m slow
def test_an_episode_whose_client_never_came_is_recorded_after_the_idle_timeout(
    tmp_path: Path,
) -> None:
    """A harness that asked for an episode, then died before connecting, still leaves a run."""
    runs = tmp_path / "mcp"
    with http_server(runs, "env=crm", "task=TASK-001", "idle_timeout_s=1") as server:
        _episode(server.base)  # handed out; no client ever uses it
        (path,) = wait_for("*/result.json", runs)  # the reaper recorded it
        assert server.proc.poll() is None
    result = json.loads(path.read_text())
    assert result["terminationReason"] == "agent_error" and result["toolCalls"] == 0
    assert "after 1 s without a request" in result["error"]


@pytest.mark.slow  # a real MCP client and a silo-mcp process: an edge the default suite leaves to -m slow
def test_past_the_session_cap_the_oldest_idle_session_is_ended_not_the_newcomer(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "mcp"
    seen: dict[str, Any] = {}
    with http_server(runs, "env=crm", "task=TASK-001", "max_sessions=2") as server:

        async def clients() -> None:
            async with AsyncExitStack() as stack:
                sessions = []
                for _ in range(3):  # three clients that never leave
                    read, write, *_ = await stack.enter_async_context(
                        streamable_http_client(server.url)
                    )
                    s = await stack.enter_async_context(ClientSession(read, write))
                    await s.initialize()
                    await s.call_tool("list_users", {})
                    sessions.append(s)
                seen["newest"] = await sessions[2].call_tool("get_current_date", {})
                seen["files"] = wait_for("*/result.json", runs)

        anyio.run(clients)
    assert not seen["newest"].is_error  # no 503 lock-out: the newcomer got in
    (evicted,) = [json.loads(p.read_text()) for p in seen["files"]]
    reason = "evicted (silo-mcp's max_sessions reached)"
    assert evicted["error"] == f"the session was {reason} without finish()"
    assert evicted["toolCalls"] == 1


@pytest.mark.slow  # a real MCP client and a silo-mcp process: an edge the default suite leaves to -m slow
def test_past_the_episode_cap_the_least_recently_used_episode_is_ended(tmp_path: Path) -> None:
    runs = tmp_path / "mcp"
    with http_server(runs, "env=crm", "task=TASK-001", "max_episodes=2") as server:
        first, second = _episode(server.base), _episode(server.base)

        async def use(url: str) -> None:
            async with Client(url) as c:
                await c.call_tool("list_users", {})

        anyio.run(use, first)
        anyio.run(use, second)
        third = _episode(server.base)  # the first is the least recently used: ended
        (path,) = wait_for("*/result.json", runs)
        statuses = [httpx2.post(u, json={}).status_code for u in (first, second, third)]
    assert statuses[0] == 404 and 404 not in statuses[1:]
    reason = "evicted (silo-mcp's max_episodes reached)"
    assert json.loads(path.read_text())["error"] == f"the session was {reason} without finish()"


# A client in a process of its own, killed mid-episode: it makes one call, says so on stdout,
# then waits for the kill. argv: its URL, and "legacy" (the handshake, with its GET event
# stream) or "auto" (the default: stateless 2026-07-28, POST only).
_CLIENT = """
import sys, anyio
from mcp import Client

async def main() -> None:
    async with Client(sys.argv[1], mode=sys.argv[2]) as c:
        assert not (await c.call_tool("list_users", {})).is_error
        print("called", flush=True)
        await anyio.sleep_forever()

anyio.run(main)
"""


def _killed_client(url: str, mode: str) -> None:
    """Run the client until its one call is done, then SIGKILL it (no DELETE, no goodbye)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _CLIENT, url, mode], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    try:
        assert proc.stdout.readline().strip() == "called"  # blocks until the call or its exit
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.slow  # real clients in processes of their own
def test_a_handshake_client_killed_mid_episode_is_recorded_when_its_stream_drops(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "mcp"
    # The idle timeout is far off: only the dropped stream can end these before the wait's net.
    args = ("env=crm", "task=TASK-001", "idle_timeout_s=1800", "drop_grace_s=0.5")
    with http_server(runs, *args) as server:
        _killed_client(server.url, "legacy")  # a session at /mcp
        _killed_client(_episode(server.base), "legacy")  # a session on an episode URL
        found = wait_for("*/result.json", runs, count=2)
        assert server.proc.poll() is None  # the server still serves
        stderr = server.stop()
    records = [json.loads(p.read_text()) for p in found]
    for record in records:
        assert record["terminationReason"] == "agent_error" and record["toolCalls"] == 1
        assert record["error"] == f"the session was {WENT_AWAY} without finish()"
        assert record["checks"]  # graded as the world stands
    assert all((p.parent / "run.json").is_file() for p in found)  # complete records
    assert "Traceback" not in stderr


@pytest.mark.slow  # a real client in a process of its own
def test_clients_still_there_keep_their_episodes_past_the_grace(tmp_path: Path) -> None:
    runs = tmp_path / "mcp"
    args = ("env=crm", "task=TASK-001", "idle_timeout_s=1800", "drop_grace_s=0.2")
    with http_server(runs, *args) as server:
        url = _episode(server.base)
        _killed_client(url, "auto")  # POST only: no standing connection, nothing to drop

        async def idle_but_there() -> None:  # a handshake client, its event stream open
            async with Client(server.url, mode="legacy") as c:
                await c.call_tool("list_users", {})
                await anyio.sleep(1.0)  # five grace periods: long enough to be taken for gone
                assert not list(runs.glob("*/result.json"))
                await c.call_tool("silo_finish", {"answer": "done"})

        async def back() -> None:  # the dropped stateless client's URL again: same rollout
            async with Client(url) as c:
                await c.call_tool("get_current_date", {})
                await c.call_tool("silo_finish", {"answer": "done"})

        anyio.run(idle_but_there)
        anyio.run(back)
        records = results(runs)
    assert sorted((r["toolCalls"], r["terminationReason"]) for r in records) == [
        (1, "completed"),
        (2, "completed"),
    ]
