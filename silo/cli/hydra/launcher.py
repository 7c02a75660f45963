"""``hydra/launcher=joblib`` under ``silo-run``: Hydra's joblib launcher, without its per-job tax.

Contract: :class:`SiloJoblibLauncher` launches a batch of sweep jobs exactly like
hydra-joblib-launcher 1.2's ``JoblibLauncher`` (same options: ``n_jobs``, ``backend``,
``prefer``, ``require``, ``verbose``, ``timeout``, ``pre_dispatch``, ``batch_size``,
``temp_folder``, ``max_nbytes``, ``mmap_mode``; the backend is loky whatever ``backend`` says, as
there; job numbers, ``hydra.job.id``, job folders, per-job callbacks and the composed job config
are the same), with three differences, each worth a few milliseconds of a job that takes tens:

* A worker restores the launching process's Hydra singletons for each job, as Hydra's does, but
  keeps its own plugin registry once it has one: Hydra's ``Singleton.set_state`` drops the
  registry and scans every plugin module again (about 5 ms) for every job.
* A job returns a slim :class:`~hydra.core.utils.JobReturn`: status, return value (or the
  exception), overrides, working dir and task name, but ``cfg`` and ``hydra_cfg`` are ``None``.
  The full config of every job was pickled back to the launching process, where nothing
  reads it: sweepers read the status and return value, and the callbacks that see a job's
  config (``on_job_start``/``on_job_end``) run in the worker, as before.
* ``batch_size: auto`` (the default) means ``min(8, jobs // (4 * workers))`` jobs per joblib
  batch, at least 1, instead of joblib's adaptive batching, which stays at one or two
  Hydra jobs per batch (each batch pickles the master config and Hydra's state). An integer
  ``batch_size`` is passed to joblib unchanged.

Hydra only instantiates plugins found under ``hydra_plugins`` (see :mod:`silo.cli.hydra.sweeper`):
:func:`silo.cli.hydra.sweeper.register` adds this class under :data:`PLUGIN_TARGET`, the
``_target_`` of ``conf/hydra/launcher/joblib.yaml``, which shadows the plugin's own ``joblib``
and extends it (``hydra/launcher=hydra_joblib``, which stays available). Workers never
instantiate a launcher, so they need no registration.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, configure_log, setup_globals
from hydra.plugins.launcher import Launcher
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig

__all__ = ["AUTO_BATCH_MAX", "PLUGIN_TARGET", "SiloJoblibLauncher", "auto_batch_size", "register"]

# Hydra refuses to instantiate a plugin whose class name is outside hydra_plugins.* (1.3).
PLUGIN_TARGET = "hydra_plugins.silo_launcher.SiloJoblibLauncher"
# Jobs per joblib batch with batch_size=auto: enough to pay the pickled master config once per
# 8 jobs, few enough that two workers still finish within a job or two of each other.
AUTO_BATCH_MAX = 8

log = logging.getLogger(__name__)


# Not a subclass of JoblibLauncher: Hydra's plugin scan re-executes the plugin's modules, so the
# class subclassed here would not be the one Hydra lists (see silo.cli.hydra.sweeper).
class SiloJoblibLauncher(Launcher):
    """Hydra's joblib launcher with a cheaper worker and batching (module docstring)."""

    def __init__(self, **kwargs: Any) -> None:
        self.config: DictConfig | None = None
        self.task_function: TaskFunction | None = None
        self.hydra_context: HydraContext | None = None
        self.joblib = kwargs

    def setup(
        self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig
    ) -> None:
        self.config = config
        self.task_function = task_function
        self.hydra_context = hydra_context

    def launch(
        self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int
    ) -> Sequence[JobReturn]:
        # The plugin (silo[parallel]) is imported only when launching; its helpers are reused.
        from hydra_plugins.hydra_joblib_launcher._core import process_joblib_cfg
        from joblib import Parallel, delayed, effective_n_jobs  # type: ignore[import-untyped]

        config, hydra_context, task_function = self.config, self.hydra_context, self.task_function
        assert config is not None and hydra_context is not None and task_function is not None
        setup_globals()
        configure_log(config.hydra.hydra_logging, config.hydra.verbose)
        Path(str(config.hydra.sweep.dir)).mkdir(parents=True, exist_ok=True)
        options = {**self.joblib, "backend": "loky"}  # Hydra's state rules out threads
        process_joblib_cfg(options)
        if options.get("batch_size", "auto") == "auto":
            workers = max(1, effective_n_jobs(options.get("n_jobs", -1)))
            options["batch_size"] = auto_batch_size(len(job_overrides), workers)
        log.info("joblib %s: %d jobs from #%d", options, len(job_overrides), initial_job_idx)
        state = Singleton.get_state()
        jobs = (
            delayed(execute_job)(
                initial_job_idx + offset, overrides, hydra_context, config, task_function, state
            )
            for offset, overrides in enumerate(job_overrides)
        )
        runs: list[JobReturn] = Parallel(**options)(jobs)
        return runs


def auto_batch_size(jobs: int, workers: int) -> int:
    """Jobs per joblib batch for ``batch_size: auto``: about 4 batches per worker, at most 8."""
    return max(1, min(AUTO_BATCH_MAX, jobs // (4 * workers)))


def execute_job(
    idx: int,
    overrides: Sequence[str],
    hydra_context: HydraContext,
    config: DictConfig,
    task_function: TaskFunction,
    singleton_state: dict[Any, Any],
) -> JobReturn:
    """Run one job in a worker: the plugin's own ``execute_job``, given this worker's plugin
    registry in the state it restores (so it is not scanned again), and a slim return.

    The first job of a worker builds the registry *before* the state is restored: the scan
    re-executes the plugin modules, which store their configs in the ConfigStore current at
    that time, and must not replace the launching process's (whose
    ``hydra/launcher/joblib`` is Silo's, see :func:`silo.cli.hydra.sweeper.register`).
    ``Singleton.get_state`` leaves the registry out, and it is the same in every job.
    """
    from hydra.core.plugins import Plugins
    from hydra_plugins.hydra_joblib_launcher._core import execute_job as run_one

    instances = {**singleton_state["instances"], Plugins: Plugins.instance()}
    ret = run_one(
        idx,
        overrides,
        hydra_context,
        config,
        task_function,
        {**singleton_state, "instances": instances},
    )
    # The launching process reads status and return value only (module docstring).
    ret.cfg = None  # type: ignore[assignment]
    ret.hydra_cfg = None
    return ret


def register(plugins: Any) -> None:
    """Make ``hydra/launcher=joblib`` (Silo's) instantiable in this process (idempotent).

    Called by :func:`silo.cli.hydra.sweeper.register` with Hydra's plugin registry (scanned, so the
    joblib plugin, when installed, has stored its config). The plugin's structured config is
    stored again as ``hydra/launcher/hydra_joblib`` (Hydra's own launcher, and the schema Silo's
    ``joblib.yaml`` extends) and removed as ``hydra/launcher/joblib``: Hydra 1.3 would otherwise
    validate the YAML file of that name against it ("automatic schema matching", deprecated,
    with a warning at every start).
    """
    from hydra.core.config_store import ConfigStore

    plugins.register(SiloJoblibLauncher)
    plugins.class_name_to_class[PLUGIN_TARGET] = SiloJoblibLauncher
    launchers = ConfigStore.instance().repo.get("hydra", {}).get("launcher", {})
    hydras = launchers.pop("joblib.yaml", None)
    if hydras is not None:
        launchers["hydra_joblib.yaml"] = replace(hydras, name="hydra_joblib.yaml")
