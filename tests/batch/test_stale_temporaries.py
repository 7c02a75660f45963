"""A rollout killed while writing an artifact leaves ``.<name>.<pid>.tmp`` in its run folder;
nothing writes there again, so the group's scan (summaries, resume) removes it."""

from __future__ import annotations

import os
from pathlib import Path

from silo.batch.summary import load_group, run_folders


def test_the_group_scan_removes_a_killed_writers_temporaries_and_keeps_live_ones(
    tmp_path: Path, dead_pid: int
) -> None:
    killed = tmp_path / "0" / "run-killed"  # a sweep subdir, as hydra.sweep.subdir makes
    killed.mkdir(parents=True)
    (killed / "trace.jsonl").write_text("{}\n")
    stale = killed / f".result.json.{dead_pid}.tmp"
    stale.write_text('{"half": ')
    finished = tmp_path / "run-finished"
    finished.mkdir()
    (finished / "run.json").write_text("{}")
    live = finished / f".summary.json.{os.getpid()}.tmp"  # this process is still writing it
    live.write_text("{")
    unrelated = finished / "notes.tmp"
    unrelated.write_text("mine")

    assert run_folders(tmp_path) == [finished]
    assert not stale.exists()
    assert live.exists() and unrelated.exists()
    assert (killed / "trace.jsonl").exists()  # only the temporary goes


def test_load_group_cleans_up_as_it_reads(tmp_path: Path, dead_pid: int) -> None:
    folder = tmp_path / "run-x"
    folder.mkdir()
    stale = folder / f".state-diff.json.{dead_pid}.tmp"
    stale.write_text("")
    assert load_group(tmp_path) == []  # no finished rollout here
    assert not stale.exists()
