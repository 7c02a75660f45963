"""Atomic writes leave no temporary file behind: not on failure, not after a killed writer."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from silo.artifacts.atomic import write_json_new, write_text_atomic
from silo.jsonio import pretty


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


def test_an_artifact_written_into_a_new_folder_is_its_pretty_text_and_nothing_else(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "run_1"
    folder.mkdir()
    value = {"b": [1, 2.5, None], "a": "é"}
    write_json_new(os.fspath(folder), "result.json", value)
    assert (folder / "result.json").read_text(encoding="utf-8") == pretty(value)
    assert sorted(p.name for p in folder.iterdir()) == ["result.json"]  # no temporary left


def test_a_failed_write_into_a_new_folder_removes_its_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "run.json").mkdir()  # os.replace cannot put a file where a folder is
    with pytest.raises(OSError):
        write_json_new(os.fspath(tmp_path), "run.json", {"x": 1})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]
    with pytest.raises(TypeError):  # not JSON: nothing is opened
        write_json_new(os.fspath(tmp_path), "state-diff.json", {"x": object()})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]
