"""The launcher configs Silo ships work as shipped (issue 18, real clusters).

``ray_cluster`` joins a running cluster (Ray refuses an object store size then, which Hydra's
Ray launcher sets unless told); ``ray_local`` never joins one (``address: local``);
``slurm_local`` runs as many jobs at a time as the machine has cores and leaves no empty
``.submitit/%j`` folder. The sweep through a real Ray head is tests/integrations/test_ray_cluster.py.
"""

from __future__ import annotations

import os
from importlib.util import find_spec
from pathlib import Path

import pytest
from hydra import compose, initialize_config_module

from silo.cli.hydra.launchers import local_pool_size
from silo.cli.hydra.setup import prepare
from tests.cli._console import run
from tests.waiting import SAFETY_S


def _hydra(project: Path, launcher: str) -> object:
    prepare(project)
    with initialize_config_module(config_module="silo._main", version_base="1.3"):
        cfg = compose("silo", [f"hydra/launcher={launcher}"], return_hydra_config=True)
    return cfg


needs_ray = pytest.mark.skipif(
    find_spec("hydra_plugins.hydra_ray_launcher") is None, reason="needs the ray extra"
)
needs_submitit = pytest.mark.skipif(
    find_spec("hydra_plugins.hydra_submitit_launcher") is None, reason="needs the slurm extra"
)


@needs_ray
def test_ray_configs_join_a_cluster_or_never_do(toy_project: Path) -> None:
    cluster = _hydra(toy_project, "ray_cluster").hydra.launcher.ray.init  # type: ignore[attr-defined]
    assert "object_store_memory" in cluster and cluster.object_store_memory is None
    local = _hydra(toy_project, "ray_local").hydra.launcher.ray.init  # type: ignore[attr-defined]
    assert local.address == "local" and "num_cpus" not in local


@needs_submitit
def test_slurm_local_runs_a_core_count_of_jobs_at_a_time(toy_project: Path) -> None:
    cfg = _hydra(toy_project, "slurm_local")
    assert local_pool_size(cfg) == len(os.sched_getaffinity(0))  # type: ignore[arg-type]
    assert local_pool_size(_hydra(toy_project, "basic")) is None  # type: ignore[arg-type]


@needs_submitit
def test_slurm_local_leaves_no_empty_job_id_folder(toy_project: Path) -> None:
    proc = run(
        "silo-run", toy_project, "-m", "env=toy", "task=TASK-001", "seed=1,2,3",
        "hydra/launcher=slurm_local", timeout=SAFETY_S,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (sweep,) = (toy_project / ".silo" / "runs").iterdir()
    assert not list(sweep.rglob("*%j*"))
    assert len(list((sweep / ".submitit").glob("*_log.out"))) == 3
    assert "3 rollouts: 3 passed, 0 failed" in proc.stdout
