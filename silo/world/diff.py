"""The ``state-diff.json`` algorithm over two plain states.

Contract: for each top-level key (final order, then keys only the initial state had): when both
sides are dicts, or both lists, the value is a *collection* and its rows (dict keys; list rows
by their string ``id``, else by index) are reported as ``added``/``removed``/``changed``, in the
final order for added rows and the initial order otherwise; a collection with no change is left
out. Anything else that differs is a *scalar* entry ``{field, from, to, change}`` where
``change`` is ``changed``, ``added`` or ``removed`` (an absent side is ``null``). Equality is
structural (key order inside a row does not matter).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from silo.json_types import JSON
from silo.jsonio import canonical

__all__ = ["ABSENT", "diff_states", "diff_value", "row_keys"]


class _Absent:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


def row_keys(rows: list[JSON], start: int = 0) -> list[str]:
    """How list rows are named in a diff: their string ``id``, else their index."""
    keys = []
    for index, row in enumerate(rows, start):
        row_id = row.get("id") if isinstance(row, Mapping) else None
        keys.append(row_id if isinstance(row_id, str) else str(index))
    return keys


def _keyed(value: JSON) -> dict[JSON, JSON]:
    if isinstance(value, Mapping):
        return dict(value)
    return dict(zip(row_keys(value), value, strict=True))


def diff_value(
    field: JSON,
    before: JSON,
    after: JSON,
    scalars: list[dict[str, JSON]],
    collections: dict[str, JSON],
) -> None:
    """Append the difference for one top-level key to ``scalars`` or ``collections``."""
    both_maps = isinstance(before, Mapping) and isinstance(after, Mapping)
    both_lists = isinstance(before, list) and isinstance(after, list)
    if both_maps or both_lists:
        old, new = _keyed(before), _keyed(after)
        added = [k for k in new if k not in old]
        removed = [k for k in old if k not in new]
        changed = [k for k in old if k in new and canonical(old[k]) != canonical(new[k])]
        if added or removed or changed:
            collections[field] = {"added": added, "removed": removed, "changed": changed}
        return
    if before is ABSENT and after is ABSENT:
        return
    if before is ABSENT:
        change = "added"
    elif after is ABSENT:
        change = "removed"
    elif canonical(before) != canonical(after):
        change = "changed"
    else:
        return
    scalars.append(
        {
            "field": field,
            "from": None if before is ABSENT else copy.deepcopy(before),
            "to": None if after is ABSENT else copy.deepcopy(after),
            "change": change,
        }
    )


def diff_states(before: JSON, after: JSON) -> dict[str, JSON]:
    """The full diff of two states (used when the world cannot be journaled)."""
    scalars: list[dict[str, JSON]] = []
    collections: dict[str, JSON] = {}
    old = before if isinstance(before, Mapping) else {}
    new = after if isinstance(after, Mapping) else {}
    for key in new:
        diff_value(key, old.get(key, ABSENT), new[key], scalars, collections)
    for key in old:
        if key not in new:
            diff_value(key, old[key], ABSENT, scalars, collections)
    return {"scalars": scalars, "collections": collections}
