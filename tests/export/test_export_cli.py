"""silo-export end to end: a silo-run sweep exported as a user does, and its refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli._console import one_line_error, run
from tests.export import token_agent

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # a silo-run sweep and two exports in subprocesses
def test_a_sweep_exports_as_sft_and_rl_with_the_same_bytes_twice(tmp_path: Path) -> None:
    sweep = run(
        "silo-run", REPO, "-m", "env=crm", "task=TASK-001,TASK-005", "seed=0,1", "agent=file",
        f"agent.path={token_agent.__file__}", f"hydra.sweep.dir={tmp_path / 'sweep'}",
        timeout=300,
    )  # fmt: skip
    assert sweep.returncode in (0, 1), sweep.stderr  # 1: the rollouts ran and failed the tasks
    outputs = []
    for attempt in (1, 2):
        out = tmp_path / f"rl-{attempt}.jsonl"
        proc = run("silo-export", tmp_path, str(tmp_path / "sweep"), f"out={out}", "kind=rl")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == f"exported 4 rl rows to {out}\n"
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    rows = [json.loads(line) for line in outputs[0].decode().splitlines()]
    assert sorted(r["group"] for r in rows) == ["crm/TASK-001"] * 2 + ["crm/TASK-005"] * 2
    sft = tmp_path / "sft.jsonl"
    proc = run(
        "silo-export", tmp_path, str(tmp_path / "sweep"), f"out={sft}", "task=TASK-005",
        "max_reward=1", "agent=token_agent",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert {json.loads(line)["taskId"] for line in sft.read_text().splitlines()} == {"TASK-005"}


def test_refusals_are_one_line_with_status_two(tmp_path: Path) -> None:
    missing = run("silo-export", tmp_path, "nowhere", "out=x.jsonl")
    assert missing.returncode == 2
    assert one_line_error(missing, "silo-export").startswith('no folder matches "nowhere"')
    no_out = run("silo-export", tmp_path, "nowhere")
    assert no_out.returncode == 2 and "out=<file>" in one_line_error(no_out, "silo-export")
    bad = run("silo-export", tmp_path, "x", "out=x.jsonl", "min_reward=lots")
    assert bad.returncode == 2
    assert one_line_error(bad, "silo-export") == 'min_reward= must be a number, not "lots"'
    kind = run("silo-export", tmp_path, "x", "out=x.jsonl", "kind=ppo")
    assert one_line_error(kind, "silo-export") == 'kind must be sft or rl, not "ppo"'
    fmt = run("silo-export", tmp_path, "x", "out=x.csv", "format=csv")
    assert one_line_error(fmt, "silo-export") == 'format must be jsonl or parquet, not "csv"'
