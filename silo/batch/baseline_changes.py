"""Field-level drift lines: how a rerun's ``state-changes.json`` differs from its golden.

Contract: :func:`explain_changes` compares two ``state-changes.json`` documents (the golden's
text and the rerun's value) field by field and returns short lines a CI log can show, in the
rerun's order, then the golden's leftovers::

    opportunities.OPP-005.stageEnteredOn: "2026-02-10" -> "2026-03-16"
    contacts.CON-003.email: "a@x.example" -> "b@x.example" (not changed in the golden)
    auditLog.AUD-0003: added row (not in the golden)
    accounts.ACC-002.tier: no longer changed (golden: "smb" -> "mid")

A field both documents change shows the golden's value written, then the rerun's; a field only
the rerun changes shows what it was and what it became. Values are JSON, cut to a readable
length; past ``limit`` lines the rest are counted.
"""

from __future__ import annotations

import json
from typing import Any

from silo.json_types import JSON

__all__ = ["explain_changes"]

_MAX_VALUE = 80
Where = tuple[Any, Any, Any, str]  # collection, row key, occurrence, field path


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 3] + "..."


def _label(where: Where) -> str:
    collection, key, occurrence, path = where
    parts = [str(p) for p in (collection, key) if p is not None]
    if occurrence is not None:
        parts[-1] += f"#{occurrence}"
    name = ".".join(parts)
    return f"{name}.{path}" if path else name


def _rows(document: Any) -> dict[Where, dict[str, JSON]]:
    """Each change of a document by (collection, key, occurrence), fields by path."""
    rows: dict[Where, dict[str, JSON]] = {}
    changes = document.get("changes", []) if isinstance(document, dict) else []
    for change in changes:
        where = (change.get("collection"), change.get("key"), change.get("occurrence"), "")
        rows[where] = change
    return rows


def _fields(change: dict[str, JSON]) -> dict[str, tuple[Any, Any]]:
    return {f["path"]: (f["before"], f["after"]) for f in change.get("fields", [])}


def _short(ref: str) -> str:
    """``ref`` without its article, for ``(golden: …)`` notes."""
    return ref.removeprefix("the ")


def _row_lines(
    where: Where, old: dict[str, JSON] | None, new: dict[str, JSON], ref: str = "the golden"
) -> list[str]:
    """The lines of one row the rerun changes (``old`` None: the golden leaves it alone)."""
    whole_row = new.get("change") in ("added", "removed")
    if whole_row and (old is None or old.get("change") != new.get("change")):
        note = f"not in {ref}" if old is None else f"{_short(ref)}: {old.get('change')}"
        return [f"{_label(where)}: {new['change']} row ({note})"]
    old_fields = {} if old is None else _fields(old)
    lines = []
    for path, (before, after) in _fields(new).items():
        spot = _label((*where[:3], path))
        if path not in old_fields:
            lines.append(f"{spot}: {_show(before)} -> {_show(after)} (not changed in {ref})")
        elif old_fields[path] != (before, after):
            golden_after = old_fields[path][1]
            if golden_after == after:  # same result from a different starting value
                lines.append(f"{spot}: was {_show(old_fields[path][0])}, now {_show(before)}")
            else:
                lines.append(f"{spot}: {_show(golden_after)} -> {_show(after)}")
    for path, (before, after) in old_fields.items():
        if path not in _fields(new):
            spot = _label((*where[:3], path))
            lines.append(
                f"{spot}: no longer changed ({_short(ref)}: {_show(before)} -> {_show(after)})"
            )
    return lines


def explain_changes(old: Any, new: Any, limit: int = 40, ref: str = "the golden") -> list[str]:
    """Field-level lines for how ``new`` differs from the golden document ``old``.

    ``ref`` names ``old`` in the lines (``silo-compare`` calls it ``A``).
    """
    old_rows, new_rows = _rows(old), _rows(new)
    lines: list[str] = []
    for where, change in new_rows.items():
        lines.extend(_row_lines(where, old_rows.get(where), change, ref))
    for where, change in old_rows.items():
        if where not in new_rows:
            lines.append(f"{_label(where)}: no longer {change.get('change')} ({_short(ref)} only)")
    old_omitted = old.get("omittedChanges", 0) if isinstance(old, dict) else 0
    new_omitted = new.get("omittedChanges", 0) if isinstance(new, dict) else 0
    if old_omitted != new_omitted:
        lines.append(f"omittedChanges: {old_omitted} -> {new_omitted}")
    if len(lines) > limit:
        lines[limit:] = [f"... and {len(lines) - limit} more changed fields"]
    return lines
