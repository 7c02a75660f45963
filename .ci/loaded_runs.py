"""Run the README's test command on a machine kept busy, and report every failure.

Usage: ``python .ci/loaded_runs.py [--runs 3] [--burners 2] [pytest arguments...]`` from the
checkout, with its ``.venv`` set up (the README's command does that). While ``--burners``
CPU-bound processes (one per core by default) keep every core busy, ``.venv/bin/python -m pytest
-n 2`` runs ``--runs`` times in a row; each run's wall time, counts and failed tests are printed,
then one summary line. Exit 0 only when no run failed: a test whose verdict depends on how fast
the host is shows up here (issue 39; docs/quality.md records the figures).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYTHON = REPO / ".venv" / "bin" / "python"
# A busy loop that holds one core until it is killed.
BURN = "while True:\n    pass\n"


def one_run(extra: list[str]) -> tuple[float, str, list[str], int]:
    """One run of the README's test command: wall seconds, summary line, failed ids, exit code."""
    started = time.monotonic()
    proc = subprocess.run(
        [str(PYTHON), "-m", "pytest", "-n", "2", "-rfE", *extra],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.monotonic() - started
    lines = proc.stdout.splitlines()
    failed = [  # "FAILED <id> - <reason>": an id's parameters may hold spaces
        line.split(" ", 1)[1].split(" - ", 1)[0]
        for line in lines
        if line.startswith(("FAILED ", "ERROR "))
    ]
    summary = next(
        (line.strip("= ") for line in reversed(lines) if re.search(r"\d+ (passed|failed)", line)),
        f"no summary (exit {proc.returncode}): {proc.stderr.strip()[-300:]}",
    )
    return wall, summary, failed, proc.returncode


def main() -> int:
    """Start the burners, run the suite ``--runs`` times, stop the burners, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--burners", type=int, default=os.cpu_count() or 2)
    opts, extra = parser.parse_known_args()
    if not PYTHON.is_file():
        print(f"loaded_runs: no {PYTHON}: run the README's test command once first")
        return 2
    burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(opts.burners)]
    bad = 0
    try:
        for n in range(1, opts.runs + 1):
            wall, summary, failed, code = one_run(extra)
            bad += code != 0
            print(f"run {n}/{opts.runs}: {wall:.0f} s, {summary}", flush=True)
            for test in failed:
                print(f"  failed: {test}", flush=True)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    print(f"loaded_runs: {bad} of {opts.runs} run(s) failed with {opts.burners} busy loop(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
