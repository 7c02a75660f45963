"""The agent-outcome fuzz (benchmarks/fuzz_agent_outcomes.py) at a small size meets every target.

Hostile answers and exceptions (deep, cyclic, huge, raising ``__repr__``/``__str__``/``__eq__``,
not JSON): nothing escapes ``run_task``, every rollout has a reason, every artifact reads back.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.slow
def test_the_outcome_fuzz_meets_every_target(tmp_path: Path) -> None:
    out_json = tmp_path / "figures.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "fuzz_agent_outcomes.py"), "--values", "200", "--seed", "5",
         "--json", str(out_json)],
        cwd=BENCH,
        capture_output=True,
        text=True,
        timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    ratios = json.loads(out_json.read_text())["ratios"]
    assert len(ratios) == 5
    assert all(r["ok"] for r in ratios), proc.stdout
