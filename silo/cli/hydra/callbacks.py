"""Hydra callbacks of ``silo-run``.

Contract: :class:`SweepSummary` runs in the launching process when a multirun ends, whatever
the launcher: it summarizes the sweep folder from disk, writes ``summary.json``, prints the
table and records the exit status for :func:`silo.cli.run.main`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback

__all__ = ["SweepSummary"]


class SweepSummary(Callback):
    def on_multirun_end(self, config: Any, **kwargs: Any) -> None:
        from silo.batch.summary import write_summary
        from silo.cli import run as run_cli

        sweep_dir = Path(str(config.hydra.sweep.dir))
        if not sweep_dir.is_dir():
            return
        summary = write_summary(sweep_dir)
        print(summary["table"])
        print(f"summary: {sweep_dir / 'summary.json'}")
        broken = summary["failed"] > 0 or bool(summary["infraErrors"])
        if broken and bool(config.get("fail_on_error", True)):
            run_cli.STATUS.append(1)
