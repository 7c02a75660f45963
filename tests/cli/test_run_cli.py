"""silo-run end to end: the installed console script in a subprocess, as a user runs it."""

from __future__ import annotations

import json
import subprocess
from importlib.util import find_spec
from pathlib import Path

import pytest

from tests.conftest import script
from tests.waiting import SAFETY_S


def silo_run(
    project: Path, *args: str, timeout: float = SAFETY_S
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [script("silo-run"), *args], cwd=project, capture_output=True, text=True, timeout=timeout
    )


def _runs(project: Path) -> list[Path]:
    return sorted((project / ".silo" / "runs").iterdir())


def test_single_run_passes_and_reports(toy_project: Path) -> None:
    proc = silo_run(toy_project, "env=toy", "task=TASK-001", "agent=solver")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "TASK-001  Toy task 1"
    assert lines[1].startswith("PASS  reward 1.00  tool calls 2 (0 errors)  checks 3/3")
    (run_dir,) = _runs(toy_project)
    assert lines[-1] == f"run folder: .silo/runs/{run_dir.name}"
    assert {p.name for p in run_dir.iterdir()} == {
        "trace.jsonl",
        "result.json",
        "state-diff.json",
        "state-changes.json",
        "run.json",
    }
    assert not (toy_project / "outputs").exists() and not (toy_project / ".hydra").exists()
    assert proc.stderr == ""


def test_failing_run_exits_one(toy_project: Path) -> None:
    proc = silo_run(toy_project, "env=toy", "task=TASK-001", "agent=noop")
    assert proc.returncode == 1
    assert "FAIL" in proc.stdout and "x C-1 went up by 2" in proc.stdout


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["env=nope", "task=TASK-001"], 'unknown env "nope"; available:'),
        (
            ["env=toy", "task=TASK-404"],
            'unknown task "TASK-404" in environment "toy"; known: TASK-001, TASK-002, TASK-003',
        ),
        (
            ["env=toy", "task=TASK-001", "budget.max_tool_calls=-1"],
            "budget.max_tool_calls must be a positive whole number, got -1",
        ),
        (
            ["env=toy", "task=TASK-001", "budget.timeout_ms=abc"],
            "budget.timeout_ms must be a positive whole number, got 'abc'",
        ),
        (
            ["env=toy", "task=TASK-001", "agent=file", "agent.path=missing.py"],
            "agent file missing.py does not exist",
        ),
        (["env=toy", "task=TASK-001", "agent=nobody"], 'unknown agent "nobody"'),
        (
            ["env=toy", "task=TASK-001", "budget.max_tool_call=3"],
            'unknown key "budget.max_tool_call"; did you mean max_tool_calls?',
        ),
        (
            ["env=toy"],
            "missing task; add task=<id>, task=all or a glob (known: TASK-001, TASK-002, TASK-003)",
        ),
    ],
)
def test_user_mistakes_get_one_line(toy_project: Path, args: list[str], expected: str) -> None:
    proc = silo_run(toy_project, *args)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert expected in proc.stderr
    assert not (toy_project / ".silo" / "runs").exists() or not list(
        (toy_project / ".silo" / "runs").glob("run_*")
    )


@pytest.mark.skipif(
    find_spec("hydra_plugins.hydra_ray_launcher") is not None, reason="the Ray launcher is here"
)
def test_a_launcher_whose_plugin_is_missing_names_the_extra(toy_project: Path) -> None:
    proc = silo_run(toy_project, "-m", "env=toy", "task=TASK-001", "hydra/launcher=ray_local")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr == (
        "silo-run: hydra/launcher=ray_local needs its Hydra plugin; install it with "
        "pip install 'silo-worlds[ray]' (or pip install -e '.[ray]' in a checkout)\n"
    )


def test_multirun_grid_one_folder_each_and_nonzero_exit(toy_project: Path) -> None:
    proc = silo_run(toy_project, "-m", "env=toy", "task=TASK-001,TASK-003", "agent=solver,noop")
    assert proc.returncode == 1, proc.stderr
    (sweep,) = _runs(toy_project)
    assert sweep.name.startswith("sweep_")
    run_dirs = [p for p in sweep.iterdir() if p.is_dir()]
    assert len(run_dirs) == 4
    summary = json.loads((sweep / "summary.json").read_text())
    assert summary["rollouts"] == 4 and summary["passed"] == 1
    assert len({json.loads((d / "run.json").read_text())["groupId"] for d in run_dirs}) == 1
    assert "4 rollouts: 1 passed, 3 failed" in proc.stdout


def test_repeats_report_pass_hat_k_and_fail_on_error_off(toy_project: Path) -> None:
    proc = silo_run(toy_project, "env=toy", "task=TASK-00?", "runs=3", "fail_on_error=false")
    assert proc.returncode == 2, proc.stderr  # TASK-002's verifier raises: the environment's fault
    (group,) = _runs(toy_project)
    summary = json.loads((group / "summary.json").read_text())
    rows = {r["task"]: r for r in summary["rows"]}
    assert rows["TASK-001"]["passHatK"] == {"1": 1.0, "2": 1.0, "3": 1.0}
    assert rows["TASK-003"]["passes"] == 0 and len(rows) == 3
    # TASK-002: a row of 3 rollouts, none graded, counted apart from the agent's results
    assert (rows["TASK-002"]["rollouts"], rows["TASK-002"]["runs"]) == (3, 0)
    assert rows["TASK-002"]["environmentErrors"] == 3 and summary["environmentErrors"] == 3
    assert [r["outcome"] for r in summary["notGraded"]] == ["environmentError"] * 3
    assert summary["agents"][0]["passHatK"] == {"1": 0.5, "2": 0.5, "3": 0.5}


def test_hanging_agent_file_times_out_and_the_command_returns(toy_project: Path) -> None:
    (toy_project / "stuck.py").write_text("import time\n\ndef agent(inp):\n    time.sleep(3600)\n")
    # The safety net (SAFETY_S) is far below the agent's hour: returning at all is the point.
    proc = silo_run(
        toy_project,
        "env=toy",
        "task=TASK-001",
        "agent=file",
        "agent.path=stuck.py",
        "budget.timeout_ms=300",
    )
    assert proc.returncode == 1
    assert "ended early: timeout" in proc.stdout
    (run_dir,) = _runs(toy_project)
    assert (run_dir / "result.json").is_file()


def test_project_conf_overrides_and_extends_packaged_options(toy_project: Path) -> None:
    conf = toy_project / "conf" / "agent"
    conf.mkdir(parents=True)
    (toy_project / "mine.py").write_text("def agent(inp):\n    return 'mine'\n")
    (conf / "mine.yaml").write_text("path: mine.py\n")
    (conf / "noop.yaml").write_text("path: mine.py\n")  # the project's noop wins
    for choice in ("mine", "noop"):
        proc = silo_run(toy_project, "env=toy", "task=TASK-001", f"agent={choice}")
        assert proc.returncode == 1, proc.stderr
    outputs = [
        json.loads((d / "result.json").read_text())["agentOutput"] for d in _runs(toy_project)
    ]
    assert outputs == ["mine", "mine"]


def test_help_explains_usage_and_where_options_come_from(toy_project: Path) -> None:
    proc = silo_run(toy_project, "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("silo-run: run agents against tasks of a Silo environment.")
    assert 'eval "$(silo-run -sc install=bash)"' in proc.stdout


def test_run_returns_each_invocations_own_status(
    toy_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # In one process: a failing run, then a passing one, then a Hydra refusal. Nothing of an
    # earlier invocation leaks into the next one's status.
    from silo.cli import run as run_cli

    monkeypatch.chdir(toy_project)
    monkeypatch.delenv("SILO_PROJECT_DIR", raising=False)
    monkeypatch.delenv("HYDRA_FULL_ERROR", raising=False)
    statuses = []
    for args in (["agent=noop"], ["agent=solver"], ["hydra.nope=1"]):
        monkeypatch.setattr("sys.argv", ["silo-run", "env=toy", "task=TASK-001", *args])
        statuses.append(run_cli.run())
    assert statuses == [1, 0, 2]
    err = capsys.readouterr().err
    assert 'silo-run: unknown key "hydra.nope"' in err and "HYDRA_FULL_ERROR" not in err


@pytest.fixture
def prepared(toy_project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The toy project as the cwd, with silo-run's resolvers and env options registered."""
    from silo.cli.hydra.setup import prepare

    monkeypatch.chdir(toy_project)
    monkeypatch.delenv("SILO_PROJECT_DIR", raising=False)
    prepare()
    return toy_project


@pytest.mark.parametrize(
    "args",
    [
        ["env=toy", "task=TASK-001"],
        ["env=toy", "task=TASK-001", "agent=noop", "budget.max_tool_calls=3", "seed=4"],
        ["env=toy", "task=TASK-001", "+extra=1", "agent=file", "agent.path=a.py"],
    ],
)
def test_a_single_run_is_composed_once_into_the_config_hydra_main_gives(
    prepared: Path, args: list[str]
) -> None:
    from omegaconf import OmegaConf

    from silo.cli.run import compose_single_run

    composed = compose_single_run(args)
    assert composed is not None
    cfg, agent_choice = composed
    hydras = silo_run(prepared, *args, "--cfg", "job")  # the job config hydra.main composes
    assert hydras.returncode == 0, hydras.stderr
    assert OmegaConf.to_yaml(cfg) == hydras.stdout
    assert agent_choice == next((a.split("=")[1] for a in args if a.startswith("agent=")), "solver")


def test_a_sweep_without_m_is_refused_in_one_line(prepared: Path) -> None:
    from silo.cli.run import compose_single_run
    from silo.errors import SiloError

    with pytest.raises(SiloError, match="Ambiguous value for argument 'task=TASK-001,TASK-002'"):
        compose_single_run(["env=toy", "task=TASK-001,TASK-002"])


@pytest.mark.parametrize(
    "args",
    [
        ["env=toy", "task=TASK-001", "--cfg", "job"],
        ["env=toy", "task=TASK-001", "hydra.job.name=x"],
        ["env=toy", "task=TASK-001", "hydra.mode=MULTIRUN"],
    ],
)
def test_anything_but_a_plain_single_run_goes_through_hydra_main(
    prepared: Path, args: list[str]
) -> None:
    from silo.cli.run import compose_single_run

    assert compose_single_run(args) is None
