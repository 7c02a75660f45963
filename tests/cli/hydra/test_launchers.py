"""What Silo's sweeper sets for hydra-joblib-launcher: jobs per joblib batch for ``auto``.

Real Hydra and the real plugin: configs composed with Hydra's Compose API, sweeps run by
``silo-run`` in a subprocess and compared byte for byte with the basic launcher's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hydra import compose, initialize_config_module
from omegaconf import DictConfig, OmegaConf

from silo.cli.hydra.launchers import JOBLIB_BATCH_MAX, choose_joblib_batch_size, joblib_batch_size
from silo.cli.hydra.setup import prepare
from tests.cli.test_run_cli import silo_run
from tests.waiting import SAFETY_S

JOBLIB = ["hydra/launcher=joblib", "hydra.launcher.n_jobs=2"]


def _composed(project: Path, *overrides: str) -> DictConfig:
    prepare(project)
    with initialize_config_module(config_module="silo._main", version_base="1.3"):
        return compose("silo", ["task=TASK-001", *overrides], return_hydra_config=True)


@pytest.mark.parametrize(
    ("jobs", "workers", "size"),
    [(1, 2, 1), (6, 2, 1), (16, 2, 2), (40, 2, 5), (64, 2, 8), (1000, 2, 8), (1000, 64, 3)],
)
def test_batches_hold_a_quarter_of_a_workers_share_up_to_eight(
    jobs: int, workers: int, size: int
) -> None:
    assert joblib_batch_size(jobs, workers) == size
    assert JOBLIB_BATCH_MAX == 8


def test_auto_becomes_a_number_and_a_given_number_stays(toy_project: Path) -> None:
    auto = _composed(toy_project, *JOBLIB)
    assert auto.hydra.launcher.batch_size == "auto"  # the plugin's default
    choose_joblib_batch_size(auto, 1000)
    assert auto.hydra.launcher.batch_size == "8"
    given = _composed(toy_project, *JOBLIB, "hydra.launcher.batch_size=3")
    choose_joblib_batch_size(given, 1000)
    assert given.hydra.launcher.batch_size == "3"
    basic = _composed(toy_project)
    before = OmegaConf.to_yaml(basic.hydra.launcher)
    choose_joblib_batch_size(basic, 1000)
    assert OmegaConf.to_yaml(basic.hydra.launcher) == before


def _results_by_job(sweep: Path) -> dict[str, bytes]:
    """Job number (its subdir) → its result.json + state-diff.json bytes."""
    return {
        run.parent.parent.name: (run.parent / "result.json").read_bytes()
        + (run.parent / "state-diff.json").read_bytes()
        for run in sweep.glob("*/*/run.json")
    }


@pytest.mark.slow  # two whole sweeps, one under joblib
def test_batched_joblib_sweep_matches_the_basic_launcher_byte_for_byte(
    toy_project: Path, tmp_path: Path
) -> None:
    (toy_project / "conf").mkdir()  # no "conf is not available" warning in stderr
    sweep = ["-m", "env=toy", "task=TASK-001,TASK-003", "agent=solver,noop", "seed=range(0,8)"]
    sweep += ["fail_on_error=false", "hydra.sweep.subdir=${hydra.job.num}"]
    found = {}
    for name, extra in (("basic", []), ("joblib", JOBLIB)):
        proc = silo_run(
            toy_project, *sweep, *extra, f"runs_dir={tmp_path / name}", timeout=SAFETY_S
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        (found[name],) = list((tmp_path / name).iterdir())
    multirun = OmegaConf.load(found["joblib"] / "multirun.yaml")
    assert multirun.hydra.launcher.batch_size == "4"  # 32 jobs, 2 workers: batches of 4
    expected = _results_by_job(found["basic"])
    assert sorted(expected, key=int) == [str(n) for n in range(32)]
    assert _results_by_job(found["joblib"]) == expected
    summary = json.loads((found["joblib"] / "summary.json").read_text())
    assert summary["rollouts"] == 32
