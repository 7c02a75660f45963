"""A full disk is one line and exit 2 everywhere, with no partial files: on a real small tmpfs.

``silo-run`` (one run, a group, a ``-m`` sweep) writes into a 64 KiB tmpfs filled to levels from
empty to nearly full, so the disk runs out in a different file each time (trace, result,
state-diff, run.json, summary, multirun.yaml). Every run ends 0/1 (it fit) or 2 with the one
line; none leaves a traceback, a temporary file or an empty JSON file. Mounting needs root:
otherwise the test skips, saying so.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli._console import run

SIZE_K = 64
MODES = {
    "single": ("task=TASK-001",),
    "group": ("task=TASK-001", "runs=3"),
    "sweep": ("-m", "task=TASK-001,TASK-003"),
}


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("a full disk is tested on a tmpfs, and mounting one needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE_K}k", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"could not mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


@pytest.mark.slow
@pytest.mark.parametrize("mode", list(MODES))
def test_a_full_disk_is_one_line_exit_2_and_leaves_no_partial_file(
    toy_project: Path, small_disk: Path, mode: str
) -> None:
    refused = 0
    for fill_k in range(0, SIZE_K, 6):
        for entry in small_disk.iterdir():
            subprocess.run(["rm", "-rf", str(entry)], check=True)
        if fill_k:
            (small_disk / "filler").write_bytes(b"\0" * fill_k * 1024)
        runs = small_disk / "runs"
        proc = run(
            "silo-run", toy_project, "env=toy", "agent=solver", f"runs_dir={runs}", *MODES[mode]
        )
        where = f"{mode} at {fill_k} KiB: {proc.stderr}"
        assert "Traceback" not in proc.stderr, where
        assert proc.returncode in (0, 1, 2), where
        if proc.returncode == 2:
            refused += 1
            (line,) = [ln for ln in proc.stderr.splitlines() if "warn" not in ln]
            assert line.startswith("silo-run: "), where
            assert "full disk" in line or "disk is full" in line, where
        assert list(small_disk.rglob("*.tmp")) == [], where
        assert [p for p in small_disk.rglob("*.json") if p.stat().st_size == 0] == [], where
    assert refused > 0  # the disk did run out
