"""define_verifier: one link from a task to its verifier, and the deprecated task-id form."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import pytest

from silo import check, define_verifier, optional
from silo.verifiers import score


def _grade(final: object, initial: object, ctx: object) -> list[object]:
    return [check("ok", True)]


def test_the_verifier_does_not_name_its_task() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        verifier = define_verifier("VER-1", "Graded", _grade)
    assert (verifier.id, verifier.task_id, verifier.name) == ("VER-1", "", "Graded")
    assert define_verifier("VER-1", name="Graded", check=_grade) == verifier


@pytest.mark.parametrize(
    "call",
    [
        lambda: define_verifier("VER-1", "TASK-1", "Graded", _grade),
        lambda: define_verifier("VER-1", task_id="TASK-1", name="Graded", check=_grade),
    ],
)
def test_restating_the_task_still_works_and_warns(call: Callable[[], object]) -> None:
    with pytest.warns(DeprecationWarning, match=r"use define_verifier\(id, name, check\)"):
        verifier = call()
    assert verifier.task_id == "TASK-1"  # type: ignore[attr-defined]


def test_wrong_arguments_are_a_type_error() -> None:
    with pytest.raises(TypeError, match="missing check"):
        define_verifier("VER-1", "Graded")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="unexpected or repeated"):
        define_verifier("VER-1", "Graded", _grade, colour="red")  # type: ignore[call-overload]


def test_weighted_counts_every_check_and_binary_only_the_verdict() -> None:
    failed = [check("done", False), optional("kept", True), optional("clean", True)]
    passed = [check("done", True), optional("kept", False)]
    assert (score("V", failed).reward, score("V", failed, "binary").reward) == (0.67, 0.0)
    assert (score("V", passed).reward, score("V", passed, "binary").reward) == (0.5, 1.0)
    assert score("V", passed, "binary").checks_failed == 1  # the checks stay as graded
