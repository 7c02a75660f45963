"""Generic grading helpers for verifiers.

Contract: pure functions over read-only world snapshots (any ``Mapping``) and the agent's final
text. :func:`plain` turns a snapshot into plain JSON values so two worlds can be compared;
:func:`numbers_in` reads every number out of an answer the way a person writes money and
percentages (``$507,500``, ``36.0%``); :func:`world_unchanged` is the optional collateral check
of report tasks; :func:`task_entities` reads the facts a task file states for its verifier;
:func:`touched_rows` reads which rows of a collection the run changed from the state diff;
:func:`nothing_else_changed` is the optional collateral-damage check "nothing outside these rows
changed", read from the state diff (so it costs what the run changed, not the world's size).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from silo.json_types import JSON
from silo.jsonio import canonical
from silo.verifiers import Check, VerifierContext, optional

__all__ = [
    "TOLERANCE",
    "last_number_is",
    "mentions",
    "nothing_else_changed",
    "numbers_in",
    "plain",
    "same",
    "states_number",
    "task_entities",
    "touched_rows",
    "world_unchanged",
]

TOLERANCE = 0.01
# A number stands on its own: digits glued to a letter, a dash or a dot before them are part of
# a name or an id (the 007 of OPP-007, the 4 of Sprint-4, the 16 of 2026-03-16), not a figure.
_NUMBER = re.compile(r"(?<![\w.\-])-?\d+(?:\.\d+)?")
# A comma between digits is a thousands separator only before exactly three digits: "3,4" and
# "1,25" are lists, not 34 and 125.
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def plain(value: JSON) -> JSON:
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


def numbers_in(text: str) -> list[float]:
    """Every number in ``text``, read as a person writes money and figures.

    ``$`` signs and thousands separators are dropped (``$507,500`` is 507500, ``-$5`` is -5);
    digits that are part of a name or an id are not numbers (``OPP-007``, ``WI-004``,
    ``Sprint-4``, the month and day of ``2026-03-16``), and a comma not followed by exactly three
    digits separates numbers (``3,4`` is 3 and 4).
    """
    cleaned = _THOUSANDS.sub("", text.replace("$", ""))
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


def same(after: JSON, before: JSON) -> bool:
    """True when two values are equal.

    Silo hands verifiers an initial world that shares every untouched record with the final
    one, so identity answers most comparisons without serialising anything; a comparison of
    copies falls back to the canonical text (:func:`silo.jsonio.canonical`) of their
    :func:`plain` forms, so a read-only view compares like the dict it shows.
    """
    return after is before or canonical(plain(after)) == canonical(plain(before))


def world_unchanged(
    final: Mapping[str, JSON],
    initial: Mapping[str, JSON],
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


def _same_collection(after: JSON, before: JSON) -> bool:
    if after is before:
        return True
    if isinstance(after, Mapping) and isinstance(before, Mapping):
        return after.keys() == before.keys() and all(same(after[k], before[k]) for k in after)
    return same(after, before)


def task_entities(context: VerifierContext) -> Mapping[str, JSON]:
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


_MAX_NAMED = 5  # offending rows named in a check's detail


def nothing_else_changed(
    context: VerifierContext,
    rows: Mapping[str, Iterable[str] | None],
    appendable: Iterable[str] = (),
    label: str = "Nothing outside the task's rows changed",
    worlds: tuple[Mapping[str, JSON], Mapping[str, JSON]] | None = None,
) -> Check:
    """Optional check that the run changed only the rows a task is about (collateral damage).

    ``rows`` maps a collection to the row ids that may be added, changed or removed (``None``:
    any row of it, e.g. id counters); a collection in ``appendable`` may gain new rows (an
    audit log) but not change or lose old ones. Any other row the state diff names, and any
    changed top-level scalar, fails the check; its detail names the first few. When the context
    carries no state diff (a verifier called directly), ``worlds`` — ``(final, initial)`` — are
    compared instead, row by row for object collections.
    """
    collections = context.state_diff.get("collections")
    scalars = list(context.state_diff.get("scalars", ()))
    if not isinstance(collections, Mapping):
        if worlds is None:
            return optional(label, False, "the verifier context carries no state diff")
        collections, scalars = _compared(*worlds)
    allowed = {name: None if ids is None else set(ids) for name, ids in rows.items()}
    appending = set(appendable)
    stray: list[str] = []
    for name, entry in collections.items():
        ids = allowed.get(name, set())
        for part in ("added", "removed", "changed"):
            if ids is None or (part == "added" and name in appending):
                continue
            stray += [f"{name}.{key} ({part})" for key in entry.get(part, ()) if key not in ids]
    stray += [f"{item.get('field')} (scalar)" for item in scalars]
    if not stray:
        return optional(label, True, "nothing else changed")
    more = f" and {len(stray) - _MAX_NAMED} more" if len(stray) > _MAX_NAMED else ""
    return optional(label, False, f"also changed: {', '.join(stray[:_MAX_NAMED])}{more}")


def _compared(
    final: Mapping[str, JSON], initial: Mapping[str, JSON]
) -> tuple[dict[str, dict[str, list[JSON]]], list[dict[str, JSON]]]:
    """A state-diff-like summary of two worlds (object collections by row, arrays by prefix)."""
    collections: dict[str, dict[str, list[JSON]]] = {}
    scalars: list[dict[str, JSON]] = []
    for key in dict.fromkeys([*final, *initial]):
        after, before = final.get(key), initial.get(key)
        if after is before:
            continue
        if isinstance(after, Mapping) and isinstance(before, Mapping):
            entry = {
                "added": [k for k in after if k not in before],
                "removed": [k for k in before if k not in after],
                "changed": [k for k in before if k in after and not same(after[k], before[k])],
            }
        elif isinstance(after, list) and isinstance(before, list):
            grown = len(after) >= len(before) and same(after[: len(before)], before)
            tail = after[len(before) :] if grown else after
            new = [
                row.get("id", i) if isinstance(row, Mapping) else i for i, row in enumerate(tail)
            ]
            entry = {"added": new, "removed": [], "changed": [] if grown else ["(rewritten)"]}
        else:
            if not same(after, before):
                scalars.append({"field": key})
            continue
        if any(entry.values()):
            collections[str(key)] = entry
    return collections, scalars
