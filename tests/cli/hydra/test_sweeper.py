"""silo-run's default sweeper (``hydra/sweeper=silo``): the basic sweeper's sweeps, fewer compositions.

Real Hydra throughout: ``silo-run`` in a subprocess for what a user sees, and silo-run's
``run()`` in this process where a test counts Hydra's compositions or registers a structured
config with Hydra's ConfigStore.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize_config_module
from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra.core.config_store import ConfigStore
from hydra.core.plugins import Plugins
from hydra.plugins.sweeper import Sweeper
from omegaconf import OmegaConf

from silo.cli import run as run_cli
from silo.cli.hydra.setup import prepare
from silo.cli.hydra.sweeper import ShapeSweeper, split_arguments
from tests.cli.test_run_cli import silo_run

PLUGIN_TARGET = "hydra_plugins.silo_sweeper.silo_sweeper.SiloSweeper"
JOBLIB_TARGET = "hydra_plugins.hydra_joblib_launcher.joblib_launcher.JoblibLauncher"
JOBLIB = ["hydra/launcher=joblib", "hydra.launcher.n_jobs=2"]

# Six jobs launched in two batches (4, then 2), each in its numbered folder.
SIX_JOBS = [
    "-m",
    "env=toy",
    "task=TASK-001,TASK-002,TASK-003",
    "agent=solver,noop",
    "fail_on_error=false",
    "hydra.sweeper.max_batch_size=4",
    "hydra.sweep.subdir=${hydra.job.num}",
]

BASIC_TARGET = "hydra._internal.core_plugins.basic_sweeper.BasicSweeper"


def _sweep_dir(project: Path) -> Path:
    (sweep,) = [p for p in (project / ".silo" / "runs").iterdir() if p.is_dir()]
    return sweep


def _summary(project: Path) -> dict[str, Any]:
    return json.loads((_sweep_dir(project) / "summary.json").read_text())


def _in_process(
    project: Path, args: list[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, list[list[str]]]:
    """Run silo-run's main() here; its exit status and the overrides of every composed job."""
    monkeypatch.chdir(project)
    monkeypatch.delenv("SILO_PROJECT_DIR", raising=False)
    monkeypatch.delenv("HYDRA_FULL_ERROR", raising=False)
    monkeypatch.setattr(sys, "argv", ["silo-run", *args])
    composed: list[list[str]] = []
    original = ConfigLoaderImpl.load_sweep_config

    def counting(self: Any, master_config: Any, sweep_overrides: list[str]) -> Any:
        composed.append(list(sweep_overrides))
        return original(self, master_config, sweep_overrides)

    monkeypatch.setattr(ConfigLoaderImpl, "load_sweep_config", counting)
    return run_cli.run(), composed


def test_silo_sweeper_is_the_default_and_basic_stays_selectable(toy_project: Path) -> None:
    prepare(toy_project)  # the resolvers the primary config uses
    with initialize_config_module(config_module="silo._main", version_base="1.3"):
        cfg = compose("silo", ["task=TASK-001"], return_hydra_config=True)
        basic = compose("silo", ["task=TASK-001", "hydra/sweeper=basic"], return_hydra_config=True)
    assert cfg.hydra.sweeper._target_ == PLUGIN_TARGET
    assert cfg.hydra.sweeper.max_batch_size is None and cfg.hydra.sweeper.params is None
    assert basic.hydra.sweeper._target_ == BASIC_TARGET


def test_hydras_own_plugin_scan_finds_the_sweeper_once() -> None:
    # Hydra 1.3 instantiates a plugin only by a hydra_plugins.* name its scan registered.
    found = [
        f"{c.__module__}.{c.__qualname__}"
        for c in Plugins.instance().discover(Sweeper)
        if issubclass(c, ShapeSweeper)
    ]
    assert found == [PLUGIN_TARGET]
    assert Plugins.is_in_toplevel_plugins_module(PLUGIN_TARGET)


@pytest.mark.parametrize(
    "words",
    [
        ["task=A,B", "agent=solver,noop", "seed=1"],
        ["+rep=range(0,5)", "agent=solver"],
        ["a=1,2", "b=x", "a=3,4,5"],  # a key given twice keeps its place and its last values
        ["hydra/launcher=joblib", "~agent", "d={x:1}", "l=[1,2]", "c=choice(x,y)"],
        [],
    ],
)
@pytest.mark.parametrize("max_batch_size", [None, 1, 4])
def test_jobs_are_expanded_exactly_as_by_hydras_basic_sweeper(
    words: list[str], max_batch_size: int | None
) -> None:
    # Hydra's own expansion, the oracle, is not public API: silo restates it.
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser

    overrides = OverridesParser.create().parse_overrides(words)
    expected = BasicSweeper.split_arguments(overrides, max_batch_size)
    assert split_arguments(overrides, max_batch_size) == expected


def test_a_sweep_composes_once_per_shape_not_once_per_job(
    toy_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["-m", "env=toy", "task=TASK-001", "agent=solver,noop", "+rep=range(0,3)"]
    status, composed = _in_process(toy_project, [*args, "fail_on_error=false"], monkeypatch)
    assert status == 0
    # 6 jobs: each composed once by the launcher, plus one per agent before launching.
    assert len(composed) == 6 + 2
    summary = _summary(toy_project)
    assert summary["rollouts"] == 6 and summary["passed"] == 3


def test_the_basic_sweeper_composes_every_job_twice(
    toy_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["-m", "env=toy", "task=TASK-001", "+rep=range(0,3)", "hydra/sweeper=basic"]
    status, composed = _in_process(toy_project, args, monkeypatch)
    assert status == 0 and len(composed) == 2 * 3
    assert _summary(toy_project)["rollouts"] == 3


def _jobs_by_number(sweep: Path) -> dict[str, tuple[str, str]]:
    """Job number (its subdir) → (task, agent) of the rollout it wrote."""
    found = {}
    for run_json in sweep.glob("*/*/run.json"):
        run = json.loads(run_json.read_text())
        found[run_json.parent.parent.name] = (run["taskId"], run["agent"])
    return found


def test_same_jobs_numbers_batches_and_subdirs_as_the_basic_sweeper(
    toy_project: Path, tmp_path: Path
) -> None:
    grid = SIX_JOBS
    layouts = []
    for sweeper in ("silo", "basic"):
        runs_dir = tmp_path / sweeper
        proc = silo_run(toy_project, *grid, f"hydra/sweeper={sweeper}", f"runs_dir={runs_dir}")
        assert proc.returncode == 2, proc.stderr  # TASK-002's verifier raises: environment error
        (sweep,) = list(runs_dir.iterdir())
        assert (sweep / "multirun.yaml").is_file()
        layouts.append(_jobs_by_number(sweep))
    assert layouts[0] == layouts[1]
    assert layouts[0]["0"] == ("TASK-001", "solver") and layouts[0]["5"] == ("TASK-003", "noop")
    assert sorted(layouts[0]) == ["0", "1", "2", "3", "4", "5"]


@pytest.mark.parametrize("launcher", ["basic", "joblib"])
def test_a_job_that_raises_costs_one_line_and_the_summary_keeps_the_others(
    toy_project: Path, launcher: str
) -> None:
    parallel = ["hydra/launcher=joblib", "hydra.launcher.n_jobs=2"] if launcher == "joblib" else []
    # Without conf/, each joblib worker prints Hydra's "path=.../conf is not available" warning
    # (silo-run filters it in its own process only); that is not what this test is about.
    (toy_project / "conf").mkdir()
    # A typo in a value interpolation composes fine and fails when the job resolves its config.
    proc = silo_run(toy_project, "-m", "env=toy", "task=TASK-001", "seed=1,${oops},2", *parallel)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("silo-run: job #1 (seed=")
    assert "failed: Interpolation key 'oops' not found" in line
    summary = _summary(toy_project)
    assert summary["rollouts"] == 3 and summary["passed"] == 2 and summary["couldNotStart"] == 1
    (infra,) = summary["notGraded"]
    assert infra["error"] == line.removeprefix("silo-run: ")
    assert (infra["taskId"], infra["agent"]) == ("TASK-001", "solver")
    assert "3 rollouts: 2 passed, 0 failed, 1 could not start" in proc.stdout


def test_a_job_that_cannot_compose_stops_the_sweep_before_any_rollout(toy_project: Path) -> None:
    # Sweep values from a named sweep are not on the command line: only composing finds this.
    (toy_project / "conf" / "sweep").mkdir(parents=True)
    (toy_project / "conf" / "sweep" / "typo.yaml").write_text(
        "# @package _global_\nhydra:\n  sweeper:\n    params:\n      agent: solver,nope\n"
    )
    proc = silo_run(toy_project, "-m", "env=toy", "task=TASK-001", "+sweep=typo")
    assert proc.returncode == 2  # could not start (was Hydra's 1)
    assert "Traceback" not in proc.stderr
    (line,) = proc.stderr.splitlines()  # one line (was Hydra's several)
    assert line.startswith('silo-run: sweep job #1 (agent=nope): unknown agent "nope"; ')
    assert "available: " in line and "noop" in line
    assert not (toy_project / ".silo" / "runs").exists() or not any(
        (toy_project / ".silo" / "runs").iterdir()
    )  # nothing ran: no sweep folder


@dataclass
class _Typed:
    count: int = 0


def test_a_job_only_the_launcher_can_refuse_stops_the_sweep_and_keeps_the_summary(
    toy_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A typed node (structured config): a plain value that composes for one job, not another.
    ConfigStore.instance().store(group="typed", name="schema", node=_Typed)
    args = ["-m", "env=toy", "task=TASK-001", "+typed=schema", "++typed.count=1,abc,2"]
    status, _ = _in_process(toy_project, args, monkeypatch)
    assert status == 2
    summary = _summary(toy_project)
    assert summary["rollouts"] == 2 and summary["passed"] == 1 and summary["couldNotStart"] == 1
    (infra,) = summary["notGraded"]
    assert infra["error"].startswith("job #1 (++typed.count=abc) could not be composed: ")
    assert "could not be converted to Integer" in infra["error"]


def _launcher_config(project: Path, *args: str) -> tuple[dict[str, object], str]:
    """``hydra.launcher`` as silo-run composes it (``--cfg hydra``), and stderr."""
    proc = silo_run(
        project, "--cfg", "hydra", "--package", "hydra.launcher", "task=TASK-001", *args
    )
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.split("# @package hydra.launcher\n", 1)[-1]
    return OmegaConf.to_container(OmegaConf.create(text)), proc.stderr  # type: ignore[return-value]


def test_joblib_is_the_plugins_own_launcher(toy_project: Path) -> None:
    (toy_project / "conf").mkdir()  # no "conf is not available" warning in stderr
    launcher, err = _launcher_config(toy_project, *JOBLIB)
    assert err == ""
    assert launcher["_target_"] == JOBLIB_TARGET and launcher["n_jobs"] == 2


def _results_by_job(sweep: Path) -> dict[str, tuple[str, str, bytes]]:
    """Job number (its subdir) → task, agent and result.json + state-diff.json bytes."""
    found = {}
    for run_json in sweep.glob("*/*/run.json"):
        run = json.loads(run_json.read_text())
        files = (run_json.parent / "result.json").read_bytes()
        files += (run_json.parent / "state-diff.json").read_bytes()
        found[run_json.parent.parent.name] = (run["taskId"], run["agent"], files)
    return found


@pytest.mark.slow  # a multi-process launcher and the sweep twice
def test_joblib_gives_the_basic_launchers_job_numbers_folders_and_results(
    toy_project: Path, tmp_path: Path
) -> None:
    (toy_project / "conf").mkdir()
    found = []
    for name, extra in (("basic", []), ("joblib", JOBLIB)):
        runs_dir = tmp_path / name
        proc = silo_run(toy_project, *SIX_JOBS, *extra, f"runs_dir={runs_dir}")
        assert proc.returncode == 2, proc.stderr  # TASK-002's verifier raises: environment error
        assert proc.stderr == ""
        (sweep,) = list(runs_dir.iterdir())
        found.append(_results_by_job(sweep))
    assert sorted(found[1]) == ["0", "1", "2", "3", "4", "5"]
    assert found[1] == found[0]


@pytest.mark.slow  # a multi-process launcher (a failed joblib job stays fast)
def test_a_failed_rollout_in_a_joblib_worker_makes_the_sweep_exit_one(toy_project: Path) -> None:
    # The worker's status comes back in its JobReturn: nothing in this process saw it.
    (toy_project / "conf").mkdir()
    args = ["-m", "env=toy", "task=TASK-001", "agent=solver,noop", *JOBLIB]
    assert silo_run(toy_project, *args).returncode == 1
    assert silo_run(toy_project, *args, "fail_on_error=false").returncode == 0


# A multi-process launcher; the default suite keeps one failed job under joblib (one line,
# exit 2, the summary): test_a_job_that_raises_costs_one_line_and_the_summary_keeps_the_others.
@pytest.mark.slow
def test_a_failed_job_under_joblib_exits_two_with_one_line(toy_project: Path) -> None:
    (toy_project / "conf").mkdir()
    proc = silo_run(toy_project, "-m", "env=toy", "task=TASK-001", "seed=1,${oops},2,3,4", *JOBLIB)
    assert proc.returncode == 2
    (line,) = proc.stderr.splitlines()
    assert line.startswith("silo-run: job #1 (seed=") and "Interpolation key 'oops'" in line
    (sweep,) = list((toy_project / ".silo" / "runs").iterdir())
    (infra,) = [json.loads(x) for x in (sweep / "infra-errors.jsonl").read_text().splitlines()]
    assert infra["error"] == line.removeprefix("silo-run: ")
    assert json.loads((sweep / "summary.json").read_text())["graded"] == 4
