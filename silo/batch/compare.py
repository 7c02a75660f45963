"""Run-vs-run comparison: what changed between two groups of rollouts.

Contract: :func:`compare` takes two sides, A (the reference) and B (the candidate), each a
group or sweep folder (its rollouts at any depth plus ``resumed.jsonl``, read with
:func:`silo.batch.summary.load_group`) or a single run folder, given as a path or as a folder name
under the project's ``.silo/runs/`` (:func:`resolve_folder`; a folder that does not exist or
holds no finished Silo rollout raises :class:`~silo.errors.SiloError` with the fix). It returns a
:class:`Comparison`, printing nothing:

- ``cells``: one per environment × task × agent present on either side (the agent named by
  :func:`silo.batch.summary.agent_name`: its label and, for model agents, the model and
  settings that answered, so two models are two cells), sorted, with the
  ``summary.json`` row of each side (``a``/``b``, ``None`` where absent), ``delta`` (B − A of
  rollouts, runs, passRate, meanReward, meanToolCalls, model and environment errors, and
  estimatedCost when both rows have one; ``None`` for a rate that a side has no graded rollout
  for) and a ``status``: ``regression`` (every graded A run passed, every graded B run failed),
  ``fix`` (the reverse), ``worse``/``better`` (the pass rate otherwise dropped/rose),
  ``changed`` (the same pass rate, but a single-run cell whose result, state diff or
  field-level state changes differ), ``same``, ``notGraded`` (a side has no graded rollout: its
  environment or endpoint failed every one; see :mod:`silo.batch.outcomes`), ``onlyA`` or
  ``onlyB``. Rates count graded rollouts only, as ``summary.json`` does.
- ``detail`` on a cell with exactly one run on each side whose ``result.json``, state diff or
  ``state-changes.json`` differs (equal results: only ``stateDiff`` and ``stateChanges``):
  ``checks`` whose outcome differs, by label (``a``/``b`` are true, false, or ``None`` where
  the check is absent), ``resultFields`` (the other top-level result keys that differ) and
  ``stateDiff``, the state-diff entries that differ: ``{path, onlyA, onlyB}`` with ``path``
  ``<collection>.<added|removed|changed>`` (row ids) or ``scalars`` (fields); ``None`` when a
  side has no ``state-diff.json``, ``[]`` when both diffs are equal; and ``stateChanges``, the
  field-level lines of :func:`silo.batch.baseline_changes.explain_changes` (A as the golden,
  e.g. ``opportunities.OPP-005.stageEnteredOn: "2026-02-10" -> "2026-03-16"``, or
  ``tickets.T-1.assignee: "ana" -> null (not changed in A)``), ``None``
  when a side has no ``state-changes.json``; and, when either run talked to a simulated user,
  ``conversation`` (:func:`conversation_changes`: each side's messages as ``role: text`` lines
  and ``firstDifference``, the index of the first message that differs or ``None``).
- ``agents``: per agent, its ``summary.json`` agent row on each side and, for every k both
  sides have, ``passHatK[k] = {a, b, delta}``.
- ``templates``: a template's instances pooled per side, paired
  (:mod:`silo.batch.compare_pooled`); in the JSON only when a side ran instances. A row's
  ``judged`` items (``summary.json``'s) come along in ``a``/``b``, with ``judgedPassRate`` in
  ``delta`` when both sides were judged; they never decide a status.

A cell *regressed* when its pass rate dropped (``regression`` or ``worse``); cells only in A
are listed but are not regressions. Numbers are rounded like ``summary.json``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from silo.artifacts.documents import (
    AgentSummaryRow,
    CheckDocument,
    StateDiffDocument,
    SummaryRow,
    read_document,
)
from silo.batch.baseline_changes import explain_changes
from silo.batch.compare_pooled import compare_templates, judged_delta
from silo.batch.outcomes import OUTCOMES, PASSED
from silo.batch.summary import Rollout, agent_rows, cell_row, group_cells, load_group, load_rollout
from silo.errors import ArtifactError
from silo.json_types import JSON
from silo.safe_files import UnreadableFile, read_text_file

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparison

__all__ = [
    "STATUSES",
    "Comparison",
    "Side",
    "compare",
    "load_side",
    "resolve_folder",
    "conversation_changes",
    "conversation_line",
    "run_detail",
    "state_diff_changes",
]

STATUSES = (
    "regression",
    "fix",
    "worse",
    "better",
    "changed",
    "same",
    "notGraded",
    "onlyA",
    "onlyB",
)
_DELTAS = {  # key: decimals
    "rollouts": 0,
    "runs": 0,
    "passRate": 4,
    "meanReward": 4,
    "meanToolCalls": 2,
    "modelErrors": 0,
    "environmentErrors": 0,
}
_RUN_KEYS = ("environment", "taskId")
_RESULT_KEYS = ("passed", "reward", "toolCalls", "terminationReason")
_Cell = tuple[str, str, str]
_K = TypeVar("_K", bound="SupportsRichComparison")  # cell tuples, agents, labels
_V = TypeVar("_V")


@dataclass(frozen=True)
class Side:
    """One side of a comparison: the rollouts of a group folder or of one run folder."""

    name: str
    folder: Path
    kind: str  # "group" or "run"
    rollouts: list[Rollout] = field(repr=False)

    def counts(self) -> dict[str, int]:
        """The side's rollouts by outcome (see :mod:`silo.batch.outcomes`)."""
        counts = dict.fromkeys(OUTCOMES, 0)
        for rollout in self.rollouts:
            counts[rollout.outcome[0]] += 1
        return counts

    def to_json(self) -> dict[str, JSON]:
        """The side as ``silo-compare --json`` prints it: where, what kind, its outcomes."""
        counts = self.counts()
        return {
            "name": self.name,
            "folder": str(self.folder),
            "kind": self.kind,
            "rollouts": len(self.rollouts),
            "passed": counts[PASSED],
            "outcomes": counts,
        }


@dataclass(frozen=True)
class Comparison:
    """Two sides compared: per-cell statuses and deltas, and per-agent pass^k (see above)."""

    a: Side
    b: Side
    cells: list[dict[str, JSON]]
    agents: list[dict[str, JSON]]
    # templates pooled per side (silo.batch.compare_pooled); empty without instances
    templates: list[dict[str, JSON]] = field(default_factory=list)

    @property
    def regressed(self) -> list[dict[str, JSON]]:
        """The cells whose pass rate dropped from A to B."""
        return [c for c in self.cells if c["status"] in ("regression", "worse")]

    def counts(self) -> dict[str, int]:
        """How many cells have each status, every status listed (zero included)."""
        return {status: sum(1 for c in self.cells if c["status"] == status) for status in STATUSES}

    def to_json(self) -> dict[str, JSON]:
        """The comparison as ``silo-compare --json`` prints it."""
        return {
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "counts": self.counts(),
            "regressed": len(self.regressed),
            "cells": self.cells,
            "agents": self.agents,
            **({"templates": self.templates} if self.templates else {}),
        }


def resolve_folder(spec: str | Path, project_dir: Path) -> Path:
    """``spec`` as a path if that folder exists, else ``<project>/.silo/runs/<spec>``."""
    given = Path(spec).expanduser()
    runs_root = project_dir / ".silo" / "runs"
    for candidate in (given, runs_root / given):
        if candidate.is_dir():
            return candidate
    raise ArtifactError(
        "compare_folder_not_found",
        f'no folder "{spec}" (nor {runs_root / given}); give a run, group or sweep folder, '
        f"as a path or a name under {runs_root}",
    )


def load_side(spec: str | Path, project_dir: Path) -> Side:
    """The rollouts of one side; a folder with none, or with foreign files, is an ArtifactError."""
    folder = resolve_folder(spec, project_dir)
    if (folder / "run.json").is_file():
        rollout = load_rollout(folder)
        kind, rollouts = "run", [rollout] if rollout is not None else []
    else:
        kind, rollouts = "group", load_group(folder)
    for rollout in rollouts:
        missing = [k for k in _RUN_KEYS if k not in rollout.run]
        missing += [k for k in _RESULT_KEYS if k not in rollout.result]
        if missing:
            raise ArtifactError(
                "compare_bad_rollout",
                f"{rollout.folder} is not a Silo rollout (no {', '.join(missing)} in its "
                "run.json/result.json); give folders written by silo-run",
            )
    if not rollouts:
        raise ArtifactError(
            "compare_no_rollouts",
            f"{folder} holds no finished rollout (no run.json + result.json in it or in its "
            "subfolders); give a .silo/runs/<runId>, group_* or sweep_* folder",
        )
    return Side(str(spec), folder, kind, rollouts)


def compare(a: str | Path, b: str | Path, project_dir: Path) -> Comparison:
    """Compare the rollouts of ``a`` (reference) with those of ``b`` (candidate)."""
    side_a, side_b = load_side(a, project_dir), load_side(b, project_dir)
    cells_a, cells_b = group_cells(side_a.rollouts), group_cells(side_b.rollouts)
    rows_a = {cell: cell_row(cell, items) for cell, items in cells_a.items()}
    rows_b = {cell: cell_row(cell, items) for cell, items in cells_b.items()}
    cells = []
    for cell, row_a, row_b in _pair(rows_a, rows_b, ordered=True):
        entry = _compare_cell(cell, row_a, row_b)
        items_a, items_b = cells_a.get(cell, []), cells_b.get(cell, [])
        if len(items_a) == 1 and len(items_b) == 1:
            entry["detail"] = run_detail(items_a[0], items_b[0])
            if entry["status"] == "same" and entry["detail"] is not None:
                entry["status"] = "changed"  # the same verdicts, another result or world
        cells.append(entry)
    agents = _compare_agents(agent_rows(list(rows_a.values())), agent_rows(list(rows_b.values())))
    templates = compare_templates(rows_a.values(), rows_b.values())
    return Comparison(side_a, side_b, cells, agents, templates)


def _pair(
    by_a: Mapping[_K, _V], by_b: Mapping[_K, _V], *, ordered: bool = False
) -> list[tuple[_K, _V | None, _V | None]]:
    """Every key of either side with its value on each side, sorted or A's order then B's."""
    keys: Iterable[_K] = (
        sorted(by_a.keys() | by_b.keys()) if ordered else dict.fromkeys([*by_a, *by_b])
    )
    return [(key, by_a.get(key), by_b.get(key)) for key in keys]


def _pair_by(
    key: str,
    rows_a: Sequence[Mapping[str, JSON]],
    rows_b: Sequence[Mapping[str, JSON]],
    *,
    ordered: bool = False,
) -> list[tuple[Any, Mapping[str, JSON] | None, Mapping[str, JSON] | None]]:
    """:func:`_pair` over rows named by their ``key`` field."""
    by_a = {row[key]: row for row in rows_a}
    return _pair(by_a, {row[key]: row for row in rows_b}, ordered=ordered)


def _status(row_a: SummaryRow | None, row_b: SummaryRow | None) -> str:
    if row_a is None or row_b is None:
        return "onlyB" if row_a is None else "onlyA"
    rate_a, rate_b = row_a["passRate"], row_b["passRate"]
    if rate_a is None or rate_b is None:
        return "notGraded"
    if rate_a == 1 and rate_b == 0:
        return "regression"
    if rate_a == 0 and rate_b == 1:
        return "fix"
    if rate_a == rate_b:
        return "same"
    return "worse" if rate_b < rate_a else "better"


def _compare_cell(
    cell: _Cell, row_a: SummaryRow | None, row_b: SummaryRow | None
) -> dict[str, JSON]:
    env, task, agent = cell
    delta = None
    if row_a is not None and row_b is not None:
        delta = {key: _delta(row_a, row_b, key, places) for key, places in _DELTAS.items()}
        if "estimatedCost" in row_a and "estimatedCost" in row_b:  # both sides priced
            delta["estimatedCost"] = round(row_b["estimatedCost"] - row_a["estimatedCost"], 6)
        judged = judged_delta(row_a, row_b)
        if judged is not None:  # both sides judged: beside the checks, never in the status
            delta["judgedPassRate"] = judged
    return {
        "environment": env,
        "task": task,
        "agent": agent,
        "status": _status(row_a, row_b),
        "a": row_a,
        "b": row_b,
        "delta": delta,
        "detail": None,
    }


def _delta(row_a: SummaryRow, row_b: SummaryRow, key: str, places: int) -> float | None:
    """B − A of one row field, rounded; ``None`` when a side has no value (nothing graded)."""
    a, b = row_a.get(key), row_b.get(key)
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return None
    return round(b - a, places)


def _compare_agents(
    agents_a: list[AgentSummaryRow], agents_b: list[AgentSummaryRow]
) -> list[dict[str, JSON]]:
    compared = []
    for agent, row_a, row_b in _pair_by("agent", agents_a, agents_b, ordered=True):
        pass_hat_k = {}
        if row_a is not None and row_b is not None:
            pairs = _pair(row_a["passHatK"], row_b["passHatK"])
            pass_hat_k = {
                k: {"a": a, "b": b, "delta": round(b - a, 4)}
                for k, a, b in pairs
                if a is not None and b is not None
            }
        compared.append({"agent": agent, "a": row_a, "b": row_b, "passHatK": pass_hat_k})
    return compared


def run_detail(a: Rollout, b: Rollout) -> dict[str, JSON] | None:
    """How one rollout's result and world differ from another's; ``None`` when equal.

    Equal results are not enough: a tool that also changes a field no check reads (a
    ``close_ticket`` that clears the assignee) shows only in ``state-changes.json``.
    """
    if a.result == b.result:
        fields = _field_changes(a.folder, b.folder)
        diff = state_diff_changes(_read_diff(a.folder), _read_diff(b.folder))
        if not fields and not diff:
            return None
        return {"checks": [], "resultFields": [], "stateDiff": diff, "stateChanges": fields}
    detail: dict[str, JSON] = {
        "checks": _flipped_checks(a.result.get("checks", []), b.result.get("checks", [])),
        "resultFields": [
            key
            for key in dict.fromkeys([*a.result, *b.result])
            if key != "checks" and a.result.get(key) != b.result.get(key)
        ],
        "stateDiff": state_diff_changes(_read_diff(a.folder), _read_diff(b.folder)),
        "stateChanges": _field_changes(a.folder, b.folder),
    }
    talk = conversation_changes(a.folder, b.folder)
    if talk is not None:
        detail["conversation"] = talk
    return detail


def _messages(folder: Path) -> list[str]:
    """A run's conversation as ``role: text`` lines, from its trace (empty without one)."""
    try:
        lines = read_text_file(folder / "trace.jsonl", follow=False).splitlines()
    except UnreadableFile:
        return []
    said = []
    for line in lines:
        if '"user_message"' not in line:
            continue
        try:
            event = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(event, dict) and event.get("type") == "user_message":
            said.append(f"{event.get('role')}: {event.get('text')}")
    return said


def conversation_changes(folder_a: Path, folder_b: Path) -> dict[str, JSON] | None:
    """Both runs' conversations and where they first differ; None when neither has one."""
    a, b = _messages(folder_a), _messages(folder_b)
    if not a and not b:
        return None
    first = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
    if first is None and len(a) != len(b):
        first = min(len(a), len(b))
    return {"a": a, "b": b, "firstDifference": first}


def conversation_line(talk: Mapping[str, JSON]) -> str:
    """One line for a report: the conversations are the same, or where and how they part."""
    a, b, first = list(talk["a"]), list(talk["b"]), talk["firstDifference"]
    if first is None:
        return f"conversation: the same {len(a)} messages"
    shown = [side[first] if first < len(side) else "(no message)" for side in (a, b)]
    return f"conversation differs at message {first}: A {shown[0]!r} | B {shown[1]!r}"


def _field_changes(folder_a: Path, folder_b: Path) -> list[str] | None:
    """The field-level lines between two runs' ``state-changes.json``; None if one lacks it."""
    found = [_read_changes(folder) for folder in (folder_a, folder_b)]
    if found[0] is None or found[1] is None:
        return None
    return explain_changes(found[0], found[1], ref="A")


def _flipped_checks(
    checks_a: list[CheckDocument], checks_b: list[CheckDocument]
) -> list[dict[str, JSON]]:
    flipped = []
    for label, check_a, check_b in _pair_by("label", checks_a, checks_b):
        passed_a = None if check_a is None else check_a["passed"]
        passed_b = None if check_b is None else check_b["passed"]
        if passed_a != passed_b:
            required = (check_a or check_b or {}).get("required", True)
            flipped.append({"label": label, "a": passed_a, "b": passed_b, "required": required})
    return flipped


def _read_diff(folder: Path) -> StateDiffDocument | None:
    try:
        return read_document(folder / "state-diff.json", StateDiffDocument)
    except (OSError, json.JSONDecodeError):
        return None


def _read_changes(folder: Path) -> dict[str, JSON] | None:
    try:
        changes: dict[str, JSON] = read_document(folder / "state-changes.json", dict)
    except (OSError, json.JSONDecodeError):
        return None
    return changes


def _diff_entries(diff: StateDiffDocument) -> dict[str, list[JSON]]:
    """A state diff as ``{"<collection>.<kind>": [row ids], "scalars": [scalar entries]}``."""
    entries: dict[str, list[JSON]] = {}
    for name, kinds in diff.get("collections", {}).items():
        rows: Mapping[str, list[str]] = cast(Mapping[str, list[str]], kinds)  # a file may lack one
        for kind in ("added", "removed", "changed"):
            entries[f"{name}.{kind}"] = list(rows.get(kind, []))
    entries["scalars"] = list(diff.get("scalars", []))
    return entries


def state_diff_changes(
    diff_a: StateDiffDocument | None, diff_b: StateDiffDocument | None
) -> list[dict[str, JSON]] | None:
    """The entries that differ between two ``state-diff.json`` documents (see the contract)."""
    if diff_a is None or diff_b is None:
        return None
    entries_a, entries_b = _diff_entries(diff_a), _diff_entries(diff_b)
    changes = []
    for path, found_a, found_b in _pair(entries_a, entries_b):
        rows_a, rows_b = found_a or [], found_b or []
        only_a = [row for row in rows_a if row not in rows_b]
        only_b = [row for row in rows_b if row not in rows_a]
        if path == "scalars":  # whole entries compared; their fields reported
            only_a = [entry.get("field") for entry in only_a]
            only_b = [entry.get("field") for entry in only_b]
        if only_a or only_b:
            changes.append({"path": path, "onlyA": only_a, "onlyB": only_b})
    return changes
