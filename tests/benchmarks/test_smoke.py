"""Smoke tests of benchmarks/: each script runs at a tiny size (``--quick``) and prints figures.

Nothing here measures the engine; the sizes are far too small for the figures to mean
anything. The real runs are ``python benchmarks/run_all.py`` (see benchmarks/README.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.waiting import SAFETY_S

# slow: each runs a benchmark script end to end (.ci/run runs them; docs/quality.md)
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "benchmarks"

# script -> a line its output must contain
SCRIPTS = {
    "bench_rollout_core.py": "worst task median",
    "bench_tool_overhead.py": "ratio overhead_us_per_call(noop tool, median) = ",
    "bench_world_size.py": "ratio rollout/deepcopy at ",
    "bench_end_to_end.py": "ratio silo-run/trivial hydra app",
    "bench_sweeps.py": "ratio joblib(2)/basic launcher rate = ",
    "bench_memory.py": "ratio peak_rss(",
    "bench_baselines.py": "ratio check/rollouts (in process) = ",
    "bench_concurrency.py": "ratio openai CPU per rollout / (a + 4b) = ",
    "bench_viewer.py": "site build: ",
    "bench_erp.py": "tool spec offered to a model",
    "bench_isolation.py": "ratio process: longest looper ms / allowed = ",
    "bench_harness_proxy.py": "ratio requests recorded / sent = 1",
}


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_benchmark_runs_quick_and_prints_its_figures(script: str, tmp_path: Path) -> None:
    out_json = tmp_path / "figures.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), "--quick", "--json", str(out_json)],
        cwd=BENCH,
        capture_output=True,
        text=True,
        timeout=SAFETY_S,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "(quick: figures not meaningful)" in proc.stdout
    assert SCRIPTS[script] in proc.stdout, proc.stdout[-2000:]
    figures = json.loads(out_json.read_text())
    assert figures["quick"] is True and figures["figures"]


def test_every_benchmark_script_is_smoke_tested() -> None:
    assert {p.name for p in BENCH.glob("bench_*.py")} == set(SCRIPTS)
