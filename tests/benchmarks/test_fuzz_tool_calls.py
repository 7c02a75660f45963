"""The tool-call fuzz (benchmarks/fuzz_tool_calls.py) at a small size meets every target.

Malformed calls to random CRM tools, once in memory and once on file: nothing raises out of
``call_tool``, no tool crashes, counts equal events, both runs answer alike, errors stay small.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.waiting import SAFETY_S

# slow: a fuzz run (.ci/run runs them; docs/quality.md)
pytestmark = pytest.mark.slow

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def test_the_fuzz_meets_every_target(tmp_path: Path) -> None:
    out_json = tmp_path / "figures.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "fuzz_tool_calls.py"), "--calls", "400", "--seed", "3",
         "--json", str(out_json)],
        cwd=BENCH,
        capture_output=True,
        text=True,
        timeout=SAFETY_S,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    ratios = json.loads(out_json.read_text())["ratios"]
    assert len(ratios) == 5
    assert all(r["ok"] for r in ratios), proc.stdout
    assert "answers identical in memory and on file: yes" in proc.stdout
