"""Generic grading helpers for verifiers.

Contract: pure functions over read-only world snapshots (any ``Mapping``) and the agent's final
text. :func:`plain` turns a snapshot into plain JSON values so two worlds can be compared;
:func:`numbers_in` reads every number out of an answer the way a person writes money and
percentages (``$507,500``, ``36.0%``); :func:`world_unchanged` is the optional collateral check
of report tasks; :func:`task_entities` reads the facts a task file states for its verifier;
:func:`touched_rows` reads which rows of a collection the run changed from the state diff.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from silo.verifiers import Check, VerifierContext, optional

__all__ = [
    "TOLERANCE",
    "canonical",
    "last_number_is",
    "mentions",
    "numbers_in",
    "plain",
    "same",
    "states_number",
    "task_entities",
    "touched_rows",
    "world_unchanged",
]

TOLERANCE = 0.01
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def plain(value: Any) -> Any:
    """A deep copy of ``value`` made of dicts, lists and scalars only."""
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (str, bytes)) or value is None:
        return value
    if isinstance(value, (bool, int, float)):
        return value
    try:
        return [plain(item) for item in value]
    except TypeError:
        return value


def canonical(value: Any) -> str:
    """Stable JSON text of a snapshot, for equality checks."""
    return json.dumps(plain(value), sort_keys=True, default=str)


def numbers_in(text: str) -> list[float]:
    """Every number in ``text`` after dropping ``$`` signs and thousands separators."""
    cleaned = text.replace("$", "").replace(",", "")
    return [float(match) for match in _NUMBER.findall(cleaned)]


def states_number(text: str, expected: float, tolerance: float = TOLERANCE) -> bool:
    """Whether any number in ``text`` is within ``tolerance`` of ``expected``."""
    return any(abs(number - expected) <= tolerance for number in numbers_in(text))


def last_number_is(text: str, expected: float, tolerance: float = TOLERANCE) -> bool:
    """Whether the final number in ``text`` is ``expected`` (the answer is not buried)."""
    numbers = numbers_in(text)
    return bool(numbers) and abs(numbers[-1] - expected) <= tolerance


def mentions(text: str, phrase: str) -> bool:
    """Case-insensitive containment of ``phrase`` in ``text``."""
    return phrase.casefold() in text.casefold()


def same(after: Any, before: Any) -> bool:
    """True when two values are equal.

    Silo hands verifiers an initial world that shares every untouched record with the final
    one, so identity answers most comparisons without serialising anything; a comparison of
    copies falls back to the canonical text.
    """
    return after is before or canonical(after) == canonical(before)


def world_unchanged(
    final: Mapping[str, Any],
    initial: Mapping[str, Any],
    label: str = "The world was left exactly as it was",
) -> Check:
    """Optional check that a question was answered without changing anything in the world."""
    same_keys = final.keys() == initial.keys()
    unchanged = same_keys and all(_same_collection(final[key], initial[key]) for key in final)
    return optional(
        label,
        unchanged,
        "no record changed" if unchanged else "some record differs from the starting world",
    )


def _same_collection(after: Any, before: Any) -> bool:
    if after is before:
        return True
    if isinstance(after, Mapping) and isinstance(before, Mapping):
        return after.keys() == before.keys() and all(same(after[k], before[k]) for k in after)
    return same(after, before)


def task_entities(context: VerifierContext) -> Mapping[str, Any]:
    """The ``entities`` object of the task being graded (empty when the file has none)."""
    entities = context.task.entities
    return entities if isinstance(entities, Mapping) else {}


def touched_rows(context: VerifierContext, collection: str) -> set[str] | None:
    """Ids of the rows of ``collection`` the run added, removed or changed.

    Read from the state diff; ``None`` when the context carries no diff (then a verifier must
    compare the two worlds itself).
    """
    collections = context.state_diff.get("collections")
    if not isinstance(collections, Mapping):
        return None
    entry = collections.get(collection) or {}
    return {str(key) for part in ("added", "removed", "changed") for key in entry.get(part, ())}
