"""silo-run with conversational tasks: user= choices, budget.max_user_turns, one-line mistakes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli._console import one_line_error, run

REPO = Path(__file__).resolve().parents[2]


def _silo_run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run("silo-run", REPO, "env=crm", f"runs_dir={tmp_path}", *args)


def test_conversational_task_runs_with_the_scripted_user_by_default(tmp_path: Path) -> None:
    proc = _silo_run(tmp_path, "task=TASK-007", "agent=solver")
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = tmp_path.iterdir()
    record = json.loads((run_dir / "run.json").read_text())
    assert record["user"] == "scripted" and record["userIdentity"]["kind"] == "scripted"
    assert record["config"]["maxUserTurns"] == 20
    assert "conversation: 3 user turns, ended by user" in proc.stdout


def test_a_spent_user_turn_budget_fails_the_solver(tmp_path: Path) -> None:
    proc = _silo_run(tmp_path, "task=TASK-007", "agent=solver", "budget.max_user_turns=1")
    assert proc.returncode == 1


def test_user_mistakes_are_one_line_and_exit_2(tmp_path: Path) -> None:
    proc = _silo_run(tmp_path, "task=TASK-007", "user=openai")
    assert proc.returncode == 2
    assert (
        one_line_error(proc, "silo-run")
        == "set user.model=<model name> (e.g. user.model=gpt-4.1-mini)"
    )
    proc = _silo_run(tmp_path, "task=TASK-007", "user=bogus")
    assert proc.returncode == 2
    assert one_line_error(proc, "silo-run").startswith('unknown user "bogus"')


def test_a_model_user_cannot_be_pinned_as_a_baseline() -> None:
    proc = run(
        "silo-baseline", REPO, "record", "env=crm", "agent=solver", "task=TASK-007",
        "user=openai", "user.model=m",
        extra_env={"OPENAI_API_KEY": "sk-test"},  # a key, so the refusal is for determinism
    )  # fmt: skip
    assert proc.returncode == 2
    assert "is not deterministic" in one_line_error(proc, "silo-baseline")


def test_a_bad_user_stops_a_sweep_before_any_rollout(tmp_path: Path) -> None:
    proc = run(
        "silo-run", REPO, "-m", "env=crm", f"runs_dir={tmp_path}", "task=all", "agent=noop",
        "user=openai",
    )  # fmt: skip
    assert proc.returncode == 2
    assert "set user.model=<model name>" in proc.stderr and "Traceback" not in proc.stderr
    assert not list(tmp_path.glob("*/run_*"))
