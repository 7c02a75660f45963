"""``workers=P``: one sweep's rollouts spread over P processes, recorded as by one process.

Through ``run_points`` and through ``silo-run`` in a subprocess, as a user runs it: the same
``result.json`` and ``state-diff.json`` bytes as one process at one rollout in flight, outcomes
in (point, repeat) order, early stop on a dead endpoint with exit 2, and Ctrl-C (pressed as a
terminal does, to the whole process group) leaving complete records that ``resume=true``
finishes.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from silo.batch.sweep import UNREACHABLE_STOP, Point, run_points
from silo.errors import ConfigError
from silo.rollout.run import Budget
from tests.cli._console import one_line_error, run
from tests.conftest import script
from tests.oracle import oracle_bytes
from tests.waiting import finish, wait_until

REPO = Path(__file__).resolve().parents[2]
CRM_TASKS = ("TASK-001", "TASK-002", "TASK-003", "TASK-004")


def test_two_workers_write_the_bytes_of_one_process_at_one_in_flight(tmp_path: Path) -> None:
    points = [Point("crm", task, "solver", "solver", Budget()) for task in CRM_TASKS]
    seen = []
    for workers, n in ((1, 1), (2, 1), (2, 8)):
        group = tmp_path / f"w{workers}n{n}"
        outcomes = run_points(
            points, 6, project_dir=REPO, group_dir=group, group_id=group.name,
            progress=False, max_concurrency=n, workers=workers,
        )  # fmt: skip
        assert [(o.point.task, o.repeat) for o in outcomes] == [
            (p.task, r) for p in points for r in range(6)
        ]  # (point, repeat) order whatever process ran it and whenever it ended
        assert all(o.passed for o in outcomes)
        assert all(o.run_dir is not None and o.run_dir.parent == group for o in outcomes)
        seen.append(oracle_bytes(group, "taskId", "repeat"))
    assert len(seen[0]) == len(CRM_TASKS) * 6
    assert seen[0] == seen[1] == seen[2]


def test_an_agent_a_worker_cannot_load_is_one_line_before_any_rollout(tmp_path: Path) -> None:
    point = Point("crm", "TASK-001", lambda inp: "done", "lambda", Budget())
    with pytest.raises(ConfigError, match="workers=P needs agents a worker process can load"):
        run_points(
            [point], 2, project_dir=REPO, group_dir=tmp_path / "g", group_id="g",
            progress=False, workers=2,
        )  # fmt: skip
    assert not list((tmp_path / "g").iterdir())


@pytest.mark.parametrize("value", ["0", "two"])
def test_a_bad_workers_value_is_one_line_and_exit_2(value: str) -> None:
    proc = run("silo-run", REPO, "env=crm", "task=TASK-002", f"workers={value}")
    assert proc.returncode == 2
    assert "workers must be a whole number >= 1" in one_line_error(proc, "silo-run")


def _group(runs_dir: Path) -> Path:
    (group,) = runs_dir.glob("group_*")
    return group


@pytest.mark.slow  # two whole sweeps through silo-run (run_points checks the bytes fast)
def test_silo_run_with_two_workers_matches_one_process(toy_project: Path) -> None:
    outputs = []
    for words in (["workers=1", "max_concurrency=1"], ["workers=2", "max_concurrency=3"]):
        runs_dir = toy_project / words[0].replace("=", "")
        proc = run(
            "silo-run", toy_project, "env=toy", "task=all", "agent=solver", "runs=5",
            "fail_on_error=false", f"runs_dir={runs_dir}", *words,
        )  # fmt: skip
        assert proc.returncode == 2, proc.stderr  # toy TASK-002's verifier raises: not graded
        group = _group(runs_dir)
        summary = json.loads((group / "summary.json").read_text())
        table = proc.stdout.split("summary:")[0]
        outputs.append(
            (oracle_bytes(group, "taskId", "repeat"), summary["rows"], summary["notGraded"], table)
        )
    assert len(outputs[0][0]) == 3 * 5
    assert outputs[0][0] == outputs[1][0]  # the bytes
    assert outputs[0][1] == outputs[1][1]  # the summary's rows: counts, pass rates, pass^k

    def without_folders(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in r.items() if k != "runDir"} for r in rows]

    assert without_folders(outputs[0][2]) == without_folders(outputs[1][2])
    assert outputs[0][3] == outputs[1][3]  # the table printed


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.slow  # the endpoint's first refusals are retried for about 2 s
def test_a_dead_endpoint_stops_a_two_worker_sweep_early_with_exit_2(toy_project: Path) -> None:
    runs = 60
    proc = run(
        "silo-run", toy_project, "env=toy", "task=TASK-001", "agent=openai", "agent.model=m",
        f"agent.base_url=http://127.0.0.1:{_free_port()}/v1", f"runs={runs}", "workers=2",
        "max_concurrency=2",
    )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    stopped = [line for line in proc.stderr.splitlines() if "stopped early" in line]
    assert len(stopped) == 1 and "resume=true" in stopped[0], proc.stderr
    assert f"refused {UNREACHABLE_STOP} rollouts in a row" in stopped[0]
    assert "Traceback" not in proc.stderr
    summary = json.loads((_group(toy_project / ".silo" / "runs") / "summary.json").read_text())
    assert summary["rollouts"] == runs and summary["modelErrors"] == runs
    began = [r for r in summary["notGraded"] if r["runDir"] is not None]
    # The ones in flight when the fifth refusal came in finish; no further one starts.
    assert UNREACHABLE_STOP <= len(began) <= UNREACHABLE_STOP + 2 * 2
    assert all("cannot connect" in r["error"] for r in began)
    assert [r["repeat"] for r in summary["notGraded"]] == list(range(runs))  # plan order


_SLOW_AGENT = """
import os, time

def agent(inp):
    inp.call_tool("bump", {"id": "C-1"})
    open(os.environ["STARTED"] + str(os.getpid()), "a").close()  # one marker per process
    while os.environ.get("SLOW") and not inp.signal.is_set():
        time.sleep(0.01)
    return "stopped"
"""


@pytest.mark.slow  # a sweep interrupted, then resumed, through silo-run
def test_ctrl_c_with_two_workers_leaves_complete_records_and_resume_finishes(
    toy_project: Path,
) -> None:
    (toy_project / "slow_agent.py").write_text(_SLOW_AGENT)
    markers = toy_project / "markers"
    markers.mkdir()
    words = [
        "env=toy", "task=TASK-001", "agent=file", "agent.path=slow_agent.py", "runs=20",
        "workers=2", "max_concurrency=3", "budget.timeout_ms=120000", "fail_on_error=false",
        f"runs_dir={toy_project / 'runs'}", "hydra.run.dir=${runs_dir}",
    ]  # fmt: skip
    env = os.environ | {"SLOW": "1", "STARTED": str(markers / "started-")}
    proc = subprocess.Popen(
        [script("silo-run"), *words], cwd=toy_project, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    # Both workers have a rollout in flight: then Ctrl-C, to the group as a terminal sends it.
    wait_until(lambda: len(list(markers.iterdir())) >= 2 or proc.poll() is not None, "2 workers")
    os.killpg(proc.pid, signal.SIGINT)
    _, err = finish(proc, "the interrupted sweep")
    assert proc.returncode != 0, err
    group = _group(toy_project / "runs")
    folders = [p for p in group.iterdir() if p.is_dir()]
    # At most 3 in flight in each of the 2 workers, and one more if it was being sent to a
    # worker as Ctrl-C came (it starts interrupted and ends at once, its record complete).
    assert 2 <= len(folders) <= 7
    for folder in folders:
        result = json.loads((folder / "result.json").read_text())
        assert result["terminationReason"] == "interrupted"
        assert (folder / "run.json").is_file() and (folder / "state-diff.json").is_file()
    assert err.count("Traceback") <= 1  # the launching process's KeyboardInterrupt, no worker's
    done = run(
        "silo-run", toy_project, *[w for w in words if w != "runs=20"], "runs=20",
        "resume=true", extra_env={"STARTED": str(markers / "resumed-")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"resume: {len(folders)} of 20 rollouts skipped" in done.stdout


def test_a_worker_that_dies_is_one_worker_lost_line_and_exit_2(toy_project: Path) -> None:
    (toy_project / "slow_agent.py").write_text(_SLOW_AGENT)
    markers = toy_project / "markers"
    markers.mkdir()
    proc = subprocess.Popen(
        [script("silo-run"), "env=toy", "task=TASK-001", "agent=file", "agent.path=slow_agent.py",
         "runs=8", "workers=2", "max_concurrency=2", "budget.timeout_ms=120000"],
        cwd=toy_project, env=os.environ | {"SLOW": "1", "STARTED": str(markers / "started-")},
        text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    wait_until(lambda: len(list(markers.iterdir())) >= 2 or proc.poll() is not None, "2 workers")
    pids = {int(marker.name.removeprefix("started-")) for marker in markers.iterdir()}
    assert proc.pid in pids  # the launching process runs a share of the rollouts itself
    (victim,) = pids - {proc.pid}  # the worker it started
    os.kill(victim, signal.SIGKILL)
    out, err = finish(proc, "the sweep that lost a worker")
    assert proc.returncode == 2, out + err
    (line,) = [x for x in err.splitlines() if "worker process ended" in x]
    assert line.startswith("silo-run: a worker process ended (exit status -9) with ")
    assert "resume=true" in line and "Traceback" not in err


_HANGS_ON_SEED_ZERO = """
import time

def agent(inp):
    inp.call_tool("bump", {"id": "C-1"})
    if inp.seed == 0:
        while True:  # never returns: the budget must end it, in whichever worker it runs
            time.sleep(0.05)
    inp.call_tool("bump", {"id": "C-1"})
    return "bumped twice"
"""


def test_a_budget_ends_a_hung_agent_in_a_worker_and_the_others_pass(toy_project: Path) -> None:
    (toy_project / "hangs.py").write_text(_HANGS_ON_SEED_ZERO)
    point = Point("toy", "TASK-001", str(toy_project / "hangs.py"), "hangs", Budget(timeout_ms=500))
    outcomes = run_points(
        [point], 6, project_dir=toy_project, group_dir=toy_project / "g", group_id="g",
        progress=False, max_concurrency=3, workers=2,
    )  # fmt: skip
    reasons = []
    for outcome in outcomes:
        assert outcome.run_dir is not None
        reasons.append(json.loads((outcome.run_dir / "result.json").read_text()))
    assert [r["terminationReason"] for r in reasons] == ["timeout"] + ["completed"] * 5
    assert [o.passed for o in outcomes] == [False] + [True] * 5


def test_a_single_rollout_with_workers_runs_in_this_process(tmp_path: Path) -> None:
    ran_in: list[str] = []

    def agent(inp: Any) -> str:  # a local function: a worker process could not load it
        ran_in.append(inp.task_id)  # and this list is this process's
        return "done"

    point = Point("crm", "TASK-001", agent, "local", Budget())
    (outcome,) = run_points(
        [point], 1, project_dir=REPO, group_dir=tmp_path / "g", group_id="g",
        progress=False, workers=4,
    )  # fmt: skip
    assert outcome.run_dir is not None and ran_in == ["TASK-001"]
