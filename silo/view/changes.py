"""Field-level changes of a run (``state-changes.json``) as HTML.

Contract: :func:`read_changes` reads the optional fifth artifact, a JSON list of
``{"collection", "key", "change": "added|removed|changed", "fields": [{"path", "before",
"after"}]}``; it returns ``None`` when the file is absent and a list of the well-formed entries
otherwise (extra keys ignored, a damaged file adds a sentence to ``problems``).
:func:`changes_table` renders one table row per changed field — collection, row key, change,
field path, before and after — so a reader sees *which* fields of ``LN-001`` changed, not only
that it did. Every value is escaped.
"""

from __future__ import annotations

from pathlib import Path

from silo.artifacts.run_reader import optional_json
from silo.json_types import JSON
from silo.view.html import esc, json_block, records, table

__all__ = ["CHANGES_FILE", "changes_table", "read_changes"]

CHANGES_FILE = "state-changes.json"
_SIGN = {"added": ("add", "+"), "removed": ("rem", "-"), "changed": ("chg", "~")}


def read_changes(folder: Path, problems: list[str]) -> list[dict[str, JSON]] | None:
    """The entries of ``folder/state-changes.json``; ``None`` when the run has none."""
    path = folder / CHANGES_FILE
    if not path.exists():
        return None
    value = optional_json(path, problems)
    if isinstance(value, dict):  # a future typed document wrapping the list
        value = value.get("changes")
    if not isinstance(value, list):
        if value is not None:  # else optional_json said why
            problems.append(f"{CHANGES_FILE} is not a list of changes")
        return []
    return records(value)


def changes_table(changes: list[dict[str, JSON]]) -> str:
    """One row per changed field (a row added or removed whole is one row with no field)."""
    if not changes:
        return '<p class="muted">No field changed: the agent only read the world.</p>'
    rows = []
    for entry in changes:
        change = str(entry.get("change", "changed"))
        css, sign = _SIGN.get(change, ("chg", "~"))
        key = f'<span class="ids"><span class="{css}">{esc(sign)}{esc(entry.get("key", "?"))}</span></span>'
        head = [f"<code>{esc(entry.get('collection', '?'))}</code>", key, esc(change)]
        fields = records(entry.get("fields"))
        if not fields:
            rows.append([*head, "", "", ""])
        for item in fields:
            rows.append(
                [
                    *head,
                    f"<code>{esc(item.get('path', ''))}</code>",
                    json_block(item.get("before")),
                    json_block(item.get("after")),
                ]
            )
    return table(["collection", "key", "change", "field", "before", "after"], rows)
