"""Summaries of a group of rollouts: pass rates, rewards and pass^k.

Contract: :func:`summarize` reads a group folder (every ``*/run.json`` + ``result.json``, plus
``resumed.jsonl`` and ``infra-errors.jsonl``) and returns the ``summary.json`` document: one row
per task × agent (runs, passes, pass rate, mean reward, mean tool calls, termination reasons,
pass^k for k = 1..n) and one row per agent with pass^k averaged over tasks, using the unbiased
estimator C(c, k) / C(n, k) for c passes out of n trials. Infrastructure failures are counted
apart. Everything is read from disk, so it works the same under any launcher. The steps are
public for :mod:`silo.batch.compare`: :func:`load_group` (the finished rollouts of a group),
:func:`group_cells` (by task × agent), :func:`cell_row` and :func:`agent_rows`.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any, cast

from silo.artifacts.documents import (
    AgentSummaryRow,
    InfraErrorRecord,
    ResultDocument,
    RunDocument,
    SummaryDocument,
    SummaryRow,
    read_document,
)

__all__ = [
    "Rollout",
    "agent_rows",
    "cell_row",
    "format_table",
    "group_cells",
    "load_group",
    "load_rollout",
    "pass_hat_k",
    "summarize",
]


def pass_hat_k(passes: int, trials: int, k: int) -> float:
    """Probability that k trials drawn without replacement from n all pass."""
    if k > trials or trials == 0:
        return 0.0
    return comb(passes, k) / comb(trials, k)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


@dataclass(frozen=True)
class Rollout:
    """One finished rollout read from its folder: ``run.json`` and ``result.json``."""

    folder: Path
    run: RunDocument
    result: ResultDocument
    resumed: bool = False  # listed in the group's resumed.jsonl, its folder elsewhere

    @property
    def cell(self) -> tuple[str, str, str]:
        """The (environment, task, agent) it counts for."""
        return (self.run["environment"], self.run["taskId"], self.run.get("agent") or "?")


def load_rollout(folder: Path, resumed: bool = False) -> Rollout | None:
    """The rollout in ``folder``, or ``None`` when it is unfinished or unreadable."""
    try:
        run = read_document(folder / "run.json", RunDocument)
        result = read_document(folder / "result.json", ResultDocument)
    except (OSError, json.JSONDecodeError):
        return None
    return Rollout(folder, run, result, resumed)


def load_group(group_dir: Path) -> list[Rollout]:
    """Every finished rollout of a group: its ``*/run.json`` folders, then ``resumed.jsonl``."""
    folders = sorted(p.parent for p in group_dir.glob("*/run.json"))
    folders += [Path(r["runDir"]) for r in _read_jsonl(group_dir / "resumed.jsonl")]
    loaded = (load_rollout(folder, folder.parent != group_dir) for folder in folders)
    return [rollout for rollout in loaded if rollout is not None]


def group_cells(rollouts: list[Rollout]) -> dict[tuple[str, str, str], list[Rollout]]:
    """The rollouts by (environment, task, agent), in sorted order."""
    cells: dict[tuple[str, str, str], list[Rollout]] = defaultdict(list)
    for rollout in rollouts:
        cells[rollout.cell].append(rollout)
    return dict(sorted(cells.items()))


def cell_row(cell: tuple[str, str, str], items: list[Rollout]) -> SummaryRow:
    """The ``summary.json`` row of one task × agent."""
    env, task, agent = cell
    n = len(items)
    c = sum(1 for r in items if r.result["passed"])
    reasons: dict[str, int] = defaultdict(int)
    for r in items:
        reasons[r.result["terminationReason"]] += 1
    return {
        "environment": env,
        "task": task,
        "agent": agent,
        "runs": n,
        "passes": c,
        "passRate": round(c / n, 4),
        "meanReward": round(sum(r.result["reward"] for r in items) / n, 4),
        "meanToolCalls": round(sum(r.result["toolCalls"] for r in items) / n, 2),
        "terminationReasons": dict(sorted(reasons.items())),
        "resumed": sum(1 for r in items if r.resumed),
        "passHatK": {str(k): round(pass_hat_k(c, n, k), 4) for k in range(1, n + 1)},
    }


def agent_rows(rows: list[SummaryRow]) -> list[AgentSummaryRow]:
    """Per agent: tasks, runs, passes and pass^k averaged over its tasks (k up to its fewest runs)."""
    agents: list[AgentSummaryRow] = []
    for agent in sorted({row["agent"] for row in rows}):
        mine = [row for row in rows if row["agent"] == agent]
        k_max = min(row["runs"] for row in mine)
        agents.append(
            {
                "agent": agent,
                "tasks": len(mine),
                "runs": sum(r["runs"] for r in mine),
                "passes": sum(r["passes"] for r in mine),
                "passHatK": {
                    str(k): round(
                        sum(pass_hat_k(r["passes"], r["runs"], k) for r in mine) / len(mine), 4
                    )
                    for k in range(1, k_max + 1)
                },
            }
        )
    return agents


def summarize(group_dir: Path) -> SummaryDocument:
    """The ``summary.json`` document of ``group_dir`` (see the module docstring)."""
    graded = [r for r in load_group(group_dir) if not r.run.get("environmentError")]
    rows = [cell_row(cell, items) for cell, items in group_cells(graded).items()]
    agents = agent_rows(rows)
    infra = cast(list[InfraErrorRecord], _read_jsonl(group_dir / "infra-errors.jsonl"))
    total = sum(row["runs"] for row in rows)
    return {
        "group": group_dir.name,
        "rollouts": total,
        "passed": sum(r["passes"] for r in rows),
        "failed": total - sum(r["passes"] for r in rows),
        "infraErrors": infra,
        "rows": rows,
        "agents": agents,
    }


def _shown_ks(n: int) -> set[int]:
    """The k the table prints: 1, 2, 3, 5, 10, 20, 50, 100, … and n (summary.json has every k)."""
    shown = {k for k in (1, 2, 3) if k <= n} | {n}
    scale = 1
    while 5 * scale < n:
        shown |= {k * scale for k in (5, 10, 20) if k * scale < n}
        scale *= 10
    return shown


def format_table(summary: SummaryDocument) -> str:
    """The summary as the table ``silo-run`` prints after a group or sweep."""
    header = f"{'task':<14}{'agent':<12}{'runs':>5}{'pass':>6}{'rate':>7}{'reward':>8}{'calls':>7}  reasons / pass^k"
    lines = [header, "-" * len(header)]
    for row in summary["rows"]:
        reasons = ",".join(f"{k}:{v}" for k, v in row["terminationReasons"].items())
        lines.append(
            f"{row['task']:<14}{row['agent']:<12}{row['runs']:>5}{row['passes']:>6}"
            f"{row['passRate']:>7.2f}{row['meanReward']:>8.2f}{row['meanToolCalls']:>7.1f}  {reasons}"
        )
    for agent in summary["agents"]:
        shown = _shown_ks(len(agent["passHatK"]))
        ks = " ".join(f"k={k}:{v:.2f}" for k, v in agent["passHatK"].items() if int(k) in shown)
        lines.append(f"pass^k {agent['agent']:<12} over {agent['tasks']} task(s): {ks}")
    infra = summary["infraErrors"]
    if infra:
        lines.append(f"{len(infra)} point(s) could not start (infrastructure, not agent failures):")
        lines.extend(f"  {e['taskId']} {e['agent']}: {e['error']}" for e in infra)
    lines.append(f"{summary['passed']}/{summary['rollouts']} rollouts passed")
    return "\n".join(lines)


def write_summary(group_dir: Path) -> dict[str, Any]:
    """Summarize ``group_dir``, write ``summary.json`` there, and return it with its table."""
    from silo.jsonio import write_json_atomic

    summary = summarize(group_dir)
    write_json_atomic(group_dir / "summary.json", summary)
    return {**summary, "table": format_table(summary)}
