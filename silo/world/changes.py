"""The ``state-changes.json`` algorithm: field-level changes of the rows a rollout touched.

Contract: :func:`state_changes` takes the initial state (the journal's view, sharing untouched
values), the final state and the run's ``state-diff.json`` document, and returns
``{"changes": [...], "omittedChanges": n}``. Each change is ``{collection, key, change,
fields}`` with ``change`` ``added``, ``removed`` or ``changed``; ``fields`` lists ``{path,
before, after}`` for every leaf that differs (dict keys joined by ``.``, list positions as
``[i]``; an added or removed row lists each of its fields, the absent side ``null``). A top-level
scalar key is a change with ``collection`` null and the key's name as ``key``. Duplicate ids in
an array are not collapsed: every occurrence is paired with the same occurrence on the other
side and carries ``occurrence`` (0-based) and ``duplicates`` (``{before, after}`` counts). A
value whose JSON text exceeds :data:`MAX_VALUE_CHARS` becomes ``{"truncated": chars, "sha256":
hex, "head": first characters}``; past :data:`MAX_CHANGES` changes the rest are counted in
``omittedChanges``. Cost: a top-level value that is the same object on both sides is skipped
without looking inside (top-level values are read as stored, so a copy-on-write world's
untouched values stay shared with its base), and dict rows are found by key, so the work follows what the rollout
touched; a touched array is scanned in full only when it was not merely appended to.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from silo.json_types import JSON
from silo.jsonio import canonical, exact_loads
from silo.world.diff import ABSENT, row_keys

__all__ = ["MAX_CHANGES", "MAX_VALUE_CHARS", "state_changes"]

MAX_VALUE_CHARS = 2000
"""A before/after value longer than this (as compact JSON) is replaced by a truncation marker."""

MAX_CHANGES = 5000
"""Changes listed in one document; the rest are counted in ``omittedChanges``."""

_HEAD_CHARS = 200


def _bounded(value: JSON) -> JSON:
    if value is ABSENT:
        return None
    if isinstance(value, str) and len(value) <= MAX_VALUE_CHARS // 6:
        return value  # short enough even if every character were escaped
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = canonical(value)
    if len(text) <= MAX_VALUE_CHARS:
        return exact_loads(text)  # a plain, detached copy of a tracked value
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return {"truncated": len(text), "sha256": digest, "head": text[:_HEAD_CHARS]}


def _field(path: str, before: JSON, after: JSON) -> dict[str, JSON]:
    return {"path": path, "before": _bounded(before), "after": _bounded(after)}


def _join(path: str, key: JSON) -> str:
    return f"{path}.{key}" if path else str(key)


_SCALARS = (str, int, float, bool, type(None))


def _leaves(path: str, before: JSON, after: JSON, out: list[dict[str, JSON]]) -> None:
    """Append a field for every leaf that differs between ``before`` and ``after``."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key, new in after.items():
            old = before.get(key, ABSENT)
            if old is not new:  # the journal's pre-image shares every untouched value
                _leaves(_join(path, key), old, new, out)
        for key in before:
            if key not in after:
                _leaves(_join(path, key), before[key], ABSENT, out)
        return
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            if old is not new:
                _leaves(f"{path}[{index}]", old, new, out)
        return
    if type(before) is type(after) and isinstance(before, _SCALARS):
        if before == after:
            return
    elif before is not ABSENT and after is not ABSENT and canonical(before) == canonical(after):
        return
    out.append(_field(path, before, after))


def _row_fields(before: JSON, after: JSON) -> list[dict[str, JSON]]:
    """The fields of one row: every field of an added/removed row, else those that differ."""
    fields: list[dict[str, JSON]] = []
    if before is ABSENT or after is ABSENT:
        whole = after if before is ABSENT else before
        if isinstance(whole, Mapping):
            for key, value in whole.items():
                pair = (ABSENT, value) if before is ABSENT else (value, ABSENT)
                fields.append(_field(str(key), *pair))
        else:
            fields.append(_field("", before, after))
        return fields
    _leaves("", before, after, fields)
    return fields


def _occurrences(rows: list[JSON], start: int = 0) -> dict[str, list[JSON]]:
    found: dict[str, list[JSON]] = {}
    for key, row in zip(row_keys(rows, start), rows, strict=True):
        found.setdefault(key, []).append(row)
    return found


class _Collector:
    """The changes found so far, bounded by :data:`MAX_CHANGES`."""

    def __init__(self) -> None:
        self.changes: list[dict[str, JSON]] = []
        self.omitted = 0

    def add(self, collection: JSON, key: JSON, before: JSON, after: JSON, **extra: JSON) -> None:
        if len(self.changes) >= MAX_CHANGES:
            self.omitted += 1
            return
        if before is ABSENT:
            change = "added"
        elif after is ABSENT:
            change = "removed"
        else:
            change = "changed"
        entry = {"collection": collection, "key": key, "change": change, **extra}
        entry["fields"] = _row_fields(before, after)
        self.changes.append(entry)


def _dict_rows(out: _Collector, top: str, before: JSON, after: JSON, entry: JSON) -> None:
    for key in entry["added"]:
        out.add(top, key, ABSENT, after[key])
    for key in entry["removed"]:
        out.add(top, key, before[key], ABSENT)
    for key in entry["changed"]:
        out.add(top, key, before[key], after[key])


def _appended_rows(before: list[JSON], after: list[JSON], entry: JSON) -> list[JSON] | None:
    """The appended rows when the diff says the array was only appended to, else None."""
    if entry is None or entry["removed"] or entry["changed"]:
        return None
    tail = after[len(before) :]
    if len(tail) != len(entry["added"]) or row_keys(tail, len(before)) != entry["added"]:
        return None
    return tail


def _list_rows(
    out: _Collector, top: str, before: list[JSON], after: list[JSON], entry: JSON
) -> None:
    tail = _appended_rows(before, after, entry)
    if tail is not None:
        for key, row in zip(entry["added"], tail, strict=True):
            out.add(top, key, ABSENT, row)
        return
    old, new = _occurrences(before), _occurrences(after)
    order = list(new) + [key for key in old if key not in new]
    for key in order:
        olds, news = old.get(key, []), new.get(key, [])
        duplicated = len(olds) > 1 or len(news) > 1
        for index in range(max(len(olds), len(news))):
            was = olds[index] if index < len(olds) else ABSENT
            now = news[index] if index < len(news) else ABSENT
            if was is not ABSENT and now is not ABSENT and canonical(was) == canonical(now):
                continue
            if duplicated:
                counts = {"before": len(olds), "after": len(news)}
                out.add(top, key, was, now, occurrence=index, duplicates=counts)
            else:
                out.add(top, key, was, now)


def _peek(state: Mapping[str, JSON], top: str) -> JSON:
    """``state[top]`` (ABSENT: none) as stored: a world's view must not copy a value in."""
    return dict.get(state, top, ABSENT) if isinstance(state, dict) else state.get(top, ABSENT)


def state_changes(initial: JSON, final: JSON, state_diff: Mapping[str, JSON]) -> dict[str, JSON]:
    """The ``state-changes.json`` document of a rollout (see the module docstring)."""
    out = _Collector()
    old = initial if isinstance(initial, Mapping) else {}
    new = final if isinstance(final, Mapping) else {}
    collections = state_diff.get("collections", {})
    for top in [*new, *(key for key in old if key not in new)]:
        before, after = _peek(old, top), _peek(new, top)
        if before is after:
            continue  # untouched: the journal's initial view shares the very object
        entry = collections.get(top)
        if isinstance(before, dict) and isinstance(after, dict):
            if entry is not None:
                _dict_rows(out, top, before, after, entry)
        elif isinstance(before, list) and isinstance(after, list):
            _list_rows(out, top, before, after, entry)
        elif before is ABSENT or after is ABSENT or canonical(before) != canonical(after):
            out.add(None, top, before, after)
    return {"changes": out.changes, "omittedChanges": out.omitted}
