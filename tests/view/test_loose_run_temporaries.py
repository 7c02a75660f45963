"""``silo-view`` removes the temporaries a killed writer left in a loose run's folder (nothing
else reads or writes that folder again)."""

from __future__ import annotations

import os
from pathlib import Path

from silo.view.build import build_site


def test_silo_view_removes_a_killed_loose_runs_temporaries(tmp_path: Path, dead_pid: int) -> None:
    runs = tmp_path / "runs"
    loose = runs / "run-20261202-killed"
    loose.mkdir(parents=True)
    (loose / "trace.jsonl").write_text('{"seq":1,"type":"run_start"}\n')
    stale = loose / f".result.json.{dead_pid}.tmp"
    stale.write_text('{"half": ')
    live = loose / f".run.json.{os.getpid()}.tmp"
    live.write_text("{")
    build_site(runs, tmp_path / "site")
    assert not stale.exists()
    assert live.exists()
