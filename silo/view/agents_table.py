"""The side-by-side table of a group or sweep page: every agent and model, task by task.

Contract: :func:`agents_side_by_side` takes a group's ``summary.json`` and returns an HTML
table (empty text when the summary has no rows): one row per task, then one for all tasks;
one column per agent as :func:`silo.batch.summary.agent_name` names it (a model is its own
column); each cell shows pass^k at the cell's largest k, the pass rate, the mean reward, the
tokens and, when the runs were priced (``pricing=``), the estimated cost. The "all tasks" row
is the agent's pass^k averaged over tasks (``summary.json``'s agent row) and the totals.
"""

from __future__ import annotations

from collections.abc import Mapping

from silo.json_types import JSON
from silo.view.html import esc, mapping, records, table

__all__ = ["agents_side_by_side"]


def _hat(values: Mapping[str, JSON]) -> str:
    ks = [int(k) for k in values if str(k).isdigit()]
    if not ks:
        return "-"
    k = max(ks)
    return f"pass^{k} {float(values[str(k)]):.2f}"


def _tokens(usage: Mapping[str, JSON]) -> float | None:
    total = usage.get("totalTokens")
    if isinstance(total, int | float):
        return float(total)
    numbers = [v for v in usage.values() if isinstance(v, int | float)]
    return float(sum(numbers)) if numbers else None


def _cell(lines: list[str]) -> str:
    return "<br>".join(esc(line) for line in lines)


def _figures(hat: str, runs: int, passes: int, reward: float | None,
             tokens: float | None, cost: float | None) -> list[str]:  # fmt: skip
    lines = [hat, f"{passes}/{runs} passed"]
    if reward is not None:
        lines.append(f"reward {reward:.2f}")
    if tokens is not None:
        lines.append(f"{tokens:,.0f} tokens")
    if cost is not None:
        lines.append(f"${cost:.4f}")
    return lines


def agents_side_by_side(summary: Mapping[str, JSON]) -> str:
    """The table described in the module docstring ('' for a summary without rows)."""
    rows = records(summary.get("rows"))
    if not rows:
        return ""
    agents = sorted({str(row.get("agent")) for row in rows})
    tasks = sorted({str(row.get("task")) for row in rows})
    cells = {(str(r.get("task")), str(r.get("agent"))): r for r in rows}
    body = []
    for task in tasks:
        line = [esc(task)]
        for agent in agents:
            row = cells.get((task, agent))
            if row is None:
                line.append("-")
                continue
            cost = row.get("estimatedCost")
            line.append(_cell(_figures(
                _hat(mapping(row.get("passHatK"))), int(row.get("runs") or 0),
                int(row.get("passes") or 0), row.get("meanReward"),
                _tokens(mapping(row.get("usage"))),
                float(cost) if isinstance(cost, int | float) else None,
            )))  # fmt: skip
        body.append(line)
    body.append(["all tasks", *(_cell(_overall(agent, rows, summary)) for agent in agents)])
    return table(["task", *agents], body, row_classes=[""] * len(tasks) + ["total"])


def _overall(agent: str, rows: list[dict[str, JSON]], summary: Mapping[str, JSON]) -> list[str]:
    mine = [row for row in rows if str(row.get("agent")) == agent]
    found = next((a for a in records(summary.get("agents")) if a.get("agent") == agent), {})
    runs = sum(int(row.get("runs") or 0) for row in mine)
    rewards = [(row.get("meanReward"), int(row.get("runs") or 0)) for row in mine]
    weighted = [float(r) * n for r, n in rewards if isinstance(r, int | float)]
    tokens = [_tokens(mapping(row.get("usage"))) for row in mine]
    costs = [
        row["estimatedCost"] for row in mine if isinstance(row.get("estimatedCost"), int | float)
    ]
    return _figures(
        _hat(mapping(found.get("passHatK"))) + f" over {len(mine)} task(s)",
        runs,
        sum(int(row.get("passes") or 0) for row in mine),
        sum(weighted) / runs if runs and weighted else None,
        sum(t for t in tokens if t is not None) if any(t is not None for t in tokens) else None,
        round(sum(costs), 6) if costs else None,
    )
