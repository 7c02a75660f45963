"""Artifacts: shapes, key order, streaming, determinism across processes, run ids."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from silo import run_task
from silo.artifacts.run_folder import RESULT_KEYS
from silo.artifacts.tool_store import offered_tools

REPO = Path(__file__).resolve().parents[2]


def test_result_json_key_order_and_no_ids_or_times(toy_project: Path) -> None:
    result = run_task("toy", "TASK-001", "solver", project_dir=toy_project)
    text = (result.run_dir / "result.json").read_text()
    assert tuple(json.loads(text)) == RESULT_KEYS
    assert text.endswith("}\n") and text.startswith('{\n  "passed"')
    for name in ("result.json", "state-diff.json"):
        body = (result.run_dir / name).read_text()
        assert result.run_id not in body and "2026-" not in body.replace("2026-01-01", "")


def test_run_json_fields(toy_project: Path) -> None:
    result = run_task("toy", "TASK-001", "solver", {"max_tool_calls": 7}, project_dir=toy_project)
    run = json.loads((result.run_dir / "run.json").read_text())
    assert run["runId"] == result.run_id == result.run_dir.name
    assert run["task"]["instruction"].startswith("Bump counter")
    assert run["verifierId"] == "VER-001" and run["verifierName"] == "C-1 bumped twice"
    assert run["config"]["maxToolCalls"] == 7 and run["config"]["agentPath"].endswith("solver.py")
    assert run["startedAt"].endswith("Z") and run["toolCallCount"] == 2
    assert run["terminationReason"] == "completed"


def test_trace_events_pair_calls_and_results(toy_project: Path) -> None:
    def agent(inp: Any) -> str:
        inp.call_tool("bump", {"id": "C-1"})
        inp.call_tool("nope", {})
        inp.emit("model_step", {"turn": 1, "usage": {"totalTokens": 5}})
        return "x"

    result = run_task("toy", "TASK-001", agent, project_dir=toy_project)
    events = [json.loads(x) for x in (result.run_dir / "trace.jsonl").read_text().splitlines()]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert [e["type"] for e in events] == [
        "run_start",
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "model_step",
        "agent_output",
        "run_end",
        "verifier_result",
    ]
    start = events[0]
    tools = offered_tools(result.run_dir, start) or []
    assert {t["name"] for t in tools} == {"read", "bump", "boom", "refuse"}
    assert start["environment"] == "toy" and start["task"]["id"] == "TASK-001"
    calls = {e["callId"]: e for e in events if e["type"] == "tool_call"}
    results = {e["callId"]: e for e in events if e["type"] == "tool_result"}
    assert calls.keys() == results.keys() == {1, 2}
    assert results[2]["isError"] is True and results[1]["durationMs"] >= 0
    assert events[-2]["toolCalls"] == 2 and events[-2]["toolErrors"] == 1
    assert all(e["at"].endswith("Z") for e in events)
    run = json.loads((result.run_dir / "run.json").read_text())
    assert run["usage"] == {"totalTokens": 5}


def test_trace_survives_a_killed_process(toy_project: Path) -> None:
    code = f"""
import os, silo
from pathlib import Path
def agent(inp):
    inp.call_tool("bump", {{"id": "C-1"}})
    inp.call_tool("read", {{"id": "C-1"}})
    os._exit(3)
silo.run_task("toy", "TASK-001", agent, project_dir=Path({str(toy_project)!r}))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 3
    (run_dir,) = (toy_project / ".silo" / "runs").iterdir()
    types = [json.loads(x)["type"] for x in (run_dir / "trace.jsonl").read_text().splitlines()]
    assert types == ["run_start", "tool_call", "tool_result", "tool_call", "tool_result"]


_SCRIPT = """
import sys, silo
from pathlib import Path
r = silo.run_task("toy", sys.argv[1], "solver", project_dir=Path(sys.argv[2]))
print(r.run_dir)
"""


def test_byte_identical_across_processes_and_hash_seeds(toy_project: Path) -> None:
    outputs = []
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run(
            [sys.executable, "-c", _SCRIPT, "TASK-001", str(toy_project)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        run_dir = Path(proc.stdout.strip())
        outputs.append(
            tuple((run_dir / n).read_bytes() for n in ("result.json", "state-diff.json"))
        )
    assert outputs[0] == outputs[1] == outputs[2]


def test_repeated_in_process_runs_are_identical(toy_project: Path) -> None:
    runs = [run_task("toy", "TASK-001", "solver", project_dir=toy_project) for _ in range(3)]
    texts = {
        ((r.run_dir / "result.json").read_bytes(), (r.run_dir / "state-diff.json").read_bytes())
        for r in runs
    }
    assert len(texts) == 1


_MANY = """
import sys
from pathlib import Path
from silo.artifacts.run_folder import allocate_run_dir
for _ in range(200):
    allocate_run_dir(Path(sys.argv[1]))
"""


def test_concurrent_run_ids_never_collide(tmp_path: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", _MANY, str(tmp_path)]) for _ in range(8)]
    assert all(p.wait() == 0 for p in procs)
    names = [p.name for p in tmp_path.iterdir()]
    assert len(names) == 1600 and len(set(names)) == 1600
    assert all(n.startswith("run_") and len(n) == len("run_20260101000000_abcdef") for n in names)
