"""A group or sweep of the ``silo-view`` site: its charts and its runs, each linking to its page.

Contract: :func:`sweep_body` takes the group folder's name, its ``summary.json`` (``{}`` when
there is none) and the :class:`~silo.view.run_record.RunRecord` of each of its runs, and returns
the page body: the counts, the agents and models side by side per task (pass^k, mean reward,
tokens, cost: :mod:`silo.view.agents_table`), the templates' instances pooled with a link to
each instance's first run (:func:`silo.view.judged.templates_section`), then inline-SVG charts (:mod:`silo.view.charts`) — pass^k by k per
agent (from ``summary.json``'s agents, else computed from the runs with
:func:`silo.batch.summary.pass_hat_k`), pass rate and mean reward by task (one bar per task,
over every agent), mean tokens by task when the runs recorded usage, and the distribution of
durations — then the table of runs. Unfinished runs are listed but left out of the rates.
"""

from __future__ import annotations

from collections import defaultdict
from urllib.parse import quote

from silo.batch.outcomes import count_line
from silo.batch.summary import outcome_counts, pass_hat_k
from silo.json_types import JSON
from silo.view.agents_table import agents_side_by_side
from silo.view.charts import bar_chart, histogram, line_chart
from silo.view.html import esc, fmt_ms, mapping, records, table
from silo.view.judged import templates_section
from silo.view.run_record import RunRecord

__all__ = ["sweep_body"]


def _pass_hat_k(summary: dict[str, JSON], runs: list[RunRecord]) -> dict[str, dict[int, float]]:
    """pass^k per agent: summary.json's when it has it, else from the finished runs."""
    found: dict[str, dict[int, float]] = {}
    for row in records(summary.get("agents")):
        values = mapping(row.get("passHatK"))
        found[str(row.get("agent"))] = {
            int(k): float(v)
            for k, v in values.items()
            if k.isdigit() and isinstance(v, (int, float))
        }
    if found:
        return found
    cells: dict[tuple[str, str, str], list[bool]] = defaultdict(list)
    for run in runs:
        if run.outcome in ("PASS", "FAIL"):
            cells[(run.environment, run.task, run.agent)].append(run.outcome == "PASS")
    by_agent: dict[str, list[list[bool]]] = defaultdict(list)
    for (_, _, agent), outcomes in sorted(cells.items()):
        by_agent[agent].append(outcomes)
    for agent, tasks in by_agent.items():
        k_max = min(len(t) for t in tasks)
        found[agent] = {
            k: sum(pass_hat_k(sum(t), len(t), k) for t in tasks) / len(tasks)
            for k in range(1, k_max + 1)
        }
    return found


def _by_task(runs: list[RunRecord]) -> dict[str, list[RunRecord]]:
    tasks: dict[str, list[RunRecord]] = defaultdict(list)
    for run in runs:
        if run.outcome in ("PASS", "FAIL"):
            tasks[run.task].append(run)
    return dict(sorted(tasks.items()))


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def sweep_charts(summary: dict[str, JSON], runs: list[RunRecord]) -> str:
    """The sweep's charts, side by side."""
    hat = _pass_hat_k(summary, runs)
    ks = sorted({k for values in hat.values() for k in values})
    tasks = _by_task(runs)
    rate = [
        (t, _mean([1.0 if r.outcome == "PASS" else 0.0 for r in rs])) for t, rs in tasks.items()
    ]
    reward = [
        (t, _mean([r.reward for r in rs if r.reward is not None]))
        for t, rs in tasks.items()
        if any(r.reward is not None for r in rs)
    ]
    tokens = [
        (t, _mean([float(r.tokens) for r in rs if r.tokens is not None]))
        for t, rs in tasks.items()
        if any(r.tokens is not None for r in rs)
    ]
    durations = [r.duration_ms for r in runs if r.duration_ms is not None]
    parts = [
        line_chart("pass^k by k, per agent", ks, hat),
        bar_chart("pass rate by task", rate, top=1.0),
        bar_chart("mean reward by task", reward, top=1.0),
        histogram("runs by duration", durations, fmt=fmt_ms),
    ]
    if tokens:
        parts.insert(3, bar_chart("mean tokens by task", tokens, fmt=lambda v: f"{v:.0f}"))
    return '<div class="charts">' + "".join(parts) + "</div>"


def _row(run: RunRecord) -> list[str]:
    return [
        f'<a href="{quote(run.run)}.html">{esc(run.run)}</a>',
        esc(run.task),
        esc(run.agent),
        f'<span class="o-{esc(run.outcome)}">{esc(run.outcome)}</span>',
        esc(run.termination),
        "-" if run.reward is None else f"{run.reward:.2f}",
        "-" if run.tool_calls is None else str(run.tool_calls),
        "-" if run.tokens is None else str(run.tokens),
        esc(fmt_ms(run.duration_ms)),
    ]


def sweep_body(name: str, summary: dict[str, JSON], runs: list[RunRecord]) -> str:
    """The page body of the group or sweep ``name``."""
    kind = "sweep" if name.startswith("sweep_") else "group"
    unfinished = sum(1 for r in runs if r.outcome not in ("PASS", "FAIL"))
    counts = f"{kind} · {count_line(outcome_counts(records(summary.get('rows'))))}"
    if unfinished:
        counts += f" · {unfinished} run folder(s) unfinished"
    ordered = sorted(runs, key=lambda r: (r.task, r.agent, r.run))
    headers = ["run", "task", "agent", "outcome", "termination", "reward#", "calls#", "tokens#"]
    body = table([*headers, "duration#"], [_row(r) for r in ordered])
    side = agents_side_by_side(summary)
    agents = f'<h2 id="agents">Agents and models by task</h2>{side}' if side else ""
    first_runs: dict[tuple[str, str], str] = {}  # an instance's drill-down: its first run
    for run in ordered:
        first_runs.setdefault((run.task, run.agent), f"{quote(run.run)}.html")
    return (
        f"<h1>{esc(name)}</h1><p>{esc(counts)}</p>{agents}"
        f"{templates_section(summary, first_runs)}"
        f"<h2>Charts</h2>{sweep_charts(summary, runs)}"
        f'<h2 id="runs">Runs</h2>{body}'
    )
