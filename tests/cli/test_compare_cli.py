"""silo-compare end to end: the installed console script in a subprocess, as a user runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.batch.test_compare import break_bump, make_group, point
from tests.cli._console import one_line_error, run
from tests.cli.test_run_cli import silo_run


def _new_group(project: Path, known: set[str]) -> str:
    (name,) = {p.name for p in (project / ".silo" / "runs").iterdir()} - known
    return name


def test_candidate_sweep_against_reference_sweep(toy_project: Path) -> None:
    grid = ["-m", "env=toy", "task=TASK-001,TASK-003", "agent=solver,noop", "fail_on_error=false"]
    assert silo_run(toy_project, *grid).returncode == 0
    reference = _new_group(toy_project, set())
    break_bump(toy_project)
    assert silo_run(toy_project, *grid).returncode == 0
    candidate = _new_group(toy_project, {reference})

    proc = run("silo-compare", toy_project, reference, candidate)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0] == f"A: {reference} (group, 4 rollouts: 1 passed, 3 failed)"
    assert lines[1] == f"B: {candidate} (group, 4 rollouts: 0 passed, 4 failed)"
    header = next(line for line in lines if line.startswith("task"))
    assert header.split() == [
        *("task", "agent", "runsA", "runsB", "errA", "errB", "rateA", "rateB", "Δrate"),
        *("rewardA", "rewardB", "Δreward", "callsA", "callsB", "Δcalls", "status"),
    ]
    row = next(line for line in lines if line.startswith("TASK-001") and " solver " in line)
    assert row.split()[2:9] == ["1", "1", "0", "0", "1.00", "0.00", "-1.00"]
    assert row.endswith("REGRESSION")
    assert any(line.startswith("    checks: C-1 went up by 2 (pass -> fail)") for line in lines)
    state = next(line for line in lines if line.startswith("    state diff: "))
    assert "counters.changed: -C-1" in state and "log.added: -LOG-001 -LOG-002" in state
    assert any(line.startswith("pass^k solver (tasks A/B 2/2): k=1 0.50 -> 0.00") for line in lines)
    # TASK-003 fails on both sides, but the broken bump changed its world: CHANGED
    assert lines[-1] == "4 cells: 1 REGRESSION, 1 CHANGED, 2 same; pass rate dropped in 1 cell(s)"

    gated = run("silo-compare", toy_project, reference, candidate, "fail_on_regression=true")
    assert gated.returncode == 1 and gated.stdout == proc.stdout
    fixed = run("silo-compare", toy_project, candidate, reference, "fail_on_regression=true")
    assert fixed.returncode == 0 and fixed.stdout.splitlines()[-1].endswith("no pass rate dropped")


def test_json_output(toy_project: Path) -> None:
    make_group(toy_project, "ref", [point("TASK-001", "solver", "solver")], runs=2)
    make_group(toy_project, "cand", [point("TASK-001", "noop", "solver")], runs=2)
    proc = run("silo-compare", toy_project / "environments", "ref", "cand", "--json")
    assert proc.returncode == 0, proc.stderr  # names resolve from a subfolder of the project
    document = json.loads(proc.stdout)
    assert set(document) == {"a", "b", "counts", "regressed", "cells", "agents"}
    assert document["a"]["name"] == "ref" and document["a"]["rollouts"] == 2
    (cell,) = document["cells"]
    assert cell["status"] == "regression" and cell["detail"] is None  # two runs a side
    assert document["counts"]["regression"] == 1 and document["regressed"] == 1
    (agent,) = document["agents"]
    assert agent["passHatK"]["2"] == {"a": 1.0, "b": 0.0, "delta": -1.0}
    same = run("silo-compare", toy_project, "ref", "cand", "format=json")
    assert same.stdout == proc.stdout
    gated = run("silo-compare", toy_project, "ref", "cand", "--json", "fail_on_regression=yes")
    assert gated.returncode == 1 and json.loads(gated.stdout) == document


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], "give two folders to compare"),
        (["g"], "give two folders to compare"),
        (["g", "g", "g"], "give two folders to compare (got 3)"),
        (["g", "nope"], 'no folder "nope"'),
        (["g", "environments"], "environments holds no finished rollout"),
        (["g", "g", "format=xml"], 'format= must be text or json, not "xml"'),
        (["g", "g", "fail_on_regression=maybe"], "fail_on_regression= must be true or false"),
        (["g", "g", "--yaml"], 'unknown option "--yaml"'),
    ],
)
def test_user_mistakes_get_one_line(toy_project: Path, args: list[str], expected: str) -> None:
    make_group(toy_project, "g", [point("TASK-003", "noop", "noop")])
    proc = run("silo-compare", toy_project, *args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert expected in one_line_error(proc, "silo-compare")


def test_help_and_same_folder(toy_project: Path) -> None:
    assert "usage: silo-compare <A> <B>" in run("silo-compare", toy_project, "--help").stdout
    make_group(toy_project, "g", [point("TASK-003", "noop", "noop")])
    proc = run("silo-compare", toy_project, "g", "g", "fail_on_regression=true")
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == (
        "1 cells: 1 same; no pass rate dropped"
    )
