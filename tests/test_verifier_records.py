"""Verifier records: defaults, immutability and the argument-count message, pinned by hand."""

from __future__ import annotations

import dataclasses

import pytest

from silo.verifiers import Check, Score, Verifier, VerifierContext, define_verifier, score


def test_a_check_built_directly_is_required_with_no_detail() -> None:
    made = Check("label", True)
    assert (made.required, made.detail) == (True, "")
    assert made.to_json() == {"label": "label", "passed": True, "detail": "", "required": True}


@pytest.mark.parametrize(
    "record",
    [
        Check("a", True),
        score("VER-1", [Check("a", True)]),
        define_verifier("VER-1", "n", lambda f, i, c: []),
    ],
)
def test_records_are_frozen(record: Check | Score | Verifier) -> None:
    field = dataclasses.fields(record)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(record, field, None)


def test_context_is_frozen_and_its_diff_defaults_to_empty() -> None:
    context = VerifierContext("out", task=None)  # type: ignore[arg-type]
    assert context.state_diff == {}
    with pytest.raises(dataclasses.FrozenInstanceError):
        context.agent_output = "x"  # type: ignore[misc]


@pytest.mark.parametrize(("extra", "count"), [(3, 5), (4, 6)])
def test_too_many_arguments_are_counted_in_the_message(extra: int, count: int) -> None:
    args = ["a"] * extra
    with pytest.raises(TypeError, match=rf"got {count} arguments$"):
        define_verifier("VER-1", *args, lambda f, i, c: [])
