"""silo-mcp safe to expose, through real HTTP: token, Host/Origin at any address, port in use."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import httpx2
import pytest

from tests.integrations._mcp_process import REPO, SILO_MCP, http_server

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
ACCEPT = {"accept": "application/json, text/event-stream"}


def _fails(*args: str, env: dict[str, str] | None = None) -> list[str]:
    done = subprocess.run(
        [SILO_MCP, "env=crm", "task=TASK-001", "transport=http", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    return done.stderr.strip().splitlines()


def test_a_host_others_reach_is_refused_without_a_token(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SILO_MCP_TOKEN"}
    (line,) = _fails("host=0.0.0.0", "port=0", f"runs_dir={tmp_path}", env=env)
    assert line.startswith("silo-mcp: host=0.0.0.0 lets other machines in") and "auth=" in line


@pytest.mark.slow  # a real MCP client and a silo-mcp process: an edge the default suite leaves to -m slow
def test_a_port_in_use_is_one_line_and_exit_2_before_any_ready_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        (line,) = _fails(f"port={port}", f"runs_dir={tmp_path}")
    assert line == (
        f"silo-mcp: port {port} on 127.0.0.1 is in use; stop what listens there or pick "
        "another with port=N"
    )


def test_the_token_guards_every_path_and_host_checks_hold_on_every_address(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "SILO_MCP_TOKEN": "sk-test-token"}
    args = ("env=crm", "task=TASK-001", "host=0.0.0.0", "auth=env", "allowed_hosts=[ok.example]")
    with http_server(tmp_path, *args, env=env) as server:
        port = server.base.rsplit(":", 1)[1]
        base = f"http://127.0.0.1:{port}"  # served on every address, loopback included
        mcp = f"{base}/mcp"
        good = {"authorization": "Bearer sk-test-token", **ACCEPT}
        assert httpx2.post(mcp, json=INIT, headers=ACCEPT).status_code == 401
        assert httpx2.post(f"{base}/episodes").status_code == 401
        wrong = {**good, "authorization": "Bearer sk-guess"}
        assert httpx2.post(mcp, json=INIT, headers=wrong).status_code == 401
        assert httpx2.post(mcp, json=INIT, headers=good).status_code == 200
        # DNS rebinding: a foreign Host or Origin is refused at 0.0.0.0 too.
        for foreign in ("evil.example", f"evil.example:{port}", "10.1.2.3"):
            assert httpx2.post(mcp, json=INIT, headers={**good, "host": foreign}).status_code == 421
        origin = {**good, "origin": "http://evil.example"}
        assert httpx2.post(mcp, json=INIT, headers=origin).status_code == 403
        allowed = {**good, "host": f"ok.example:{port}", "origin": "https://ok.example"}
        assert httpx2.post(mcp, json=INIT, headers=allowed).status_code == 200
        stderr = server.stop()
    assert "Traceback" not in stderr and "sk-test-token" not in stderr


@pytest.mark.slow  # a real MCP client and a silo-mcp process: an edge the default suite leaves to -m slow
def test_generate_prints_a_token_once_and_requires_it(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SILO_MCP_TOKEN"}
    command = [SILO_MCP, f"runs_dir={tmp_path}", "env=crm", "transport=http", "port=0"]
    proc = subprocess.Popen(
        [*command, "auth=generate"], cwd=REPO, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert proc.stderr is not None
        token = proc.stderr.readline().strip().rsplit(": ", 1)[1]
        base = proc.stderr.readline().split(" on ", 1)[1].strip().removesuffix("/mcp")
        assert httpx2.post(f"{base}/episodes").status_code == 401
        made = httpx2.post(f"{base}/episodes", headers={"authorization": f"Bearer {token}"})
        assert made.status_code == 201
    finally:
        proc.terminate()
        proc.wait(timeout=60)


@pytest.mark.slow  # a real MCP client and a silo-mcp process: an edge the default suite leaves to -m slow
def test_odd_paths_are_404_without_a_traceback(tmp_path: Path) -> None:
    with http_server(tmp_path, "env=crm") as server:  # one server meets them all, in turn
        for path in ("/", "/mcp/../etc", "/episodes/x/y/z", "/%00"):
            assert httpx2.get(f"{server.base}{path}").status_code == 404, path
        stderr = server.stop()
    assert "Traceback" not in stderr, stderr


@pytest.mark.slow  # a real MCP client and a silo-mcp process: an edge the default suite leaves to -m slow
def test_a_client_that_vanishes_mid_request_leaves_no_traceback(tmp_path: Path) -> None:
    with http_server(tmp_path, "env=crm", "task=TASK-001") as server:
        host, port = server.base.removeprefix("http://").rsplit(":", 1)
        for _ in range(5):  # headers promise a body that never comes, then the client goes
            with socket.create_connection((host, int(port))) as raw:
                raw.sendall(
                    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                    b"\r\nAccept: application/json, text/event-stream\r\n"
                    b"Content-Length: 500\r\n\r\n{"
                )
        assert httpx2.post(server.url, json=INIT, headers=ACCEPT).status_code == 200
        stderr = server.stop()
    assert "Traceback" not in stderr, stderr
