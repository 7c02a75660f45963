"""The task function ``silo-run`` hands to Hydra, and the exit status it carries back.

Contract: a :class:`RunTask` is made by one ``silo-run`` invocation and passed to
``hydra.main``; Hydra calls it once per job with the job's composed config, and it returns the
job's exit status (0 all passed, 1 a rollout failed, 2 the job could not start), which also
comes back to the launching process in the job's ``JobReturn`` under any launcher.
:class:`ExitStatus` keeps the worst status seen, so ``silo-run`` returns it when Hydra is done
(``hydra.main`` itself returns nothing). The sweeper reports into it too, for jobs that ran in
other processes or failed (see :mod:`silo.cli.hydra.sweeper`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from omegaconf import DictConfig

__all__ = ["ExitStatus", "RunTask"]


@dataclass
class ExitStatus:
    """The worst exit status reported so far during one ``silo-run``; 0 until one is."""

    value: int = 0

    def report(self, status: int) -> None:
        """Keep ``status`` if it is worse (higher) than every status reported before."""
        self.value = max(self.value, status)


@dataclass
class RunTask:
    """Runs one Hydra job of ``silo-run`` in ``project`` and records its exit status."""

    project: Path
    exit_status: ExitStatus = field(default_factory=ExitStatus)

    def __call__(self, cfg: DictConfig) -> int:
        """Plan and run the job's rollouts, print their report; the job's exit status."""
        from silo.cli.hydra.execute import execute  # the rollout stack: not needed for --help

        status = execute(cfg, self.project)
        self.exit_status.report(status)
        return status
