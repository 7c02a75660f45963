"""Group runs in one process: repeats, seeds, resume, infrastructure failures, pass^k."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from silo import SiloError
from silo.batch.summary import pass_hat_k, summarize
from silo.batch.sweep import Point, expand_tasks, run_points
from silo.rollout.run import Budget
from tests.waiting import SAFETY_S, finish, wait_until


def _even_seed_solver(inp: Any) -> str:
    """Passes TASK-001 on even seeds only: 2 passes out of seeds 0..3."""
    if inp.seed % 2 == 0:
        inp.call_tool("bump", {"id": "C-1"})
        inp.call_tool("bump", {"id": "C-1"})
    return f"seed {inp.seed}"


_even_seed_solver.__module__ = "tests.sweep"


def _point(agent: Any = "solver", task: str = "TASK-001", label: str = "solver") -> Point:
    return Point("toy", task, agent, label, Budget(), seed=0)


def test_pass_hat_k_matches_hand_computed_values(toy_project: Path) -> None:
    group = toy_project / ".silo" / "runs" / "g1"
    outcomes = run_points(
        [_point(_even_seed_solver, label="even")],
        4,
        project_dir=toy_project,
        group_dir=group,
        group_id="g1",
        progress=False,
    )
    assert [o.passed for o in outcomes] == [True, False, True, False]
    seeds = sorted(
        json.loads((d / "run.json").read_text())["config"]["seed"]
        for d in group.iterdir()
        if d.is_dir()
    )
    assert seeds == [0, 1, 2, 3]
    (row,) = summarize(group)["rows"]
    # c = 2 passes of n = 4: C(2,k)/C(4,k) = 2/4, 1/6, 0, 0
    assert row["passHatK"] == {"1": 0.5, "2": 0.1667, "3": 0.0, "4": 0.0}
    assert row["runs"] == 4 and row["passes"] == 2 and row["passRate"] == 0.5


def test_pass_hat_k_edges() -> None:
    assert pass_hat_k(3, 3, 3) == 1.0
    assert pass_hat_k(0, 5, 1) == 0.0
    assert pass_hat_k(4, 5, 2) == pytest.approx(6 / 10)
    assert pass_hat_k(1, 2, 3) == 0.0


def test_infrastructure_failures_are_counted_apart(toy_project: Path) -> None:
    group = toy_project / ".silo" / "runs" / "g2"
    points = [_point(), _point(agent={"path": "missing.py"}, label="missing")]
    outcomes = run_points(
        points, 2, project_dir=toy_project, group_dir=group, group_id="g2", progress=False
    )
    assert [o.infra_error is not None for o in outcomes] == [False, False, True, True]
    assert [o.run_dir is None for o in outcomes] == [False, False, True, True]
    assert [o.outcome for o in outcomes] == ["passed", "passed", "couldNotStart", "couldNotStart"]
    summary = summarize(group)
    assert (summary["rollouts"], summary["graded"], summary["failed"]) == (4, 2, 0)
    assert summary["couldNotStart"] == 2 and len(summary["notGraded"]) == 2
    assert [r["outcome"] for r in summary["notGraded"]] == ["couldNotStart"] * 2
    assert "missing.py does not exist" in summary["notGraded"][0]["error"]
    assert summary["notGraded"][0]["runDir"] is None


def test_each_rollouts_point_id_is_computed_once_and_recorded(
    toy_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import silo.batch.point as point_module
    import silo.batch.sweep as sweep_module

    computed: list[int] = []
    real = point_module.point_id

    def counting(point: Any, repeat: int) -> str:
        computed.append(repeat)
        return real(point, repeat)

    monkeypatch.setattr(point_module, "point_id", counting)
    monkeypatch.setattr(sweep_module, "point_id", counting)
    group = toy_project / ".silo" / "runs" / "ids"
    for limit in (1, 4):
        computed.clear()
        outcomes = run_points(
            [_point()], 3, project_dir=toy_project, group_dir=group / str(limit),
            group_id="ids", progress=False, max_concurrency=limit,
        )  # fmt: skip
        assert sorted(computed) == [0, 1, 2]  # the plan's; no rollout computes it again
        for outcome in outcomes:
            assert outcome.run_path is not None
            run = json.loads((Path(outcome.run_path) / "run.json").read_text())
            assert run["pointId"] == real(_point(), outcome.repeat)


def test_resume_skips_completed_points_and_reports_them(toy_project: Path) -> None:
    runs_root = toy_project / ".silo" / "runs"
    first = run_points(
        [_point()],
        2,
        project_dir=toy_project,
        group_dir=runs_root / "a",
        group_id="a",
        runs_root=runs_root,
        progress=False,
    )
    assert not any(o.resumed for o in first)
    second = run_points(
        [_point()],
        3,
        project_dir=toy_project,
        group_dir=runs_root / "b",
        group_id="b",
        runs_root=runs_root,
        resume=True,
        progress=False,
    )
    assert [o.resumed for o in second] == [True, True, False]
    # Resumed outcomes point at the earlier group's run folders; the new one at its own.
    assert [o.run_dir for o in second[:2]] == [o.run_dir for o in first]
    assert second[2].run_dir is not None and second[2].run_dir.parent == runs_root / "b"
    assert (second[2].run_dir / "result.json").is_file()
    assert len([d for d in (runs_root / "b").iterdir() if d.is_dir()]) == 1
    (row,) = summarize(runs_root / "b")["rows"]
    assert row["runs"] == 3 and row["resumed"] == 2


def test_expand_tasks() -> None:
    known = ["TASK-001", "TASK-002", "TASK-010"]
    assert expand_tasks("all", known) == known
    assert expand_tasks("TASK-00?", known) == ["TASK-001", "TASK-002"]
    assert expand_tasks("TASK-002", known) == ["TASK-002"]
    with pytest.raises(SiloError, match='no task matches "X\\*"'):
        expand_tasks("X*", known)


def test_progress_is_quiet_unless_asked(
    toy_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs_root = toy_project / ".silo" / "runs"
    run_points([_point()], 2, project_dir=toy_project, group_dir=runs_root / "q", group_id="q")
    assert capsys.readouterr().err == ""  # not a terminal
    run_points(
        [_point()],
        2,
        project_dir=toy_project,
        group_dir=runs_root / "p",
        group_id="p",
        progress=True,
    )
    err = capsys.readouterr().err
    assert "[1/2] TASK-001 solver #1 PASS" in err and err.endswith(
        "[2/2] TASK-001 solver #2 PASS\n"
    )


def test_table_prints_a_readable_set_of_k() -> None:
    from silo.batch.summary import format_table

    summary = {
        "rows": [],
        "agents": [
            {
                "agent": "a",
                "tasks": 1,
                "runs": 1000,
                "passes": 1000,
                "notGraded": 0,
                "passHatK": {str(k): 1.0 for k in range(1, 1001)},
            }
        ],
        "notGraded": [],
        "passed": 1000,
        "rollouts": 1000,
    }
    line = next(x for x in format_table(summary).splitlines() if x.startswith("pass^k"))
    assert line.endswith(
        "k=1:1.00 k=2:1.00 k=3:1.00 k=5:1.00 k=10:1.00 k=20:1.00 k=50:1.00 "
        "k=100:1.00 k=200:1.00 k=500:1.00 k=1000:1.00"
    )


# -- many rollouts in flight (max_concurrency) ------------------------------------------------

REPO = Path(__file__).resolve().parents[2]


def _documents(group: Path) -> dict[tuple[str, int], tuple[bytes, bytes]]:
    """Each rollout's result.json and state-diff.json bytes by (task, repeat)."""
    found = {}
    for run_json in group.glob("*/run.json"):
        run = json.loads(run_json.read_text())
        folder = run_json.parent
        found[(run["taskId"], run["repeat"])] = (
            (folder / "result.json").read_bytes(),
            (folder / "state-diff.json").read_bytes(),
        )
    return found


def test_scripted_rollouts_are_byte_identical_at_1_8_and_256_in_flight(tmp_path: Path) -> None:
    points = [
        Point("crm", task, "solver", "solver", Budget(), seed=0)
        for task in ("TASK-001", "TASK-002", "TASK-003", "TASK-004", "TASK-005", "TASK-006")
    ]
    seen = []
    for n in (1, 8, 256):
        group = tmp_path / f"n{n}"
        outcomes = run_points(
            points, 43, project_dir=REPO, group_dir=group, group_id=group.name,
            progress=False, max_concurrency=n,
        )  # fmt: skip
        assert [(o.point.task, o.repeat) for o in outcomes] == [
            (p.task, r) for p in points for r in range(43)
        ]  # (point, repeat) order whatever finished first
        assert all(o.passed for o in outcomes)
        seen.append(_documents(group))
    assert len(seen[0]) == 6 * 43
    assert seen[0] == seen[1] == seen[2]


def test_async_agents_that_await_overlap_instead_of_queueing(toy_project: Path) -> None:
    in_flight: list[int] = []

    async def waits_for_all_eight(inp: Any) -> str:
        # Returns only once all 8 have started: queued one at a time, the first would wait
        # until its budget ran out and end as a timeout.
        in_flight.append(inp.seed)
        while len(in_flight) < 8:
            await asyncio.sleep(0.01)
        return "met"

    outcomes = run_points(
        [Point("toy", "TASK-001", waits_for_all_eight, "sleepy", Budget(timeout_ms=60_000))], 8,
        project_dir=toy_project, group_dir=toy_project / "g", group_id="g", progress=False,
        max_concurrency=8,
    )  # fmt: skip
    assert len(outcomes) == 8
    runs = [json.loads(p.read_text()) for p in (toy_project / "g").glob("*/run.json")]
    assert [r["terminationReason"] for r in runs] == ["completed"] * 8


def _hangs_on_seed_zero(kind: str, released: threading.Event) -> Any:
    """An agent that misbehaves (``kind``) on seed 0 and is well behaved on every other seed.

    A spinning one spins until ``released`` (set when the test ends), never for the session.
    """

    def _spin() -> None:
        while not released.is_set():
            pass

    async def _async_spin() -> None:
        while not released.is_set():
            pass

    def agent(inp: Any) -> Any:
        if inp.seed != 0:
            time.sleep(0.3)
            inp.call_tool("bump", {"id": "C-1"})
            return "fine"
        if kind == "spin":
            _spin()
        if kind == "sleep":
            time.sleep(3600)
        return _async_spin()  # async code that never awaits

    agent.__name__ = agent.__qualname__ = f"hangs_{kind}"
    return agent


# One kind of hang stays in the default suite; the other two run with -m slow.
@pytest.mark.parametrize(
    "kind",
    [
        pytest.param("spin", marks=pytest.mark.slow),
        "sleep",
        pytest.param("async-spin", marks=pytest.mark.slow),
    ],
)
def test_one_hanging_agent_among_64_in_flight_stalls_nobody(
    toy_project: Path, kind: str, released: threading.Event
) -> None:
    group = toy_project / "g"
    agent = _hangs_on_seed_zero(kind, released)
    outcomes = run_points(
        [Point("toy", "TASK-001", agent, kind, Budget(timeout_ms=1500))],
        64, project_dir=toy_project, group_dir=group, group_id="g", progress=False,
        max_concurrency=64,
    )  # fmt: skip
    assert len(outcomes) == 64
    runs = {}
    for run_json in group.glob("*/run.json"):
        run = json.loads(run_json.read_text())
        runs[run["repeat"]] = run
    assert len(runs) == 64
    assert runs[0]["terminationReason"] == "timeout"
    assert runs[0]["durationMs"] >= 1500  # abandoned at its budget
    others = [runs[r] for r in range(1, 64)]
    assert all(r["terminationReason"] == "completed" for r in others)
    # 0.3 s of work each, started with it: every one done before the hung one was abandoned
    assert max(r["durationMs"] for r in others) < runs[0]["durationMs"]


@pytest.mark.parametrize("bad", [0, -3, "many", 2.5, True])
def test_max_concurrency_must_be_a_positive_whole_number(toy_project: Path, bad: Any) -> None:
    with pytest.raises(SiloError) as error:
        run_points(
            [_point()], 1, project_dir=toy_project, group_dir=toy_project / "g",
            group_id="g", progress=False, max_concurrency=bad,
        )  # fmt: skip
    assert "max_concurrency must be a whole number >= 1" in error.value.message


def test_infra_errors_are_recorded_in_point_order_when_concurrent(toy_project: Path) -> None:
    points = [_point(f"missing_{i}.py", label=f"m{i}") for i in range(6)]
    group = toy_project / "g"
    outcomes = run_points(
        points, 2, project_dir=toy_project, group_dir=group, group_id="g", progress=False,
        max_concurrency=4,
    )  # fmt: skip
    assert all(o.infra_error for o in outcomes)
    records = [json.loads(x) for x in (group / "infra-errors.jsonl").read_text().splitlines()]
    assert [(r["agent"], r["repeat"]) for r in records] == [
        (f"m{i}", r) for i in range(6) for r in range(2)
    ]


_SLOW_AGENT = """
import os, time

def agent(inp):
    inp.call_tool("bump", {"id": "C-1"})
    if os.environ.get("STARTED"):
        open(os.environ["STARTED"], "a").close()  # the test interrupts once one is in flight
    while os.environ.get("SLOW") and not inp.signal.is_set():
        time.sleep(0.01)
    return "stopped"
"""

_INTERRUPTED_SWEEP = """
import sys
from pathlib import Path
from silo.batch.sweep import Point, run_points
from silo.rollout.run import Budget

project = Path(sys.argv[1])
agent = str(project / "slow_agent.py")
print("ready", flush=True)
run_points([Point("toy", "TASK-001", agent, "slow", Budget(timeout_ms=60_000))], 20,
           project_dir=project, group_dir=project / "g", group_id="g", progress=False,
           max_concurrency=4, resume=sys.argv[2] == "resume")
"""


def test_ctrl_c_leaves_every_started_rollout_complete_and_resume_finishes(
    toy_project: Path,
) -> None:
    import os
    import signal
    import subprocess
    import sys

    script = toy_project / "sweep.py"
    script.write_text(_INTERRUPTED_SWEEP)
    (toy_project / "slow_agent.py").write_text(_SLOW_AGENT)
    started = toy_project / "started"
    proc = subprocess.Popen(
        [sys.executable, str(script), str(toy_project), "first"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "SLOW": "1", "STARTED": str(started)},
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    wait_until(lambda: started.exists() or proc.poll() is not None, "a rollout in flight")
    proc.send_signal(signal.SIGINT)
    _, err = finish(proc, "the interrupted sweep")
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    folders = [p for p in (toy_project / "g").iterdir() if p.is_dir()]
    assert 1 <= len(folders) <= 8
    for folder in folders:
        result = json.loads((folder / "result.json").read_text())
        assert result["terminationReason"] == "interrupted"
        assert (folder / "run.json").is_file() and (folder / "state-diff.json").is_file()
    done = subprocess.run(
        [sys.executable, str(script), str(toy_project), "resume"],
        capture_output=True, text=True, timeout=SAFETY_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(list((toy_project / "g").glob("*/result.json"))) == 20
    resumed = (toy_project / "g" / "resumed.jsonl").read_text().splitlines()
    assert len(resumed) == len(folders)  # only the rest ran again
