"""MCP Inspector's CLI (npm ``@modelcontextprotocol/inspector``, tested at 2.12.0) on silo-mcp.

Slow (a Node process per call). Finds ``mcp-inspector`` in ``$MCP_INSPECTOR`` or on PATH (CI:
``npm install --prefix .ci/node @modelcontextprotocol/inspector@2.12.0`` and
``.ci/node/node_modules/.bin`` on PATH), and skips saying so otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx2
import pytest

from silo.integrations.mcp_http import WENT_AWAY
from tests.integrations._mcp_process import REPO, SILO_MCP, http_server, wait_for

INSPECTOR = os.environ.get("MCP_INSPECTOR") or shutil.which("mcp-inspector")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        INSPECTOR is None,
        reason="MCP Inspector CLI not installed: npm install @modelcontextprotocol/inspector@2.12.0",
    ),
]


def _inspector(*args: str) -> subprocess.CompletedProcess[str]:
    assert INSPECTOR is not None
    return subprocess.run(
        [INSPECTOR, "--cli", *args], cwd=REPO, capture_output=True, text=True, timeout=300
    )


def test_strict_tools_list_over_stdio_has_no_warning(tmp_path: Path) -> None:
    done = _inspector(
        "--strict", "--method", "tools/list", "--", SILO_MCP, "env=crm", "task=TASK-002",
        f"runs_dir={tmp_path}",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr and "Error" not in done.stderr, done.stderr
    tools = {t["name"]: t for t in json.loads(done.stdout)["tools"]}
    assert tools["get_user"]["annotations"]["readOnlyHint"] is True
    assert "silo_finish" in tools


def test_calls_across_invocations_on_an_episode_url_are_one_rollout(
    tmp_path: Path, solver_calls: Any, scripted_record: Any
) -> None:
    calls, answer = solver_calls("TASK-002")
    runs = tmp_path / "mcp"
    with http_server(runs, "env=crm", "task=TASK-002") as server:
        url = httpx2.post(f"{server.base}/episodes").json()["url"]
        for name, args in [*calls, ("silo_finish", {"answer": answer})]:
            done = _inspector(
                url, "--protocol-era", "modern", "--method", "tools/call", "--tool-name", name,
                "--tool-args-json", json.dumps(args),
            )  # fmt: skip
            assert done.returncode == 0 and not json.loads(done.stdout)["isError"], done.stdout
    (run_dir,) = [p.parent for p in runs.glob("*/result.json")]
    expected = scripted_record("TASK-002", calls, answer, tmp_path / "b")
    assert ((run_dir / "result.json").read_bytes(), (run_dir / "state-diff.json").read_bytes()) == (
        expected
    )


def test_a_handshake_invocation_that_never_deletes_is_recorded_when_it_exits(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "mcp"
    # The CLI exits without DELETE; far from the idle timeout, only its dropped stream ends it.
    with http_server(runs, "env=crm", "task=TASK-001", "idle_timeout_s=1800") as server:
        done = _inspector(
            server.url, "--protocol-era", "legacy", "--method", "tools/call", "--tool-name",
            "list_users", "--tool-args-json", "{}",
        )  # fmt: skip
        assert done.returncode == 0 and not json.loads(done.stdout)["isError"], done.stdout
        (path,) = wait_for("*/result.json", runs)
    result = json.loads(path.read_text())
    assert (
        result["toolCalls"] == 1
        and result["error"] == f"the session was {WENT_AWAY} without finish()"
    )
