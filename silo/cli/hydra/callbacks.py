"""Hydra callbacks of ``silo-run``.

Contract: :class:`SweepSummary` runs in the launching process when a multirun ends, whatever
the launcher: it summarizes the sweep folder from disk, writes ``summary.json`` and prints the
table. The sweep's exit status comes from its jobs' statuses (see :mod:`silo.cli.hydra.task`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback

from silo.cli.console import stop_on_full_disk

__all__ = ["SweepSummary"]


class SweepSummary(Callback):
    """Writes and prints the summary of a whole sweep once its last job has ended."""

    def on_multirun_end(self, config: Any, **kwargs: Any) -> None:
        """Summarize ``hydra.sweep.dir`` (every rollout written there, by any launcher)."""
        from silo.batch.summary import write_summary

        sweep_dir = Path(str(config.hydra.sweep.dir))
        if not sweep_dir.is_dir():
            return
        try:
            summary = write_summary(sweep_dir)
        except OSError as exc:
            stop_on_full_disk(exc)
            raise
        print(summary["table"])
        print(f"summary: {sweep_dir / 'summary.json'}")
