"""silo-run's joblib launcher (``hydra/launcher=joblib``): Hydra's joblib launcher, cheaper per job.

Real Hydra and real joblib (loky) workers: ``silo-run -m ... hydra/launcher=joblib
hydra.launcher.n_jobs=2`` in a subprocess, compared with the basic launcher.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hydra.core.config_store import ConfigStore
from hydra.core.plugins import Plugins
from hydra.plugins.launcher import Launcher
from omegaconf import OmegaConf

from silo.cli.hydra.launcher import (
    AUTO_BATCH_MAX,
    PLUGIN_TARGET,
    SiloJoblibLauncher,
    auto_batch_size,
)
from silo.cli.hydra.sweeper import register
from tests.cli.hydra.test_sweeper import SIX_JOBS
from tests.cli.test_run_cli import silo_run

HYDRA_TARGET = "hydra_plugins.hydra_joblib_launcher.joblib_launcher.JoblibLauncher"
JOBLIB = ["hydra/launcher=joblib", "hydra.launcher.n_jobs=2"]
OPTIONS = {
    "n_jobs",
    "backend",
    "prefer",
    "require",
    "verbose",
    "timeout",
    "pre_dispatch",
    "batch_size",
    "temp_folder",
    "max_nbytes",
    "mmap_mode",
}


def _launcher_config(project: Path, *args: str) -> tuple[dict[str, object], str]:
    """``hydra.launcher`` as silo-run composes it (``--cfg hydra``), and stderr."""
    proc = silo_run(
        project, "--cfg", "hydra", "--package", "hydra.launcher", "task=TASK-001", *args
    )
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.split("# @package hydra.launcher\n", 1)[-1]
    return OmegaConf.to_container(OmegaConf.create(text)), proc.stderr  # type: ignore[return-value]


def test_joblib_is_silos_launcher_with_hydras_options_and_hydras_stays_available(
    toy_project: Path,
) -> None:
    (toy_project / "conf").mkdir()  # no "conf is not available" warning in stderr
    ours, err = _launcher_config(toy_project, *JOBLIB, "hydra.launcher.batch_size=3")
    assert err == ""  # no "validated against ConfigStore schema" deprecation warning
    assert ours["_target_"] == PLUGIN_TARGET
    assert set(ours) - {"_target_"} == OPTIONS
    assert (ours["n_jobs"], ours["batch_size"], ours["prefer"]) == (2, "3", "processes")
    hydras, _ = _launcher_config(toy_project, "hydra/launcher=hydra_joblib")
    assert hydras == {**ours, "_target_": HYDRA_TARGET, "n_jobs": -1, "batch_size": "auto"}
    # Still typed by Hydra's structured config: a bad value is refused when composing.
    bad = silo_run(
        toy_project, "--cfg", "hydra", "task=TASK-001", *JOBLIB[:1], "hydra.launcher.n_jobs=x"
    )
    assert bad.returncode != 0 and "n_jobs" in bad.stderr


def test_registration_moves_hydras_config_aside_and_is_idempotent() -> None:
    register()
    register()
    plugins = Plugins.instance()
    assert Plugins.is_in_toplevel_plugins_module(PLUGIN_TARGET)
    assert plugins.class_name_to_class[PLUGIN_TARGET] is SiloJoblibLauncher
    assert plugins.discover(Launcher).count(SiloJoblibLauncher) == 1
    launchers = ConfigStore.instance().repo["hydra"]["launcher"]
    assert "joblib.yaml" not in launchers  # else Hydra schema-matches conf/.../joblib.yaml
    assert launchers["hydra_joblib.yaml"].node._target_ == HYDRA_TARGET


def _jobs(sweep: Path) -> dict[str, tuple[str, str, bytes]]:
    """Job number (its subdir) → task, agent and result.json + state-diff.json bytes."""
    found = {}
    for run_json in sweep.glob("*/*/run.json"):
        run = json.loads(run_json.read_text())
        files = (run_json.parent / "result.json").read_bytes()
        files += (run_json.parent / "state-diff.json").read_bytes()
        found[run_json.parent.parent.name] = (run["taskId"], run["agent"], files)
    return found


@pytest.mark.parametrize("batch_size", ["auto", "2"])
def test_same_job_numbers_folders_and_results_as_the_basic_launcher(
    toy_project: Path, tmp_path: Path, batch_size: str
) -> None:
    grid = SIX_JOBS  # two launches: job numbers continue from 4
    (toy_project / "conf").mkdir()
    found = []
    for name, extra in (
        ("basic", []),
        ("joblib", [*JOBLIB, f"hydra.launcher.batch_size={batch_size}"]),
    ):
        runs_dir = tmp_path / name
        proc = silo_run(toy_project, *grid, *extra, f"runs_dir={runs_dir}")
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        (sweep,) = list(runs_dir.iterdir())
        found.append(_jobs(sweep))
    assert sorted(found[1]) == ["0", "1", "2", "3", "4", "5"]
    assert found[1] == found[0]


def test_a_failed_job_under_joblib_exits_two_with_one_line(toy_project: Path) -> None:
    (toy_project / "conf").mkdir()
    proc = silo_run(toy_project, "-m", "env=toy", "task=TASK-001", "seed=1,${oops},2,3,4", *JOBLIB)
    assert proc.returncode == 2
    (line,) = proc.stderr.splitlines()
    assert line.startswith("silo-run: job #1 (seed=") and "Interpolation key 'oops'" in line
    (sweep,) = list((toy_project / ".silo" / "runs").iterdir())
    (infra,) = [json.loads(x) for x in (sweep / "infra-errors.jsonl").read_text().splitlines()]
    assert infra["error"] == line.removeprefix("silo-run: ")
    assert json.loads((sweep / "summary.json").read_text())["rollouts"] == 4


def test_auto_batch_size_keeps_small_sweeps_balanced_and_caps_large_ones() -> None:
    assert auto_batch_size(4, 2) == 1
    assert auto_batch_size(24, 2) == 3
    assert auto_batch_size(1000, 2) == AUTO_BATCH_MAX
    assert auto_batch_size(0, 2) == 1
