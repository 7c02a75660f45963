"""Atomic writes leave no temporary file behind: not on failure, not after a killed writer."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from silo.jsonio import write_text_atomic


def test_a_failed_write_removes_its_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "result.json"
    target.mkdir()  # os.replace cannot put a file where a folder is
    with pytest.raises(OSError):
        write_text_atomic(target, "{}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json"]


def test_a_killed_writers_temporary_is_removed_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "summary.json"
    target.write_text("old\n")
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    stale = tmp_path / f".summary.json.{gone.stdout.strip()}.tmp"
    alive = tmp_path / f".summary.json.{os.getppid()}.tmp"  # a live writer's: kept
    stale.write_text("half")
    alive.write_text("half")
    write_text_atomic(target, "new\n")
    assert target.read_text() == "new\n"
    assert not stale.exists() and alive.exists()
