"""What ``silo-compare`` adds beside its cells: templates pooled, and judged items.

Contract: :func:`compare_templates` pools each side's instance rows (``TASK-010#3``) per
environment × template × agent (:func:`silo.batch.template_rows.template_rows`) and pairs
them: ``{"environment", "template", "agent", "instances": [ids on either side, in order],
"a", "b", "delta"}``, where ``a``/``b`` are the pooled rows (None on a side without the
template) and ``delta`` B − A of ``passRate``, ``meanReward`` and, when both sides were judged,
``judgedPassRate`` (None when a side lacks one). The instances stay cells of their own, which
is the drill-down. :func:`judged_delta` is the B − A of two rows' judged pass rates; judged
items never change a cell's status, which the checks alone decide.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from silo.artifacts.documents import SummaryRow
from silo.batch.template_rows import template_rows

__all__ = ["compare_templates", "judged_delta"]


def judged_delta(row_a: Mapping[str, Any] | None, row_b: Mapping[str, Any] | None) -> float | None:
    """B − A of the rows' judged pass rates; None unless both sides graded judged items."""
    a, b = (((row or {}).get("judged") or {}).get("passRate") for row in (row_a, row_b))
    if not isinstance(a, int | float) or not isinstance(b, int | float):
        return None
    return round(b - a, 4)


def _delta(a: Mapping[str, Any], b: Mapping[str, Any], key: str) -> float | None:
    x, y = a.get(key), b.get(key)
    return round(y - x, 4) if isinstance(x, int | float) and isinstance(y, int | float) else None


def compare_templates(
    rows_a: Iterable[SummaryRow], rows_b: Iterable[SummaryRow]
) -> list[dict[str, Any]]:
    """Each side's template rows, paired (see the module docstring); [] without templates."""
    listed_a, listed_b = list(rows_a), list(rows_b)
    by_key: dict[tuple[str, str, str], dict[str, Any]] = {}
    for side, rows in (("a", listed_a), ("b", listed_b)):
        for pooled in template_rows(rows):
            key = (pooled["environment"], pooled["template"], pooled["agent"])
            entry = by_key.setdefault(key, {"a": None, "b": None})
            entry[side] = pooled
    compared = []
    for (env, template, agent), entry in sorted(by_key.items()):
        instances = dict.fromkeys(
            row["task"]
            for row in (*listed_a, *listed_b)
            if row["environment"] == env
            and row["agent"] == agent
            and row["task"].partition("#")[0] == template
            and "#" in row["task"]
        )
        a, b = entry["a"], entry["b"]
        delta = None
        if a is not None and b is not None:
            delta = {key: _delta(a, b, key) for key in ("passRate", "meanReward")}
            delta["judgedPassRate"] = judged_delta(a, b)
        compared.append(
            {
                "environment": env,
                "template": template,
                "agent": agent,
                "instances": list(instances),
                "a": a,
                "b": b,
                "delta": delta,
            }
        )
    return compared
