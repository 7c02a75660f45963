"""Shared fixtures: a throwaway copy of the toy project, a dead pid, and the console scripts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURE_PROJECT = REPO / "tests" / "fixtures" / "project"
BIN = Path(sys.executable).parent


@pytest.fixture
def toy_project(tmp_path: Path) -> Path:
    """A private copy of tests/fixtures/project (the toy environment) in tmp_path."""
    target = tmp_path / "project"
    shutil.copytree(FIXTURE_PROJECT, target, ignore=shutil.ignore_patterns(".silo", "__pycache__"))
    return target


@pytest.fixture
def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped): a killed writer's, say."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def script(name: str) -> str:
    """The installed console script ``name`` next to this interpreter."""
    return str(BIN / name)
