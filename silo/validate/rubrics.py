"""Rubrics and combined-reward formulas, checked before any judge reads them.

Contract: :func:`check_rubrics` reports, as ``task_invalid`` errors, every task whose
``rubric`` or ``combinedReward`` (its own, else the manifest's) a judged run would refuse, in
the judge's own words (:func:`silo.judges.rubric_items`, :func:`silo.judges.reward.combined_formula`),
each distinct line once. Without it a malformed rubric validated clean and broke only the first
``silo-run judge=...``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from silo.errors import SiloError
from silo.judges.reward import combined_formula
from silo.judges.rubric import rubric_items
from silo.loading.definition import Manifest
from silo.loading.environment import MANIFEST
from silo.tasks import Task
from silo.validate.static import short_paths

if TYPE_CHECKING:
    from silo.validate.report import Report

__all__ = ["check_rubrics"]


def check_rubrics(tasks: Iterable[Task], manifest: Manifest, root: Path, report: Report) -> None:
    """Report each task's rubric or formula that a judge would refuse (``task_invalid``)."""
    manifest_file = str(root / MANIFEST)
    lines: list[str] = []
    for task in tasks:
        try:
            rubric_items(task)
        except SiloError as exc:
            lines.append(exc.message)
        try:
            combined_formula(task, manifest.combined_reward, manifest_file)
        except SiloError as exc:
            lines.append(exc.message)
    for line in dict.fromkeys(lines):  # the manifest's formula, wrong for every task: once
        report.error("task_invalid", short_paths(line, root))
