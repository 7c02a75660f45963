"""Grading helpers the project-tracking verifiers share.

Contract: pure functions over read-only world snapshots (any ``Mapping``) and the agent's final
text; they are the small, generic part of grading that a framework module can later replace.
:func:`numbers_in` reads every number out of an answer (thousands separators dropped, as the
reference does for this world); :func:`states_number` and :func:`last_number_is` test an
answer against an expected figure within a tolerance; :func:`mentions` is a case-insensitive
containment; :func:`same` compares two snapshot values; :func:`task_entities` reads the facts
a task file states for its verifier; :func:`world_unchanged` is the optional collateral check of
report tasks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from silo import Check, VerifierContext, optional

__all__ = [
    "TOLERANCE",
    "last_number_is",
    "mentions",
    "numbers_in",
    "plain",
    "same",
    "states_number",
    "task_entities",
    "world_unchanged",
]

TOLERANCE = 0.01
_NUMBER = re.compile(r"(?<![\w.-])-?\d+(?:\.\d+)?")


def plain(value: Any) -> Any:
    """A deep copy of ``value`` made of dicts, lists and scalars only.

    Args:
        value: A snapshot value (read-only mappings and sequences allowed).

    Returns:
        The same data as plain JSON values.
    """
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (str, bytes, bool, int, float)) or value is None:
        return value
    try:
        return [plain(item) for item in value]
    except TypeError:
        return value


def same(after: Any, before: Any) -> bool:
    """Whether two snapshot values hold the same data (identity first, then canonical JSON).

    Args:
        after: A value of the final world.
        before: The matching value of the initial world.
    """
    if after is before:
        return True
    return json.dumps(plain(after), sort_keys=True) == json.dumps(plain(before), sort_keys=True)


def numbers_in(text: str) -> list[float]:
    """Every number in ``text`` after dropping thousands separators.

    Digits glued to letters or dashes (the ``004`` of ``WI-004``, ``Sprint-4``) are part of a
    name, not a number.

    Args:
        text: The agent's answer.
    """
    return [float(match) for match in _NUMBER.findall(text.replace(",", ""))]


def states_number(text: str, expected: float, tolerance: float = TOLERANCE) -> bool:
    """Whether any number in ``text`` is within ``tolerance`` of ``expected``.

    Args:
        text: The agent's answer.
        expected: The figure derived from the initial world.
        tolerance: Allowed absolute difference.
    """
    return any(abs(number - expected) <= tolerance for number in numbers_in(text))


def last_number_is(text: str, expected: float, tolerance: float = TOLERANCE) -> bool:
    """Whether the final number in ``text`` is ``expected`` (the answer is not buried).

    Args:
        text: The agent's answer.
        expected: The figure derived from the initial world.
        tolerance: Allowed absolute difference.
    """
    numbers = numbers_in(text)
    return bool(numbers) and abs(numbers[-1] - expected) <= tolerance


def mentions(text: str, phrase: str) -> bool:
    """Case-insensitive containment of ``phrase`` in ``text``.

    Args:
        text: The agent's answer.
        phrase: A name or id to look for.
    """
    return bool(phrase) and phrase.casefold() in text.casefold()


def task_entities(context: VerifierContext) -> Mapping[str, Any]:
    """The ``entities`` object of the task being graded (empty when the file has none).

    Args:
        context: The verifier context of the run.
    """
    entities = context.task.entities
    return entities if isinstance(entities, Mapping) else {}


def world_unchanged(final: Mapping[str, Any], initial: Mapping[str, Any]) -> Check:
    """Optional check: a question was answered without changing anything in the tracker.

    Args:
        final: The world after the run.
        initial: The world before it.
    """
    unchanged = final.keys() == initial.keys() and all(
        same(final[key], initial[key]) for key in final
    )
    return optional(
        "The tracker was left exactly as it was",
        unchanged,
        "no record changed" if unchanged else "some record differs from the starting world",
    )
