"""Grading: scores, a verifier that raises, one with no required check, read-only worlds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from silo import run_task
from silo.verifiers import VerifierError, check, optional, round_half_up, score


def test_reward_counts_optional_checks_and_rounds_half_up() -> None:
    graded = score("V", [check("a", True), optional("b", False), optional("c", False)])
    assert graded.passed is True and graded.reward == 0.33
    assert round_half_up(0.125) == 0.13 and round_half_up(0.675) == 0.68
    assert score("V", [check("a", False), optional("b", True)]).reward == 0.5


def test_no_required_check_is_an_error() -> None:
    with pytest.raises(VerifierError, match="no required checks"):
        score("V", [optional("only", True)])


def test_raising_verifier_fails_the_run_with_reason_and_artifacts(toy_project: Path) -> None:
    result = run_task("toy", "TASK-002", "solver", project_dir=toy_project)
    assert result.passed is False and result.reward == 0.0
    line = _line_of(toy_project / "environments" / "toy" / "env.py", 'raise ValueError("verifier')
    expected = (
        f"verifier VER-002 failed at environments/toy/env.py:{line}: ValueError: verifier bug"
    )
    assert result.error == expected
    assert result.environment_error == expected  # the environment's fault, not the agent's
    assert json.loads((result.run_dir / "run.json").read_text())["environmentError"] == expected
    assert json.loads((result.run_dir / "result.json").read_text())["error"] == expected
    assert {p.name for p in result.run_dir.iterdir()} == {
        "trace.jsonl",
        "result.json",
        "state-diff.json",
        "state-changes.json",
        "run.json",
    }


def test_verifier_without_required_checks_fails_the_run(toy_project: Path) -> None:
    result = run_task("toy", "TASK-003", "solver", project_dir=toy_project, write_artifacts=False)
    assert not result.passed
    assert "returned no required checks" in result.error


def test_verifier_cannot_modify_the_world(toy_project: Path) -> None:
    env_py = toy_project / "environments" / "toy" / "env.py"
    env_py.write_text(
        env_py.read_text().replace(
            '    before = initial["counters"]["C-1"]["value"]',
            '    final["counters"]["C-1"]["value"] = 0\n    before = initial["counters"]["C-1"]["value"]',
        )
    )
    result = run_task("toy", "TASK-001", "solver", project_dir=toy_project, write_artifacts=False)
    assert "verifiers must not modify state" in result.error


def test_verifier_context_carries_a_copy_of_the_state_diff(toy_project: Path) -> None:
    env_py = toy_project / "environments" / "toy" / "env.py"
    env_py.write_text(
        env_py.read_text().replace(
            '    before = initial["counters"]["C-1"]["value"]',
            '    changed = ctx.state_diff["collections"]["counters"]["changed"]\n'
            '    changed.append("tampered")\n'
            '    before = initial["counters"]["C-1"]["value"]',
        )
    )
    result = run_task("toy", "TASK-001", "solver", project_dir=toy_project, write_artifacts=False)
    assert result.passed, result.error
    assert result.state_diff["collections"]["counters"]["changed"] == ["C-1"]


def _line_of(path: Path, text: str) -> int:
    lines = path.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)
