"""Smoke test of benchmarks/state_changes_cost.py: it runs at a tiny size and prints its ratio."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.waiting import SAFETY_S

# slow: a benchmark self-check (.ci/run runs them; docs/quality.md)
pytestmark = pytest.mark.slow

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def test_state_changes_cost_runs_quick_and_prints_its_ratio() -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH / "state_changes_cost.py"), "--quick"],
        cwd=BENCH,
        capture_output=True,
        text=True,
        timeout=SAFETY_S,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "ratio state_changes/rollout = " in proc.stdout
