"""Judged items in summaries: the ``judgement.json`` of a row's runs, counted apart from checks.

Contract: :func:`read_judgement` reads a run folder's ``judgement.json`` (None when the run was
not judged or the file is unreadable). :func:`judged_summary` sums the judgements of one task ×
agent's runs into the row's ``judged`` (:class:`~silo.artifacts.documents.JudgedSummary`):
``runs`` judged, item verdicts ``passed``/``failed``/``abstained``, ``passRate`` (passed over
passed + failed, None when no item was graded), ``judgeErrors`` (runs a judge failed on) and,
when the task declares one, ``meanCombinedReward``; None when no run of the row was judged, so
an unjudged group's ``summary.json`` keeps its bytes. :func:`pooled_judged` adds rows'
``judged`` together (a template's instances). :func:`judged_lines` are the lines a table
prints under its rows, never inside the checks' columns. Judging never changes a pass rate,
reward or pass^k.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from silo.artifacts.documents import JudgedSummary

__all__ = ["judged_lines", "judged_summary", "judged_text", "pooled_judged", "read_judgement"]


def read_judgement(folder: Path) -> dict[str, Any] | None:
    """The run's ``judgement.json``, or None."""
    try:
        found = json.loads((folder / "judgement.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def judged_summary(judgements: Iterable[Mapping[str, Any] | None]) -> JudgedSummary | None:
    """The ``judged`` counts of one row's runs (see the module docstring)."""
    found = [j for j in judgements if j is not None]
    if not found:
        return None
    combined = [
        j["combinedReward"]["reward"]
        for j in found
        if isinstance(j.get("combinedReward"), Mapping)
        and isinstance(j["combinedReward"].get("reward"), int | float)
    ]
    summary: JudgedSummary = {
        "runs": len(found),
        "passed": sum(int(j.get("passed", 0)) for j in found),
        "failed": sum(int(j.get("failed", 0)) for j in found),
        "abstained": sum(int(j.get("abstained", 0)) for j in found),
        "judgeErrors": sum(1 for j in found if j.get("judgeErrors")),
        "passRate": None,
    }
    _rate(summary)
    if combined:
        summary["meanCombinedReward"] = round(sum(combined) / len(combined), 4)
    return summary


def _rate(summary: JudgedSummary) -> None:
    graded = summary["passed"] + summary["failed"]
    summary["passRate"] = round(summary["passed"] / graded, 4) if graded else None


def pooled_judged(parts: Iterable[JudgedSummary | None]) -> JudgedSummary | None:
    """Several rows' ``judged`` added together; the combined reward averaged over their runs."""
    found = [p for p in parts if p is not None]
    if not found:
        return None
    pooled: JudgedSummary = {
        "runs": sum(p["runs"] for p in found),
        "passed": sum(p["passed"] for p in found),
        "failed": sum(p["failed"] for p in found),
        "abstained": sum(p["abstained"] for p in found),
        "judgeErrors": sum(p["judgeErrors"] for p in found),
        "passRate": None,
    }
    _rate(pooled)
    weighted = [(p["meanCombinedReward"], p["runs"]) for p in found if "meanCombinedReward" in p]
    if weighted:
        total = sum(n for _, n in weighted)
        pooled["meanCombinedReward"] = round(sum(v * n for v, n in weighted) / total, 4)
    return pooled


def judged_text(judged: Mapping[str, Any]) -> str:
    """``2 pass, 0 fail, 0 abstain over 1 run(s)``, the judge errors and combined reward after."""
    text = (
        f"{judged['passed']} pass, {judged['failed']} fail, {judged['abstained']} abstain over "
        f"{judged['runs']} run(s)"
    )
    if judged.get("judgeErrors"):
        text += f", {judged['judgeErrors']} with a judge error"
    if "meanCombinedReward" in judged:
        text += f", combined reward {judged['meanCombinedReward']:.2f}"
    return text


def judged_lines(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """One line per judged row: ``judged TASK-007 solver: 2 pass, ...`` (apart from checks)."""
    lines = [
        f"  {row['task']} {row['agent']}: {judged_text(row['judged'])}"
        for row in rows
        if row.get("judged")
    ]
    return ["judged items (apart from the checks):", *lines] if lines else []
