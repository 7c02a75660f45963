"""``hydra/sweeper=silo``: Hydra's basic sweeper, without composing every job twice.

Contract: :class:`ShapeSweeper` sweeps exactly like Hydra's ``BasicSweeper`` (same grammar, same
cartesian product and job order, ``hydra.sweeper.params``, ``max_batch_size``, ``multirun.yaml``
in the sweep folder, job numbers, ``hydra.sweep.subdir``, callbacks), with six differences:

* Before launching anything, it composes one job per distinct *shape* of the sweep instead of
  every job (the basic sweeper composes each job in this process, one after the other, and the
  launcher composes it again, in its workers for joblib). The shape of a job is the part of its
  overrides that can change whether it composes: config group choices (``agent=``,
  ``+sweep=``, ``hydra/launcher=``), ``hydra.*`` keys (typed), deletions (``~key``) and
  dict/list values. A plain value (``seed=3``, ``+rep=7``) cannot make an untyped (YAML) node
  fail to compose when another value of the same key did, so ``+rep=range(0,1000)`` composes
  once, not 1,000 times, and ``agent=solver,noop task=A,B`` twice. A composition error names
  the job and stops the sweep before any job ran.
* A job whose task function raised (or that the launcher could not compose, e.g. a bad value
  for a typed node of a structured config) costs one ``silo-run:`` line on stderr, not a
  traceback, is recorded in ``<sweep dir>/infra-errors.jsonl`` (the sweep summary lists it
  among the points that could not start) and makes ``silo-run`` exit 2. The other jobs of the
  sweep still run, except after a launcher failure (which jobs ran is then unknown: the sweep
  stops there). Either way the sweep ends normally, so the callbacks' ``on_multirun_end`` runs
  and ``summary.json`` covers every rollout written. With ``HYDRA_FULL_ERROR=1`` errors propagate
  as with the basic sweeper.
* With ``submitit_local`` (``hydra/launcher=slurm_local``), which starts every job it is
  handed at once, batches default to this machine's cores instead of the whole sweep.
* With hydra-joblib-launcher (``hydra/launcher=joblib``), ``batch_size: auto`` means up to 8
  jobs per joblib batch, chosen from the sweep's size (see :mod:`silo.cli.hydra.launchers`);
  the launcher is instantiated once the jobs are known, and ``multirun.yaml`` records the size.
* The exit status of the sweep (the worst of its jobs' statuses, 2 for a job that failed) goes
  to the :class:`~silo.cli.hydra.task.RunTask` that launched it, whatever launcher ran the jobs
  (a job's status comes back in its ``JobReturn``).

* A sweep folder that already holds an earlier batch's rollouts (a fixed ``hydra.sweep.dir``
  run twice) is refused in one line, exit 2, unless ``resume=true`` continues it.

Hydra instantiates only plugin classes it found under the ``hydra_plugins`` namespace package:
the class it finds is ``hydra_plugins.silo_sweeper.silo_sweeper.SiloSweeper``, a subclass of
this one shipped with Silo, whose module also stores the config ``hydra/sweeper/silo``.
"""

from __future__ import annotations

import io
import itertools
import os
import re
import sys
from collections.abc import Sequence
from contextlib import redirect_stderr
from pathlib import Path
from typing import Any

from hydra.core.object_type import ObjectType
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Override
from hydra.core.plugins import Plugins
from hydra.core.utils import JobReturn, JobStatus
from hydra.errors import ConfigCompositionException, HydraException
from hydra.plugins.launcher import Launcher
from hydra.plugins.sweeper import Sweeper
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig, OmegaConf

from silo.cli.console import stop_on_full_disk
from silo.cli.hydra.errors import composition_error
from silo.cli.hydra.launchers import choose_joblib_batch_size, local_pool_size
from silo.cli.hydra.task import RunTask
from silo.errors import SiloError

__all__ = ["ShapeSweeper", "split_arguments"]


def split_arguments(
    overrides: Sequence[Override], max_batch_size: int | None
) -> list[list[list[str]]]:
    """The jobs of a sweep in batches, exactly as Hydra's basic sweeper expands them.

    The cartesian product of every override's values, the first override varying slowest; a
    key given twice keeps its place and its last values. Hydra's own expansion is not public
    API, so it is restated here (it is the grammar users know from ``hydra/sweeper=basic``).
    """
    values: dict[str, list[str]] = {}
    for override in overrides:
        key = override.get_key_element()
        if not override.is_sweep_override():
            values[key] = [f"{key}={override.get_value_element_as_str()}"]
        elif override.is_discrete_sweep():
            values[key] = [f"{key}={value}" for value in override.sweep_string_iterator()]
        else:
            kind = override.value_type.name if override.value_type else "?"
            raise HydraException(f"ShapeSweeper does not support sweep type : {kind}")
    jobs = [list(job) for job in itertools.product(*values.values())]
    if max_batch_size is None:
        return [jobs]
    assert max_batch_size > 0, "hydra.sweeper.max_batch_size must be a positive number"
    return [jobs[i : i + max_batch_size] for i in range(0, len(jobs), max_batch_size)]


class ShapeSweeper(Sweeper):
    """Hydra's basic sweeper that composes one job per shape before launching (module doc)."""

    def __init__(
        self, max_batch_size: int | None = None, params: dict[str, str] | None = None
    ) -> None:
        self.max_batch_size = max_batch_size
        self.params = params or {}
        self.overrides: list[list[list[str]]] | None = None
        self.hydra_context: HydraContext | None = None
        self.config: DictConfig | None = None
        self.launcher: Launcher | None = None
        self.task_function: TaskFunction | None = None
        self._shaping_keys: dict[str, bool] = {}
        self._groups: dict[str, set[str]] = {}
        self._varying: set[int] | None = None

    def setup(
        self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig
    ) -> None:
        """Keep what :meth:`sweep` needs (which instantiates the launcher, knowing the jobs)."""
        self.hydra_context = hydra_context
        self.config = config
        self.task_function = task_function

    def sweep(self, arguments: list[str]) -> Any:
        """Expand, check (one composition per shape) and launch the jobs, batch by batch."""
        assert self.config is not None
        assert self.hydra_context is not None
        assert self.task_function is not None
        params_conf = [f"{k}={v}" for k, v in self.params.items()] + list(arguments)
        parser = OverridesParser.create(config_loader=self.hydra_context.config_loader)
        batch_size = self.max_batch_size or local_pool_size(self.config)
        self.overrides = split_arguments(parser.parse_overrides(params_conf), batch_size)
        # Every batch, before the first one runs: a bad job never leaves a half-done sweep.
        try:
            self.validate_batch_is_legal([job for batch in self.overrides for job in batch])
        except ConfigCompositionException as exc:
            if _full_error():
                raise
            sys.stderr.write(f"silo-run: {exc}\n")  # one line (see validate_batch_is_legal)
            self._exit_status(2)
            return []  # nothing ran, no sweep folder: the summary callback has nothing to say
        choose_joblib_batch_size(self.config, sum(len(batch) for batch in self.overrides))
        self.launcher = Plugins.instance().instantiate_launcher(
            hydra_context=self.hydra_context, task_function=self.task_function, config=self.config
        )
        sweep_dir = Path(self.config.hydra.sweep.dir)
        if self.config.get("resume") is not True:  # a fixed hydra.sweep.dir run twice
            from silo.batch.sweep import refuse_earlier_group  # the sweep's first job needs it

            try:
                refuse_earlier_group(sweep_dir)
            except SiloError as exc:
                sys.stderr.write(f"silo-run: {exc.message}\n")
                self._exit_status(2)
                return []
        sweep_dir.mkdir(parents=True, exist_ok=True)
        try:
            OmegaConf.save(self.config, sweep_dir / "multirun.yaml")  # with the batch size chosen
        except OSError as exc:
            (sweep_dir / "multirun.yaml").unlink(missing_ok=True)  # no partial file
            stop_on_full_disk(exc)
            raise

        returns: list[Sequence[JobReturn]] = []
        initial_job_idx = 0
        for batch in self.overrides:
            try:
                results = self.launcher.launch(batch, initial_job_idx=initial_job_idx)
            except Exception as exc:
                if _full_error():
                    raise
                self._launch_failed(batch, initial_job_idx, exc)
                break
            for num, (job, result) in enumerate(zip(batch, results, strict=True), initial_job_idx):
                if result.status == JobStatus.COMPLETED:
                    if isinstance(result.return_value, int):
                        self._exit_status(result.return_value)
                    continue
                if _full_error():
                    _ = result.return_value  # raises the job's exception, as Hydra's sweeper
                self._report(num, job, "failed", _job_exception(result))
            initial_job_idx += len(batch)
            returns.append(results)
        return returns

    def validate_batch_is_legal(self, batch: Sequence[Sequence[str]]) -> None:
        """Compose the first job of each shape in ``batch`` (see the module docstring)."""
        assert self.config is not None
        assert self.hydra_context is not None
        loader = self.hydra_context.config_loader
        composed: set[tuple[str, ...]] = set()
        for num, job in enumerate(batch):
            shape = tuple(o for o in job if self._shapes_config(o))
            if shape in composed:
                continue
            try:
                loader.load_sweep_config(master_config=self.config, sweep_overrides=list(job))
            except ConfigCompositionException as exc:
                if _full_error():
                    raise
                reason = composition_error(exc).message
                raise ConfigCompositionException(
                    f"sweep job #{num} ({self._label(job)}): {reason}"
                ) from exc.__cause__
            composed.add(shape)

    def _shapes_config(self, override: str) -> bool:
        key, _, value = override.partition("=")
        if value.lstrip()[:1] in ("{", "["):
            return True
        known = self._shaping_keys.get(key)
        if known is None:
            known = self._shaping_keys[key] = self._is_shaping_key(key)
        return known

    def _is_shaping_key(self, key: str) -> bool:
        assert self.hydra_context is not None and self.config is not None
        if key.startswith("~"):
            return True  # ~key=value deletes only when the value matches
        name = key.lstrip("+").split("@", 1)[0]
        if name == "hydra" or name.startswith(("hydra.", "hydra/")):
            return True  # Hydra's own node is a typed structured config
        parent, _, leaf = name.rpartition("/")
        groups = self._groups.get(parent)
        if groups is None:
            # With the primary config named, so that its hydra.searchpath (conf/) is searched.
            groups = self._groups[parent] = set(
                self.hydra_context.config_loader.get_group_options(
                    parent,
                    results_filter=ObjectType.GROUP,
                    config_name=self.config.hydra.job.config_name,
                    overrides=OmegaConf.to_container(self.config.hydra.overrides.hydra),  # type: ignore[arg-type]
                )
            )
        return leaf in groups

    def _varying_positions(self) -> set[int]:
        """Positions of the overrides that differ between jobs (every job lists the same keys)."""
        assert self.overrides is not None
        if self._varying is None:
            jobs = [j for batch in self.overrides for j in batch]
            self._varying = {i for i in range(len(jobs[0])) if len({j[i] for j in jobs}) > 1}
        return self._varying

    def _label(self, job: Sequence[str]) -> str:
        """The overrides that vary across the sweep (all of them when none does)."""
        varying = self._varying_positions()
        return " ".join([o for i, o in enumerate(job) if i in varying] or job)

    def _launch_failed(self, batch: Sequence[Sequence[str]], first: int, exc: Exception) -> None:
        # Which jobs ran is unknown. Name the job when the error quotes one of its own overrides
        # (Hydra's "Error merging override key=value"); composing the batch again to find it
        # could take as long as the sweep.
        text = f"{exc}\n{exc.__cause__ or ''}"
        varying = self._varying_positions()
        what = "could not be composed" if isinstance(exc, ConfigCompositionException) else "failed"
        for num, job in enumerate(batch, first):
            own = [job[i] for i in varying if i < len(job)]
            if any(re.search(re.escape(o) + r"(?!\S)", text) for o in own):
                self._report(num, job, what, exc)
                break
        else:
            self._report(
                first, [], what, exc, who=f"one of jobs #{first}-#{first + len(batch) - 1}"
            )
        sys.stderr.write("silo-run: sweep stopped; the summary covers the jobs that ran\n")

    def _report(
        self, num: int, job: Sequence[str], what: str, exc: BaseException, who: str = ""
    ) -> None:
        assert self.config is not None
        stop_on_full_disk(exc)
        error = f"{who or f'job #{num} ({self._label(job)})'} {what}: {_one_line(exc)}"
        sys.stderr.write(f"silo-run: {error}\n")
        values = dict(o.lstrip("+").split("=", 1) for o in job if "=" in o)
        choices = self.config.hydra.runtime.choices
        from silo.batch.sweep import record_infra_error  # not at the top: imported at every start

        try:
            record_infra_error(
                Path(self.config.hydra.sweep.dir),
                environment=values.get("env", choices.get("env")),
                task_id=values.get("task") or _value(self.config, "task"),
                agent=values.get("agent", choices.get("agent", "?")),
                error=error,
            )
        except OSError as written:
            stop_on_full_disk(written)
            raise
        self._exit_status(2)

    def _exit_status(self, status: int) -> None:
        """Hand a job's exit status to the ``silo-run`` that launched the sweep."""
        if isinstance(self.task_function, RunTask):
            self.task_function.exit_status.report(status)


def _job_exception(result: JobReturn) -> BaseException:
    """The exception a failed job raised, read without the line Hydra prints as it re-raises."""
    with redirect_stderr(io.StringIO()):
        try:
            _ = result.return_value
        except BaseException as exc:  # whatever the task raised, as Hydra stored it
            return exc
    raise AssertionError(f"job {result.overrides} failed without an exception")


def _full_error() -> bool:
    return os.environ.get("HYDRA_FULL_ERROR") == "1"


def _one_line(exc: BaseException) -> str:
    """The exception's message and its cause's (Hydra puts the detail there), on one line."""
    text = str(exc)
    cause = exc.__cause__
    if cause is not None and str(cause) not in text:
        text = f"{text}: {cause}"
    return " ".join(text.split()) or type(exc).__name__


def _value(config: DictConfig, key: str) -> str:
    """``config[key]`` as text, ``?`` when it is missing (``???``) or a sweep dimension."""
    return "?" if OmegaConf.is_missing(config, key) else str(config.get(key, "?"))
