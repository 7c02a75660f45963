"""agent=claude_code and agent=codex with the real CLIs from npm, and 16 harnesses in flight.

Each CLI solves CRM TASK-002 through ``silo-run`` (as a user runs it) against Silo's scripted
replay upstream playing the solver's run: ``result.json``, ``state-diff.json`` and
``state-changes.json`` are the solver's bytes, and the CLI's model steps are in the trace and
in ``silo-view``'s report. The CLIs come from npm at the versions .ci/run installs into
.ci/node (docs/integrations.md says how to move them); a test skips, saying so, when its CLI
is not installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

# The harness agents need the [mcp] extra (their MCP door); the floors run goes without it.
pytest.importorskip("mcp", reason="the harness agents need the [mcp] extra")

from silo import run_task
from silo.integrations.harness.replay import ReplayScript
from tests.integrations._mcp_process import REPO
from tests.integrations.harness_upstream import ScriptedUpstream

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
NODE_BIN = REPO / ".ci" / "node" / "node_modules" / ".bin"
PATH = os.pathsep.join([str(BIN), str(NODE_BIN), os.environ.get("PATH", "")])
CLI = Path(__file__).with_name("harness_cli.py")
_RUN_S = 600  # safety net for one silo-run of a CLI (it takes seconds)


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> Any:
    runs = tmp_path_factory.mktemp("solver")
    return run_task("crm", "TASK-002", "solver", project_dir=REPO, runs_dir=runs)


def _artifacts(run_dir: Path) -> list[bytes]:
    names = ("result.json", "state-diff.json", "state-changes.json")
    return [(run_dir / name).read_bytes() for name in names]


@pytest.mark.parametrize(
    ("agent", "cli", "api", "version"),
    [
        ("claude_code", "claude", "anthropic.messages", "2.1.197"),
        ("codex", "codex", "openai.responses", "0.171.0"),
    ],
)
def test_the_real_cli_replaying_the_solver_leaves_the_solvers_bytes(
    tmp_path: Path, solved: Any, agent: str, cli: str, api: str, version: str
) -> None:
    if shutil.which(cli, path=PATH) is None:
        pytest.skip(f"{cli} is not installed (.ci/run installs it into .ci/node from npm)")
    trace = solved.run_dir / "trace.jsonl"
    done = subprocess.run(
        [str(BIN / "silo-run"), "env=crm", "task=TASK-002", f"agent={agent}",
         "agent.upstream=null", f"agent.replay={trace}", f"runs_dir={tmp_path}"],
        capture_output=True, text=True, cwd=REPO, env={**os.environ, "PATH": PATH},
        timeout=_RUN_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert _artifacts(run_dir) == _artifacts(solved.run_dir)
    run = json.loads((run_dir / "run.json").read_text())
    assert run["agentIdentity"]["harness"] == agent
    assert run["agentIdentity"]["version"] == version
    assert run["harness"]["exitStatus"] == 0
    lines = (run_dir / "trace.jsonl").read_text().splitlines()
    steps = [e for e in map(json.loads, lines) if e["type"] == "model_step"]
    assert len(steps) == 5 and {s["api"] for s in steps} == {api}
    assert all(s["request"]["stream"] for s in steps)
    assert steps[-1]["response"]["text"] == solved.agent_output
    # silo-view shows the CLI's model steps beside the tool calls.
    report = tmp_path / "report.html"
    viewed = subprocess.run(
        [str(BIN / "silo-view"), str(run_dir), f"out={report}"],
        capture_output=True, text=True, cwd=REPO, timeout=_RUN_S,
    )  # fmt: skip
    assert viewed.returncode == 0, viewed.stderr
    html = report.read_text()
    assert "No model steps" not in html and "silo_finish" in html


@pytest.mark.parametrize(
    ("agent", "cli", "key_env", "header", "sent"),
    [
        ("claude_code", "claude", "ANTHROPIC_API_KEY", "x-api-key", "sk-ant-test-123456"),
        ("codex", "codex", "OPENAI_API_KEY", "authorization", "Bearer sk-oai-test-123456"),
    ],
)
def test_the_real_cli_through_the_proxy_to_an_upstream_gets_the_key_only_there(
    tmp_path: Path, solved: Any, agent: str, cli: str, key_env: str, header: str, sent: str
) -> None:
    if shutil.which(cli, path=PATH) is None:
        pytest.skip(f"{cli} is not installed (.ci/run installs it into .ci/node from npm)")
    key = sent.removeprefix("Bearer ")
    script = ReplayScript.from_trace(solved.run_dir / "trace.jsonl")
    with ScriptedUpstream(script) as upstream:
        done = subprocess.run(
            [str(BIN / "silo-run"), "env=crm", "task=TASK-002", f"agent={agent}",
             f"agent.upstream={upstream.url}", "agent.model=scripted", f"runs_dir={tmp_path}"],
            capture_output=True, text=True, cwd=REPO, timeout=_RUN_S,
            env={**os.environ, "PATH": PATH, key_env: key},
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert _artifacts(run_dir) == _artifacts(solved.run_dir)
    model_requests = [h for h in upstream.headers if header in h]
    assert len(model_requests) == 5
    assert {h[header] for h in model_requests} == {sent}
    assert key not in (run_dir / "trace.jsonl").read_text()
    assert key not in (run_dir / "harness-stdout.txt").read_text()


def test_sixteen_harness_rollouts_in_flight_each_leave_the_solvers_bytes(
    tmp_path: Path, solved: Any
) -> None:
    gather = tmp_path / "gather"
    gather.mkdir()
    trace = str(solved.run_dir / "trace.jsonl")
    agent = {
        "_target_": "silo.integrations.harness.agent.HarnessAgent",
        "harness": "mini",
        # Each CLI waits until all sixteen have started: they are in flight at once.
        "command": [sys.executable, str(CLI), "{{mcp_url}}", "{{proxy_url}}", "{{prompt}}",
                    "--stream", "--gather", str(gather), "16"],
        "replay": trace,
    }  # fmt: skip
    results: list[Any] = []

    def one(i: int) -> None:
        results.append(
            run_task(
                "crm",
                "TASK-002",
                agent,
                {"timeout_ms": _RUN_S * 1000},
                project_dir=REPO,
                runs_dir=tmp_path / f"r{i}",
            )  # fmt: skip
        )

    threads = [threading.Thread(target=one, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(list(gather.iterdir())) == 16
    assert [r.result["passed"] for r in results] == [True] * 16
    expected = _artifacts(solved.run_dir)
    assert all(_artifacts(r.run_dir) == expected for r in results)
