"""result.json counts pinned to hand-computed values, and a run id collision never reuses a folder.

Every expected number below is written out by hand from the checks given, not derived with the
scoring code under test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import silo.artifacts.run_folder as run_folder
from silo.artifacts.run_folder import allocate_run_dir, build_result, new_run_id
from silo.verifiers import check, optional, score


def test_every_count_of_a_mixed_score_is_the_hand_computed_one() -> None:
    checks = [
        check("a", True),
        check("b", False, "saw 2"),
        check("c", True),
        optional("d", False),
        optional("e", True),
        check("f", False),
    ]
    result = build_result(
        score("VER-9", checks),
        tool_calls=7,
        tool_errors=2,
        termination_reason="completed",
        agent_output="done",
        error=None,
    )
    assert result == {
        "passed": False,
        "reward": 0.5,
        "requiredPassed": 2,
        "requiredTotal": 4,
        "failedRequired": ["b", "f"],
        "checksPassed": 3,
        "checksFailed": 3,
        "toolCalls": 7,
        "toolErrors": 2,
        "terminationReason": "completed",
        "agentOutput": "done",
        "error": None,
        "checks": [
            {"label": "a", "passed": True, "detail": "", "required": True},
            {"label": "b", "passed": False, "detail": "saw 2", "required": True},
            {"label": "c", "passed": True, "detail": "", "required": True},
            {"label": "d", "passed": False, "detail": "", "required": False},
            {"label": "e", "passed": True, "detail": "", "required": False},
            {"label": "f", "passed": False, "detail": "", "required": True},
        ],
    }


@pytest.mark.parametrize(
    ("flags", "reward"),
    [((True, True, False), 0.67), ((True, False, False), 0.33), ((True,) * 7 + (False,), 0.88)],
)
def test_reward_rounds_half_up_to_two_places(flags: tuple[bool, ...], reward: float) -> None:
    graded = score("VER-1", [check(str(i), f) for i, f in enumerate(flags)])
    assert graded.reward == reward
    assert graded.required_passed == sum(flags) and graded.required_total == len(flags)


def test_a_failed_verifier_gives_an_all_zero_result() -> None:
    result = build_result(
        None,
        tool_calls=1,
        tool_errors=0,
        termination_reason="completed",
        agent_output=None,
        error="verifier VER-1 failed: boom",
    )
    assert (result["passed"], result["reward"], result["requiredPassed"]) == (False, 0.0, 0)
    assert (result["requiredTotal"], result["failedRequired"], result["checks"]) == (0, [], [])
    assert (result["checksPassed"], result["checksFailed"]) == (0, 0)
    assert result["error"] == "verifier VER-1 failed: boom" and result["toolCalls"] == 1


def test_a_run_id_collision_draws_a_new_id_and_leaves_the_existing_folder_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = tmp_path / "run_x_aaaaaa"
    taken.mkdir()
    (taken / "result.json").write_text("old")
    drawn = iter(["run_x_aaaaaa", "run_x_aaaaaa", "run_x_bbbbbb"])
    monkeypatch.setattr(run_folder, "new_run_id", lambda prefix="run": next(drawn))
    run_id, folder = allocate_run_dir(tmp_path)
    assert (run_id, folder) == ("run_x_bbbbbb", tmp_path / "run_x_bbbbbb")
    assert folder.is_dir() and list(folder.iterdir()) == []
    assert (taken / "result.json").read_text() == "old"


def test_run_ids_have_the_documented_shape() -> None:
    assert re.fullmatch(r"sweep_\d{14}_[0-9a-z]{6}", new_run_id("sweep"))
    assert len({new_run_id() for _ in range(200)}) == 200
