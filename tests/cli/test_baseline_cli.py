"""silo-baseline end to end: the installed console script in a subprocess, cwd = a temp project."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_PROJECT, REPO, script
from tests.waiting import SAFETY_S

CONFIG = "baselines:\n  - {env: toy, agent: solver}\n  - {env: toy, agent: noop}\n"
TASKS = ("TASK-001", "TASK-002", "TASK-003")


def run(cmd: str, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SILO_PROJECT_DIR"}
    return subprocess.run(
        [script(cmd), *args], cwd=project, capture_output=True, text=True, timeout=SAFETY_S, env=env
    )


def baseline(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run("silo-baseline", project, *args)


def stamp(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(folder.rglob("*.json"))
    }


def _configure(toy: Path) -> Path:
    """The toy project ``toy`` with a baselines config listing toy x solver and toy x noop.

    TASK-002's verifier grades like TASK-001's here instead of raising: a raising verifier is
    an ERROR, never a golden (tests/cli/test_outcomes_cli.py).
    """
    env_py = toy / "environments" / "toy" / "env.py"
    env_py.write_text(env_py.read_text().replace('"Raises", _raises)', '"Raises", _bumped)'))
    (toy / "baselines").mkdir()
    (toy / "baselines" / "silo-baselines.yaml").write_text(CONFIG)
    return toy


@pytest.fixture
def project(toy_project: Path) -> Path:
    """A private copy of the configured toy project (see ``_configure``)."""
    return _configure(toy_project)


@pytest.fixture(scope="module")
def recorded_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The configured toy project after one ``silo-baseline record``, shared by the module."""
    toy = tmp_path_factory.mktemp("recorded") / "project"
    shutil.copytree(FIXTURE_PROJECT, toy, ignore=shutil.ignore_patterns(".silo", "__pycache__"))
    proc = baseline(_configure(toy), "record")
    assert proc.returncode == 0, proc.stderr
    return toy


@pytest.fixture
def recorded(recorded_once: Path, tmp_path: Path) -> Path:
    """A private copy of ``recorded_once``: one record per module, not one per test."""
    target = tmp_path / "project"
    shutil.copytree(recorded_once, target, ignore=shutil.ignore_patterns(".silo", "__pycache__"))
    return target


def test_record_creates_every_golden_of_the_config(project: Path) -> None:
    proc = baseline(project, "record")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.splitlines() == [
        *(f"created toy/{agent}/{task}" for agent in ("solver", "noop") for task in TASKS),
        "record: 6 created, 0 changed, 0 same",
    ]
    files = sorted(p.name for p in (project / "baselines" / "toy" / "noop").iterdir())
    kinds = ("result", "state-diff", "state-changes")  # state-changes: pinned by default
    assert files == sorted(f"{t}.{k}.json" for t in TASKS for k in kinds)


def test_second_record_rewrites_nothing(recorded: Path) -> None:
    before = stamp(recorded / "baselines")
    proc = baseline(recorded, "record")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "record: 0 created, 0 changed, 6 same"
    assert all(line.startswith("same    toy/") for line in proc.stdout.splitlines()[:-1])
    assert stamp(recorded / "baselines") == before


def test_check_clean_is_one_line_per_golden(recorded: Path) -> None:
    proc = baseline(recorded, "check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == [
        *(f"ok      toy/{agent}/{task}" for agent in ("solver", "noop") for task in TASKS),
        "check: 6 ok, 0 DRIFT, 0 MISSING, 0 STALE",
    ]
    assert proc.stderr == ""


def test_drift_is_explained_field_by_field(recorded: Path) -> None:
    solver = recorded / "environments" / "toy" / "solver.py"
    solver.write_text(solver.read_text().replace('{"id": "C-1"}', '{"id": "C-1", "by": 2}'))
    proc = baseline(recorded, "check", "agent=solver")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    at = lines.index("DRIFT   toy/solver/TASK-001 result.json")
    explanation = lines[at + 1 : lines.index("DRIFT   toy/solver/TASK-002 result.json")]
    assert "  root['reward']: 1.0 -> 0.67" in explanation
    assert "  root['checks'][0]['passed']: True -> False" in explanation
    assert "  root['failedRequired'][0]: added 'C-1 went up by 2'" in explanation
    assert "  root['agentOutput']: 'C-1 is now 3' -> 'C-1 is now 5'" in explanation
    # state-diff.json is the same; state-changes.json sees the value written
    assert "DRIFT   toy/solver/TASK-001 state-changes.json" in lines
    assert lines[-1] == "check: 0 ok, 3 DRIFT, 0 MISSING, 0 STALE"  # tasks, not files


def test_missing_golden_names_the_command_that_records_it(recorded: Path) -> None:
    for kind in ("result", "state-diff", "state-changes"):
        (recorded / "baselines" / "toy" / "noop" / f"TASK-002.{kind}.json").unlink()
    proc = baseline(recorded, "check")
    assert proc.returncode == 1
    hint = "silo-baseline record env=toy agent=noop task=TASK-002"
    assert f"MISSING toy/noop/TASK-002 (run: {hint})" in proc.stdout.splitlines()
    assert proc.stdout.splitlines()[-1] == "check: 5 ok, 0 DRIFT, 1 MISSING, 0 STALE"
    fix = baseline(recorded, *shlex.split(hint)[1:])
    assert fix.stdout.splitlines() == [
        "created toy/noop/TASK-002",
        "record: 1 created, 0 changed, 0 same",
    ]
    assert baseline(recorded, "check").returncode == 0


def test_golden_of_a_deleted_task_is_stale(recorded: Path) -> None:
    (recorded / "environments" / "toy" / "tasks" / "TASK-003.json").unlink()
    proc = baseline(recorded, "check", "agent=solver")
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-2:] == [
        "STALE   toy/solver/TASK-003 (task no longer exists; delete baselines/toy/solver/TASK-003.*)",
        "check: 2 ok, 0 DRIFT, 0 MISSING, 1 STALE",
    ]
    named = baseline(recorded, "check", "agent=solver", "task=TASK-003")
    assert named.returncode == 1 and named.stdout.startswith("STALE   toy/solver/TASK-003 (")
    narrow = baseline(recorded, "check", "agent=solver", "task=TASK-001")
    assert narrow.returncode == 0 and "STALE   " not in narrow.stdout


def test_recording_a_non_deterministic_agent_is_refused(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # the agent builds; then it is refused
    proc = baseline(project, "record", "env=toy", "agent=openai", "agent.model=gpt-4.1-mini")
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith('silo-baseline: agent "openai" is not deterministic')
    assert "agent=replay agent.trace=" in line
    assert not (project / "baselines" / "toy").exists()
    # listed in the config, it stops the whole command before any rollout
    (project / "baselines" / "silo-baselines.yaml").write_text(
        CONFIG + "  - {env: toy, agent: openai, overrides: [agent.model=x]}\n"
    )
    assert baseline(project, "record").returncode == 2
    assert not (project / "baselines" / "toy").exists()


def test_a_recorded_llm_run_can_be_pinned_through_replay(recorded: Path) -> None:
    run("silo-run", recorded, "env=toy", "task=TASK-001", "agent=solver")
    (trace,) = (recorded / ".silo" / "runs").glob("*/trace.jsonl")
    words = ["env=toy", "agent=replay", f"agent.trace={trace}", "task=TASK-001"]
    proc = baseline(recorded, "record", *words)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "created toy/replay/TASK-001"
    for kind in ("result", "state-diff"):
        replayed = recorded / "baselines" / "toy" / "replay" / f"TASK-001.{kind}.json"
        assert replayed.read_bytes() == (trace.parent / f"{kind}.json").read_bytes()
    assert baseline(recorded, "check", *words).returncode == 0


def test_tool_events_are_pinned_when_the_entry_asks(project: Path) -> None:
    (project / "baselines" / "silo-baselines.yaml").write_text(
        "baselines:\n  - {env: toy, agent: solver, tasks: [TASK-001], tool_events: true}\n"
    )
    assert baseline(project, "record").returncode == 0
    events = project / "baselines" / "toy" / "solver" / "TASK-001.tool-events.json"
    assert '"at"' not in events.read_text() and '"durationMs"' not in events.read_text()
    assert sorted(p.name for p in events.parent.iterdir()) == [
        "TASK-001.result.json",
        "TASK-001.state-changes.json",
        "TASK-001.state-diff.json",
        "TASK-001.tool-events.json",
    ]
    events.write_text(events.read_text().replace('"value": 3', '"value": 4'))
    proc = baseline(project, "check")
    assert proc.returncode == 1
    assert "DRIFT   toy/solver/TASK-001 tool-events.json" in proc.stdout
    assert "  root[3]['output']['value']: 4 -> 3" in proc.stdout


def test_overrides_select_entries_and_tasks(project: Path) -> None:
    proc = baseline(project, "record", "agent=noop", "task='TASK-00[12]'")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == [
        "created toy/noop/TASK-001",
        "created toy/noop/TASK-002",
    ]
    assert not (project / "baselines" / "toy" / "solver").exists()
    pair = baseline(project, "check", "env=toy", "agent=solver,noop", "task=TASK-001,TASK-002")
    assert pair.stdout.splitlines()[-1] == "check: 2 ok, 0 DRIFT, 2 MISSING, 0 STALE"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "agent=nope"], 'unknown agent "nope"; did you mean noop? available:'),
        (["check", "colour=red"], 'unknown key "colour"'),
        (["check", "env=toy", "task=TASK-404"], 'unknown task "TASK-404" in environment "toy"'),
        (["check", "env=toy", "budget.max_tool_calls=0"], "budget.max_tool_calls must be"),
    ],
)
def test_config_mistakes_are_one_line_and_exit_two(
    project: Path, args: list[str], message: str
) -> None:
    proc = baseline(project, *args)
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith("silo-baseline: ") and message in line


def test_an_unknown_env_in_the_config_is_one_line(project: Path) -> None:
    (project / "baselines" / "silo-baselines.yaml").write_text(
        "baselines:\n  - {env: nope, agent: solver}\n"
    )
    proc = baseline(project, "check")
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()  # was Hydra's multi-line "Could not find 'env/nope'"
    assert line.startswith('silo-baseline: unknown env "nope"; ') and "available: " in line


def test_usage(project: Path) -> None:
    assert baseline(project).returncode == 2
    assert "invalid choice: 'verify'" in baseline(project, "verify").stderr
    helped = baseline(project, "--help")
    assert helped.returncode == 0 and "{record,check}" in helped.stdout
    (project / "baselines" / "silo-baselines.yaml").unlink()
    proc = baseline(project, "check")
    assert proc.returncode == 2
    assert "no baselines/silo-baselines.yaml" in proc.stderr


CRM = REPO / "environments" / "crm"


@pytest.mark.skipif(not (CRM / "state.py").is_file(), reason="environments/crm is not written yet")
def test_a_shared_helper_change_passes_the_verifiers_but_not_the_baseline(tmp_path: Path) -> None:
    """The point of baselines: a tool and a verifier sharing a helper move together."""
    shutil.copytree(
        CRM, tmp_path / "environments" / "crm", ignore=shutil.ignore_patterns("__pycache__")
    )
    (tmp_path / "baselines").mkdir()
    (tmp_path / "baselines" / "silo-baselines.yaml").write_text(
        "baselines:\n  - {env: crm, agent: solver}\n  - {env: crm, agent: noop}\n"
    )
    assert baseline(tmp_path, "record").returncode == 0
    state = tmp_path / "environments" / "crm" / "state.py"
    assert "def weighted_amount(" in state.read_text()
    # the weighted-amount formula now multiplies by 0.9, for the tools and the verifiers alike
    state.write_text(
        state.read_text() + "\n\n_weighted_amount = weighted_amount\n\n\n"
        "def weighted_amount(state, opportunity):\n"
        "    return round(_weighted_amount(state, opportunity) * 0.9, 2)\n"
    )
    solved = run("silo-run", tmp_path, "env=crm", "task=all", "agent=solver", "progress=false")
    assert solved.returncode == 0, solved.stdout + solved.stderr  # every verifier still passes
    proc = baseline(tmp_path, "check")
    assert proc.returncode == 1, proc.stdout
    assert re.search(r"^DRIFT   crm/solver/TASK-\d+ result\.json$", proc.stdout, re.M)
    number = r"'?[^']*?(\d[\d.]*)'?"
    changes = re.findall(rf"^  (root\S+): {number} -> {number}$", proc.stdout, re.M)
    scaled = [c for c in changes if round(float(c[1]) * 0.9, 2) == round(float(c[2]), 2)]
    assert scaled, f"no field changed by the 0.9 factor:\n{proc.stdout}"
    assert "root['passed']" not in proc.stdout
