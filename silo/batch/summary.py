"""Summaries of a group of rollouts: pass rates, rewards, token usage and pass^k.

Contract: :func:`summarize` reads a group folder (every ``run.json`` + ``result.json`` at any
depth, plus every ``resumed.jsonl`` and ``infra-errors.jsonl``) and returns the ``summary.json``
document: one row per task × agent (runs, passes, pass rate, mean reward, mean tool calls,
termination reasons, token usage summed over the runs, ``estimatedCost`` summed when runs were
priced (``pricing=``, :mod:`silo.batch.cost`; the table then has a ``cost`` column), pass^k for
k = 1..n) and one row per agent with pass^k
averaged over tasks, using the unbiased estimator C(c, k) / C(n, k) for c passes out of n
trials. Instances of a task template (``TASK-010#17``) are rows of their own, and are also
pooled per template × agent under ``templates`` (:mod:`silo.batch.template_rows`; the key is
absent when the group ran none). Infrastructure failures are counted apart. Everything is read from disk, so it works the
same under any launcher.

"Agent" means who answered, not only the agent's label: a run whose ``run.json`` records an
``agentIdentity`` (model agents) or a ``userIdentity`` (a simulated user) counts for
:func:`agent_name`, the label followed by the model and the settings that tell runs apart, so
``-m agent.model=a,b`` gives two rows, not two repeats of one. The name is made from the run
alone, so the same agent has the same name in every group (what ``silo-compare`` pairs by).

The steps are public for :mod:`silo.batch.compare`: :func:`load_group` (the finished rollouts of
a group), :func:`group_cells` (by task × agent), :func:`cell_row` and :func:`agent_rows`.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from silo.artifacts.documents import (
    AgentSummaryRow,
    InfraErrorRecord,
    ResultDocument,
    RunDocument,
    SummaryDocument,
    SummaryRow,
    read_document,
)
from silo.batch.cost import summed_cost
from silo.batch.template_rows import template_rows
from silo.jsonio import remove_if_stale

__all__ = [
    "Rollout",
    "agent_name",
    "agent_rows",
    "cell_row",
    "format_table",
    "group_cells",
    "load_group",
    "run_folders",
    "load_rollout",
    "pass_hat_k",
    "summarize",
    "summed_usage",
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
        """The (environment, task, agent name) it counts for (see :func:`agent_name`)."""
        return (self.run["environment"], self.run["taskId"], agent_name(self.run))


# Public endpoints: a run against one of them is named without its host.
_DEFAULT_HOSTS = {"api.openai.com", "api.anthropic.com"}


def agent_name(run: Mapping[str, Any]) -> str:
    """Who answered a run: its agent label, then ``[...]`` when ``run.json`` says more.

    The brackets hold the ``agentIdentity`` model, ``t=<temperature>`` and ``seed=<seed>`` when
    set, ``@<host:port>`` for an endpoint other than the API's public one, and
    ``user=<kind>:<model>`` (with its temperature) for a ``userIdentity`` that calls a model;
    e.g. ``openai[gpt-4.1-mini, t=0.0]``. A user's seed is left out: it follows the rollout's
    seed, which differs between repeats. A user without a model (``scripted``) is left out too:
    ``solver`` is one series over conversational and tool-only tasks alike.
    """
    label = str(run.get("agent") or "?")
    parts = _identity_parts(run.get("agentIdentity"), with_seed=True)
    user = run.get("userIdentity")
    # A user that calls no model (the scripted one) replies the same to every agent: naming it
    # would split one agent into two series in a sweep mixing conversational and other tasks.
    if isinstance(user, Mapping) and user.get("model") is not None:
        who = ":".join(str(user[key]) for key in ("kind", "model") if user.get(key) is not None)
        parts.append(" ".join([f"user={who or '?'}", *_identity_parts(user, with_seed=False)[1:]]))
    return f"{label}[{', '.join(parts)}]" if parts else label


def _identity_parts(identity: Any, *, with_seed: bool) -> list[str]:
    """The model (first, ``?`` if none) and the settings of one identity, as name parts."""
    if not isinstance(identity, Mapping):
        return []
    parts = [str(identity.get("model") or "?")]
    if identity.get("temperature") is not None:
        parts.append(f"t={identity['temperature']}")
    if with_seed and identity.get("seed") is not None:
        parts.append(f"seed={identity['seed']}")
    base_url = identity.get("baseUrl")
    host = urlsplit(base_url).netloc if isinstance(base_url, str) else ""
    if host and host not in _DEFAULT_HOSTS:
        parts.append(f"@{host}")
    return parts


def load_rollout(folder: Path, resumed: bool = False) -> Rollout | None:
    """The rollout in ``folder``, or ``None`` when it is unfinished or unreadable."""
    try:
        run = read_document(folder / "run.json", RunDocument)
        result = read_document(folder / "result.json", ResultDocument)
    except (OSError, json.JSONDecodeError):
        return None
    return Rollout(folder, run, result, resumed)


def _group_records(group_dir: Path, name: str) -> list[dict[str, Any]]:
    """The records of every ``name`` file at any depth under ``group_dir``, in path order.

    A sweep's jobs write into ``hydra.sweep.subdir`` folders (``0/``, ``1/``, … with
    ``${hydra.job.num}``), so a group's files are not all at its top level.
    """
    return [r for path in sorted(group_dir.rglob(name)) for r in _read_jsonl(path)]


def run_folders(group_dir: Path) -> list[Path]:
    """The folders holding a ``run.json`` at any depth under ``group_dir``, sorted.

    On the way it removes the ``.<artifact>.<pid>.tmp`` files that a process killed mid-write
    left (their process is gone): nothing writes into a killed rollout's folder again, so this
    scan is the one place that sees them.
    """
    found: list[Path] = []
    for folder, _subfolders, files in os.walk(group_dir):
        if "run.json" in files:
            found.append(Path(folder))
        for entry in files:
            if entry.endswith(".tmp") and entry.startswith("."):
                remove_if_stale(folder, entry)
    return sorted(found)


def load_group(group_dir: Path) -> list[Rollout]:
    """Every finished rollout of a group: run folders at any depth, then ``resumed.jsonl``'s."""
    folders = dict.fromkeys(run_folders(group_dir), False)
    for record in _group_records(group_dir, "resumed.jsonl"):
        folders[Path(record["runDir"])] = True  # skipped by this group: run by an earlier one
    loaded = (load_rollout(folder, resumed) for folder, resumed in folders.items())
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
    row: SummaryRow = {
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
    for key in ("agentIdentity", "userIdentity"):
        identity = items[0].run.get(key)
        if isinstance(identity, Mapping):
            row[key] = dict(identity)
    usage = summed_usage(r.run.get("usage") for r in items)
    if usage:
        row["usage"] = usage
    cost = summed_cost(r.run for r in items)
    if cost is not None:
        row["estimatedCost"] = cost
    return row


def summed_usage(usages: Any) -> dict[str, int | float]:
    """The runs' ``usage`` figures (tokens) summed by name; runs without usage add nothing."""
    total: dict[str, int | float] = defaultdict(int)
    for usage in usages:
        if not isinstance(usage, Mapping):
            continue
        for name, value in usage.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                total[name] += value
    return dict(sorted(total.items()))


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
    infra = cast(list[InfraErrorRecord], _group_records(group_dir, "infra-errors.jsonl"))
    total = sum(row["runs"] for row in rows)
    summary: SummaryDocument = {
        "group": group_dir.name,
        "rollouts": total,
        "passed": sum(r["passes"] for r in rows),
        "failed": total - sum(r["passes"] for r in rows),
        "infraErrors": infra,
        "rows": rows,
        "agents": agents,
    }
    templates = template_rows(rows)
    if templates:
        summary["templates"] = templates
    return summary


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
    # Name columns as wide as their longest name (at least 14 and 12), plus space.
    tw = max([13, *(len(row["task"]) for row in summary["rows"])]) + 1
    priced = any("estimatedCost" in row for row in summary["rows"])  # a cost column
    width = max([12, *(len(row["agent"]) + 2 for row in summary["rows"])])
    header = (
        f"{'task':<{tw}}{'agent':<{width}}{'runs':>5}{'pass':>6}{'rate':>7}{'reward':>8}"
        f"{'calls':>7}{'tokens':>9}{_COST_HEADER if priced else ''}  reasons / pass^k"
    )
    lines = [header, "-" * len(header)]
    for row in summary["rows"]:
        reasons = ",".join(f"{k}:{v}" for k, v in row["terminationReasons"].items())
        lines.append(
            f"{row['task']:<{tw}}{row['agent']:<{width}}{row['runs']:>5}{row['passes']:>6}"
            f"{row['passRate']:>7.2f}{row['meanReward']:>8.2f}{row['meanToolCalls']:>7.1f}"
            f"{_tokens(row):>9}{_cost(row) if priced else ''}  {reasons}"
        )
    for agent in summary["agents"]:
        shown = _shown_ks(len(agent["passHatK"]))
        ks = " ".join(f"k={k}:{v:.2f}" for k, v in agent["passHatK"].items() if int(k) in shown)
        lines.append(f"pass^k {agent['agent']:<{width}} over {agent['tasks']} task(s): {ks}")
    for pooled in summary.get("templates", []):
        ks = " ".join(f"k={k}:{v:.2f}" for k, v in pooled["passHatK"].items())
        lines.append(
            f"template {pooled['template']} {pooled['agent']} over {pooled['instances']} "
            f"instance(s): rate {pooled['passRate']:.2f} reward {pooled['meanReward']:.2f} "
            f"pass^k {ks}"
        )
    infra = summary["infraErrors"]
    if infra:
        lines.append(f"{len(infra)} point(s) could not start (infrastructure, not agent failures):")
        lines.extend(f"  {e['taskId']} {e['agent']}: {e['error']}" for e in infra)
    lines.append(f"{summary['passed']}/{summary['rollouts']} rollouts passed")
    return "\n".join(lines)


_COST_HEADER = f"{'cost':>11}"


def _cost(row: SummaryRow) -> str:
    """The row's estimated cost for the table (``-`` when no run of it had a price)."""
    cost = row.get("estimatedCost")
    return f"{'-' if cost is None else f'${cost:.4f}':>11}"


def _tokens(row: SummaryRow) -> str:
    """The row's total tokens for the table (``-`` when its runs recorded no usage)."""
    usage = row.get("usage") or {}
    total = usage.get("totalTokens")
    if total is None and usage:
        total = sum(usage.values())
    return "-" if total is None else f"{total:.0f}"


def write_summary(group_dir: Path) -> dict[str, Any]:
    """Summarize ``group_dir``, write ``summary.json`` there, and return it with its table."""
    from silo.jsonio import write_json_atomic

    summary = summarize(group_dir)
    write_json_atomic(group_dir / "summary.json", summary)
    return {**summary, "table": format_table(summary)}
