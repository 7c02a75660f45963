"""agent=harness: a CLI agent (tests/integrations/harness_cli.py) plays rollouts through Silo.

The CLI is a real process speaking MCP to the rollout's door and Chat Completions to the
recording proxy; its upstream is the scripted replay of the solver's run, or a scripted
endpoint on loopback that the proxy forwards to. Each rollout starts a Python process (2-5 s on
a busy machine), so only three stay in the default suite; the rest are marked slow.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The harness agents need the [mcp] extra (their MCP door); the floors run goes without it.
pytest.importorskip("mcp", reason="the harness agents need the [mcp] extra")

from silo import run_task
from silo.agents.contract import AgentError
from silo.errors import AgentLoadError
from silo.integrations.harness.agent import HarnessAgent
from silo.integrations.harness.replay import ReplayScript
from tests.integrations._mcp_process import REPO
from tests.integrations.harness_upstream import ScriptedUpstream
from tests.waiting import QUICK_STOP

CLI = Path(__file__).with_name("harness_cli.py")


def _agent(flags: list[str], **settings: Any) -> dict[str, Any]:
    """A harness config running harness_cli.py with ``flags``."""
    command = [sys.executable, str(CLI), "{{mcp_url}}", "{{proxy_url}}", "{{prompt}}", *flags]
    return {
        "_target_": "silo.integrations.harness.agent.HarnessAgent",
        "harness": "mini",
        "command": command,
        "finish_grace_s": 60.0,
        **settings,
    }


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The solver's run of CRM TASK-002: its trace is the replay's script, its bytes the goal."""
    runs = tmp_path_factory.mktemp("solver")
    return run_task("crm", "TASK-002", "solver", project_dir=REPO, runs_dir=runs)


def _bytes(run_dir: Path) -> tuple[bytes, bytes]:
    return (run_dir / "result.json").read_bytes(), (run_dir / "state-diff.json").read_bytes()


def _events(run_dir: Path, kind: str) -> list[dict[str, Any]]:
    lines = (run_dir / "trace.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["type"] == kind]


def test_a_cli_replaying_the_solver_leaves_the_solvers_bytes(tmp_path: Path, solved: Any) -> None:
    trace = str(solved.run_dir / "trace.jsonl")
    result = run_task(
        "crm", "TASK-002", _agent(["--stream"], replay=trace), project_dir=REPO, runs_dir=tmp_path
    )
    assert result.result["passed"] is True
    assert _bytes(result.run_dir) == _bytes(solved.run_dir)
    steps = _events(result.run_dir, "model_step")
    # Three calls, silo_finish, then the final text: one step per request, in order.
    assert [s["turn"] for s in steps] == [1, 2, 3, 4, 5]
    assert {s["api"] for s in steps} == {"openai.chat"}
    assert [c["name"] for s in steps for c in s["response"]["toolCalls"]] == [
        "list_opportunities", "reassign_opportunity", "reassign_opportunity", "silo_finish",
    ]  # fmt: skip
    assert steps[-1]["response"]["text"] == solved.agent_output
    assert steps[0]["request"]["stream"] is True and steps[0]["requestBody"]["messages"]
    run = json.loads((result.run_dir / "run.json").read_text())
    assert run["agentIdentity"]["harness"] == "mini"
    assert run["agentIdentity"]["upstream"] == f"replay:{Path(trace).as_posix()}"
    assert run["harness"] == {"exitStatus": 0, "stderrTail": ""}
    assert (result.run_dir / "harness-stdout.txt").read_text().strip() == solved.agent_output


@pytest.fixture
def upstream(solved: Any) -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream(ReplayScript.from_trace(solved.run_dir / "trace.jsonl")) as served:
        yield served


def test_the_proxy_forwards_streams_and_puts_the_real_key_upstream_only(
    tmp_path: Path, solved: Any, upstream: ScriptedUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SILO_TEST_UPSTREAM_API_KEY", "sk-real-secret-123456")
    agent = _agent(
        ["--stream"], upstream=upstream.url, model="m", api_key_env="SILO_TEST_UPSTREAM_API_KEY"
    )
    result = run_task("crm", "TASK-002", agent, project_dir=REPO, runs_dir=tmp_path)
    assert _bytes(result.run_dir) == _bytes(solved.run_dir)
    assert len(upstream.headers) == 5
    assert {h["authorization"] for h in upstream.headers} == {"Bearer sk-real-secret-123456"}
    trace = (result.run_dir / "trace.jsonl").read_text()
    assert "sk-real-secret-123456" not in trace
    steps = _events(result.run_dir, "model_step")
    assert [s["status"] for s in steps] == [200] * 5
    assert steps[0]["usage"] == {"promptTokens": 10, "completionTokens": 5, "totalTokens": 15}


@pytest.mark.slow
def test_the_call_over_max_tool_calls_reaches_the_model_as_a_tool_error(
    tmp_path: Path, solved: Any
) -> None:
    trace = str(solved.run_dir / "trace.jsonl")
    result = run_task(
        "crm", "TASK-002", _agent([], replay=trace), {"max_tool_calls": 1},
        project_dir=REPO, runs_dir=tmp_path,
    )  # fmt: skip
    assert result.result["terminationReason"] == "max_tool_calls"
    steps = _events(result.run_dir, "model_step")
    refused = steps[2]["requestBody"]["messages"][-1]
    assert refused["role"] == "tool" and "max_tool_calls" in refused["content"]


@pytest.mark.slow
def test_the_deadline_kills_a_cli_that_never_ends(tmp_path: Path, solved: Any) -> None:
    trace = str(solved.run_dir / "trace.jsonl")
    result = run_task(
        "crm", "TASK-002", _agent(["--hang"], replay=trace), {"timeout_ms": 4000},
        project_dir=REPO, runs_dir=tmp_path,
    )  # fmt: skip
    assert result.result["terminationReason"] == "timeout"
    run = json.loads((result.run_dir / "run.json").read_text())
    assert run["harness"]["exitStatus"] == -15  # its process group got SIGTERM


def test_a_failing_cli_is_an_agent_error_with_its_status_and_stderr(
    tmp_path: Path, solved: Any
) -> None:
    trace = str(solved.run_dir / "trace.jsonl")
    result = run_task(
        "crm", "TASK-002", _agent(["--fail", "3"], replay=trace), project_dir=REPO,
        runs_dir=tmp_path,
    )  # fmt: skip
    assert result.result["terminationReason"] == "agent_error"
    assert result.result["error"] == (
        "mini exited with status 3: harness_cli: failing on purpose with status 3"
    )
    run = json.loads((result.run_dir / "run.json").read_text())
    assert run["harness"]["exitStatus"] == 3


@pytest.mark.slow
def test_an_upstream_that_cannot_be_reached_is_a_model_error(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    result = run_task(
        "crm", "TASK-002", _agent([], upstream=dead, model="m"), project_dir=REPO,
        runs_dir=tmp_path,
    )  # fmt: skip
    assert result.result["terminationReason"] == "model_error"
    assert result.result["error"].startswith(f"the model upstream {dead} failed: ")


def test_a_cli_that_is_not_installed_is_one_line_saying_how_to_install_it() -> None:
    with pytest.raises(AgentLoadError) as raised:
        HarnessAgent(
            ["silo-no-such-cli", "-p"], harness="nosuch", upstream="http://127.0.0.1:9",
            model="m", install="pip install nosuch",
        )  # fmt: skip
    assert str(raised.value) == (
        "agent=nosuch: silo-no-such-cli is not installed (not on PATH); install it: "
        "pip install nosuch"
    )


@pytest.mark.slow
def test_silo_run_without_the_cli_exits_2_with_the_install_line(tmp_path: Path) -> None:
    import subprocess

    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    done = subprocess.run(
        [str(Path(sys.executable).with_name("silo-run")), "env=crm", "task=TASK-002",
         "agent=claude_code", "agent.model=m", f"runs_dir={tmp_path}"],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "agent=claude_code: claude is not installed (not on PATH); install it: npm install" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_without_silo_finish_the_answer_is_the_clis_last_text(tmp_path: Path, solved: Any) -> None:
    trace = str(solved.run_dir / "trace.jsonl")
    result = run_task(
        "crm", "TASK-002", _agent(["--no-finish"], replay=trace), project_dir=REPO,
        runs_dir=tmp_path,
    )  # fmt: skip
    said = "the replayed tool silo_finish is not among the tools this harness offered"
    assert result.result["terminationReason"] == "completed"
    assert result.result["agentOutput"] == said
    assert (result.run_dir / "state-diff.json").read_bytes() == _bytes(solved.run_dir)[1]


@pytest.mark.slow
def test_ctrl_c_records_the_run_and_leaves_no_cli_running(tmp_path: Path, solved: Any) -> None:
    import signal
    import subprocess

    from tests.waiting import SAFETY_S, wait_until

    gather = tmp_path / "started"
    gather.mkdir()
    command = [sys.executable, str(CLI), "{{mcp_url}}", "{{proxy_url}}", "{{prompt}}",
               "--gather", str(gather), "1", "--hang"]  # fmt: skip
    listed = ",".join(f"'{part}'" for part in command)
    silo_run = subprocess.Popen(
        [str(Path(sys.executable).with_name("silo-run")), "env=crm", "task=TASK-002",
         "agent=harness", f"agent.command=[{listed}]",
         f"agent.replay={solved.run_dir / 'trace.jsonl'}", f"runs_dir={tmp_path / 'runs'}"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    wait_until(lambda: any(gather.iterdir()), "the CLI to start")
    (pid_file,) = gather.iterdir()
    silo_run.send_signal(signal.SIGINT)
    silo_run.communicate(timeout=SAFETY_S)
    assert silo_run.returncode != 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert json.loads((run_dir / "result.json").read_text())["terminationReason"] == "interrupted"
    assert not _running(int(pid_file.name))


def _running(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for its parent to reap it has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@pytest.mark.slow
def test_a_conversation_replayed_through_the_cli_leaves_the_solvers_bytes(tmp_path: Path) -> None:
    solver = run_task("crm", "TASK-007", "solver", project_dir=REPO, runs_dir=tmp_path / "s")
    trace = str(solver.run_dir / "trace.jsonl")
    result = run_task(
        "crm", "TASK-007", _agent([], replay=trace), project_dir=REPO, runs_dir=tmp_path / "h"
    )
    assert result.result["passed"] is True
    assert _bytes(result.run_dir) == _bytes(solver.run_dir)
    said = [e["text"] for e in _events(result.run_dir, "user_message") if e["role"] == "agent"]
    assert said and said == [
        e["text"] for e in _events(solver.run_dir, "user_message") if e["role"] == "agent"
    ]


def test_a_remote_upstream_without_its_key_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SILO_TEST_MISSING_KEY", raising=False)
    with pytest.raises(AgentError) as raised:
        HarnessAgent(
            [sys.executable], harness="mini", upstream="https://api.example.com", model="m",
            api_key_env="SILO_TEST_MISSING_KEY",
        )  # fmt: skip
    assert str(raised.value) == (
        "agent=mini: set SILO_TEST_MISSING_KEY (the key the proxy adds to its requests to "
        "https://api.example.com), or agent.api_key_env=null for an endpoint that takes none"
    )


def test_a_misspelt_placeholder_is_refused_before_any_rollout() -> None:
    with pytest.raises(AgentError) as raised:
        HarnessAgent([sys.executable, "{{mcp_uri}}"], harness="mini", replay=None,
                     upstream="http://127.0.0.1:9", model="m")  # fmt: skip
    assert str(raised.value).startswith("unknown placeholder {{mcp_uri}} in a harness template; ")


@pytest.mark.slow
def test_an_upstream_answering_503_is_a_model_error(tmp_path: Path) -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    class Down(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["content-length"]))
            self.send_response(503)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Down)
    Thread(target=server.serve_forever, kwargs=QUICK_STOP, daemon=True).start()
    down = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        result = run_task(
            "crm", "TASK-002", _agent([], upstream=down, model="m"), project_dir=REPO,
            runs_dir=tmp_path,
        )  # fmt: skip
    finally:
        server.shutdown()
    assert result.result["terminationReason"] == "model_error"
    assert result.result["error"] == f"the model upstream {down} answered HTTP 503"
