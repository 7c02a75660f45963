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

Hydra only instantiates plugins found under ``hydra_plugins`` (see :mod:`silo.cli._sweeper`):
:func:`silo.cli._sweeper.register` adds this class under :data:`PLUGIN_TARGET`, the
``_target_`` of ``conf/hydra/launcher/joblib.yaml``, which shadows the plugin's own ``joblib``
and extends it (``hydra/launcher=hydra_joblib``, which stays available). Workers never
instantiate a launcher, so they need no registration.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import suppress
from copy import deepcopy
from dataclasses import replace
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, configure_log, filter_overrides, run_job, setup_globals
from hydra.plugins.launcher import Launcher
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig, open_dict

__all__ = ["AUTO_BATCH_MAX", "PLUGIN_TARGET", "SiloJoblibLauncher", "auto_batch_size", "register"]

# Hydra refuses to instantiate a plugin whose class name is outside hydra_plugins.* (1.3).
PLUGIN_TARGET = "hydra_plugins.silo_launcher.SiloJoblibLauncher"
# Jobs per joblib batch with batch_size=auto: enough to pay the pickled master config once per
# 8 jobs, few enough that two workers still finish within a job or two of each other.
AUTO_BATCH_MAX = 8

log = logging.getLogger(__name__)


# Not a subclass of JoblibLauncher: Hydra's plugin scan re-executes the plugin's modules, so the
# class subclassed here would not be the one Hydra lists (see silo.cli._sweeper).
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
        # joblib is an optional dependency (silo[parallel]): imported only when launching.
        from joblib import Parallel, delayed, effective_n_jobs  # type: ignore[import-untyped]

        setup_globals()
        assert self.config is not None
        assert self.task_function is not None
        assert self.hydra_context is not None
        configure_log(self.config.hydra.hydra_logging, self.config.hydra.verbose)
        sweep_dir = Path(str(self.config.hydra.sweep.dir))
        sweep_dir.mkdir(parents=True, exist_ok=True)

        # As Hydra's: the threading backend is incompatible with Hydra's global state.
        joblib_cfg = dict(self.joblib)
        joblib_cfg["backend"] = "loky"
        _ints(joblib_cfg)
        if joblib_cfg.get("batch_size", "auto") == "auto":
            workers = max(1, effective_n_jobs(joblib_cfg.get("n_jobs", -1)))
            joblib_cfg["batch_size"] = auto_batch_size(len(job_overrides), workers)

        log.info(
            "Joblib.Parallel({}) is launching {} jobs".format(
                ",".join([f"{k}={v}" for k, v in joblib_cfg.items()]), len(job_overrides)
            )
        )
        log.info(f"Launching jobs, sweep output dir : {sweep_dir}")
        for idx, overrides in enumerate(job_overrides):
            log.info("\t#{} : {}".format(idx, " ".join(filter_overrides(overrides))))

        singleton_state = Singleton.get_state()
        runs = Parallel(**joblib_cfg)(
            delayed(execute_job)(
                initial_job_idx + idx,
                overrides,
                self.hydra_context,
                self.config,
                self.task_function,
                singleton_state,
            )
            for idx, overrides in enumerate(job_overrides)
        )
        assert isinstance(runs, list)
        assert all(isinstance(run, JobReturn) for run in runs)
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
    """Run one job in a worker: Hydra's ``execute_job``, registry kept, slim return."""
    setup_globals()
    _restore_singletons(singleton_state)
    sweep_config = hydra_context.config_loader.load_sweep_config(config, list(overrides))
    with open_dict(sweep_config):
        sweep_config.hydra.job.id = f"{sweep_config.hydra.job.name}_{idx}"
        sweep_config.hydra.job.num = idx
    HydraConfig.instance().set_config(sweep_config)
    ret = run_job(
        hydra_context=hydra_context,
        config=sweep_config,
        task_function=task_function,
        job_dir_key="hydra.sweep.dir",
        job_subdir_key="hydra.sweep.subdir",
    )
    # The launching process reads status and return value only (module docstring).
    ret.cfg = None  # type: ignore[assignment]
    ret.hydra_cfg = None
    return ret


def _restore_singletons(state: dict[Any, Any]) -> None:
    """``Singleton.set_state(state)``, reusing this worker's plugin registry when it has one.

    The registry is the same in every job (the installed plugins), and the state never holds
    one (``Singleton.get_state`` leaves it out). The first job of a worker builds it *before*
    the state is restored: the scan re-executes the plugin modules, which store their configs
    in the ConfigStore current at that time, and must not replace the launching process's
    (whose ``hydra/launcher/joblib`` is Silo's, see :func:`silo.cli._sweeper.register`).
    """
    from hydra.core.plugins import Plugins
    from omegaconf.basecontainer import BaseContainer

    plugins = Plugins.instance()  # scans once per worker process, then a dict lookup
    Singleton._instances = state["instances"]
    Singleton._instances[Plugins] = plugins  # type: ignore[assignment]
    BaseContainer._resolvers = deepcopy(state["omegaconf_resolvers"])


def _ints(joblib_cfg: dict[str, Any]) -> None:
    """Hydra's ``process_joblib_cfg``: numeric strings (from YAML or the command line) to int."""
    for key in ("pre_dispatch", "batch_size", "max_nbytes"):
        value = joblib_cfg.get(key)
        if value:
            with suppress(ValueError):  # e.g. pre_dispatch: 2*n_jobs, evaluated by joblib
                joblib_cfg[key] = int(value)


def register(plugins: Any) -> None:
    """Make ``hydra/launcher=joblib`` (Silo's) instantiable in this process (idempotent).

    Called by :func:`silo.cli._sweeper.register` with Hydra's plugin registry (scanned, so the
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
