"""What Silo's sweeper sets, for the launchers it knows, before it starts one.

Contract: both functions read (and :func:`choose_joblib_batch_size` writes) only the public
options of a launcher plugin, in the sweep's ``hydra.launcher`` node; the plugins run as
they are.

* :func:`local_pool_size`: hydra-submitit-launcher's ``LocalLauncher`` (``slurm_local``)
  starts every job it is handed at once, so the sweeper hands it batches of this machine's
  core count.
* :func:`choose_joblib_batch_size`: hydra-joblib-launcher's ``batch_size: auto`` (its
  default) becomes :func:`joblib_batch_size` jobs per joblib batch. Each joblib batch pickles
  the sweep's master config, Hydra's context and Hydra's singleton state and restores that
  state in the worker, which scans every Hydra plugin again: a fixed cost per batch, not per
  job. joblib's adaptive batching, which times its first batches while the workers are still
  importing, would stay at one job a batch for Silo's short jobs. An explicit
  ``hydra.launcher.batch_size=N`` is left as given (figures: docs/performance.md).
"""

from __future__ import annotations

from omegaconf import DictConfig, OmegaConf, read_write

__all__ = [
    "JOBLIB_BATCH_MAX",
    "JOBLIB_LAUNCHER",
    "choose_joblib_batch_size",
    "joblib_batch_size",
    "local_pool_size",
]

# Launchers that start every job of a batch at once on this machine, with no limit of their own.
_UNBOUNDED_LOCAL = ("hydra_plugins.hydra_submitit_launcher.submitit_launcher.LocalLauncher",)

JOBLIB_LAUNCHER = "hydra_plugins.hydra_joblib_launcher.joblib_launcher.JoblibLauncher"
# Jobs per joblib batch at most: past this the per-batch cost above is spread thin enough that
# more saved nothing measurable (benchmarks/bench_sweeps.py, docs/performance.md).
JOBLIB_BATCH_MAX = 8


def local_pool_size(config: DictConfig) -> int | None:
    """Jobs per batch for a launcher in :data:`_UNBOUNDED_LOCAL`: this machine's cores."""
    if OmegaConf.select(config, "hydra.launcher._target_") not in _UNBOUNDED_LOCAL:
        return None
    from silo.cli.hydra.setup import usable_cores

    return usable_cores()


def joblib_batch_size(jobs: int, workers: int) -> int:
    """Jobs per joblib batch for ``jobs`` jobs on ``workers`` workers.

    About four batches per worker at least, so that the workers end within a job or two of
    each other (joblib also shrinks the last batches of a sweep), and at most
    :data:`JOBLIB_BATCH_MAX`.
    """
    return max(1, min(JOBLIB_BATCH_MAX, jobs // (4 * max(1, workers))))


def choose_joblib_batch_size(config: DictConfig, jobs: int) -> None:
    """Replace hydra-joblib-launcher's ``batch_size: auto`` in ``config`` for a sweep of ``jobs``.

    Any other launcher, or a batch size given as a number, is left alone. The workers are
    joblib's count for ``n_jobs`` (``-1``: one per CPU).
    """
    launcher = OmegaConf.select(config, "hydra.launcher")
    if not isinstance(launcher, DictConfig) or launcher.get("_target_") != JOBLIB_LAUNCHER:
        return
    if str(launcher.get("batch_size", "auto")) != "auto":
        return
    from joblib import effective_n_jobs  # installed with the plugin

    workers = effective_n_jobs(launcher.get("n_jobs", -1))
    with read_write(launcher):
        launcher.batch_size = str(joblib_batch_size(jobs, workers))  # the plugin's field is a str
