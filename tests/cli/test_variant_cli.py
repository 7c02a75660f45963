"""silo-run over a template's instances: the same instance text and grading in every process,
whatever the hash seed, and variant= values that cannot name instances are one line."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, script


def _sweep(runs: Path, hash_seed: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    return subprocess.run(
        [script("silo-run"), "env=crm", f"runs_dir={runs}", "progress=false", *args],
        cwd=REPO, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip


def _records(runs: Path) -> dict[str, tuple[str, bytes, bytes]]:
    found = {}
    for run_json in runs.glob("**/run.json"):
        run = json.loads(run_json.read_text())
        found[run["taskId"]] = (
            json.dumps(run["task"], sort_keys=True),
            (run_json.parent / "result.json").read_bytes(),
            (run_json.parent / "state-diff.json").read_bytes(),
        )
    return found


def test_instances_are_byte_identical_across_processes_and_hash_seeds(tmp_path: Path) -> None:
    seen = []
    for hash_seed in ("0", "4242"):
        runs = tmp_path / hash_seed
        proc = _sweep(runs, hash_seed, "-m", "task=TASK-010,TASK-011", "variant=0-4")
        assert proc.returncode == 0, proc.stderr
        assert "10 rollouts: 10 passed, 0 failed" in proc.stdout
        seen.append(_records(runs))
    assert sorted(seen[0]) == [f"TASK-01{t}#{n}" for t in (0, 1) for n in range(5)]
    assert seen[0] == seen[1]


def test_variant_random_picks_the_instance_from_the_seed(tmp_path: Path) -> None:
    picked = []
    for attempt in ("a", "b"):
        runs = tmp_path / attempt
        hash_seed = "1" if attempt == "a" else "2"
        proc = _sweep(runs, hash_seed, "task=TASK-010", "variant=random", "seed=7")
        assert proc.returncode == 0, proc.stderr
        picked.append(sorted(_records(runs)))
    assert picked[0] == picked[1] and picked[0][0].startswith("TASK-010#")


@pytest.mark.parametrize(
    ("variant", "message"),
    [
        ("variant=9-2", "variant must be an instance number (17), a range (0-99), random"),
        ("variant=many", "variant must be an instance number (17), a range (0-99), random"),
    ],
)
def test_a_variant_that_names_no_instance_is_one_line(
    tmp_path: Path, variant: str, message: str
) -> None:
    proc = _sweep(tmp_path, "0", "task=TASK-012", variant, "agent=solver")
    assert proc.returncode == 2 and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
