"""Summaries of a group of rollouts: pass rates, rewards, token usage and pass^k.

Contract: :func:`summarize` reads a group folder (every ``run.json`` + ``result.json`` at any
depth, plus every ``resumed.jsonl`` and ``infra-errors.jsonl``) and returns the ``summary.json``
document. It counts rollouts by outcome (:mod:`silo.batch.outcomes`: passed, failed,
environment error, model error, could not start) for the group and for each task × agent row.
Only graded rollouts (passed or failed) count in a row's ``runs``, pass rate, mean reward, mean
tool calls and pass^k (k = 1..runs, the unbiased estimator C(c, k) / C(n, k) for c passes out of
n trials); the others are counted apart in the row and listed in ``notGraded`` with their
one-line reason. Rows carry token usage summed over the runs and ``estimatedCost`` summed
when runs were priced (``pricing=``, :mod:`silo.batch.cost`; the table then has a ``cost``
column), and ``judged`` when runs were judged (:mod:`silo.batch.judged_rows`: their rubric
items, listed under the table apart from the checks, which judging never changes). Instances of a task template (``TASK-010#17``) are rows of their own, and are also
pooled per template × agent under ``templates`` (:mod:`silo.batch.template_rows`; the key is
absent when the group ran none). One row per agent averages pass^k over its graded tasks. Everything is read
from disk, so it works the same under any launcher.

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
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from silo.artifacts.atomic import remove_if_stale
from silo.artifacts.documents import (
    AgentSummaryRow,
    NotGradedRecord,
    ResultDocument,
    RunDocument,
    SummaryDocument,
    SummaryRow,
    read_document,
)
from silo.batch.cost import summed_cost
from silo.batch.judged_rows import judged_lines, judged_summary, judged_text, read_judgement
from silo.batch.outcomes import (
    COULD_NOT_START,
    ENVIRONMENT_ERROR,
    FAILED,
    LABELS,
    MODEL_ERROR,
    OUTCOMES,
    PASSED,
    count_line,
    rollout_outcome,
)
from silo.batch.template_rows import template_rows
from silo.json_types import JSON

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
    "not_graded",
    "outcome_counts",
    "pass_hat_k",
    "start_failures",
    "summarize",
    "summed_usage",
]


def pass_hat_k(passes: int, trials: int, k: int) -> float:
    """Probability that k trials drawn without replacement from n all pass."""
    if k > trials or trials == 0:
        return 0.0
    return comb(passes, k) / comb(trials, k)


def _read_jsonl(path: Path) -> list[dict[str, JSON]]:
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
    def outcome(self) -> tuple[str, str | None]:
        """Its outcome and, when not graded, the reason (see :mod:`silo.batch.outcomes`)."""
        return rollout_outcome(self.run, self.result)

    @property
    def cell(self) -> tuple[str, str, str]:
        """The (environment, task, agent name) it counts for (see :func:`agent_name`)."""
        return (self.run["environment"], self.run["taskId"], agent_name(self.run))


# Public endpoints: a run against one of them is named without its host.
_DEFAULT_HOSTS = {"api.openai.com", "api.anthropic.com"}


def agent_name(run: Mapping[str, JSON]) -> str:
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


def _group_records(group_dir: Path, name: str) -> list[dict[str, JSON]]:
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


def cell_row(
    cell: tuple[str, str, str],
    items: Sequence[Rollout],
    unstarted: Sequence[Mapping[str, JSON]] = (),
) -> SummaryRow:
    """The ``summary.json`` row of one task × agent: its rollouts, and those that never started.

    Rates, means and pass^k are over the graded rollouts alone (``None`` when there is none).
    """
    env, task, agent = cell
    outcomes = Counter(r.outcome[0] for r in items)
    outcomes.update(str(record.get("outcome") or COULD_NOT_START) for record in unstarted)
    graded = [r for r in items if r.outcome[0] in (PASSED, FAILED)]
    n, c = len(graded), outcomes[PASSED]
    reasons = Counter(r.result["terminationReason"] for r in items)
    row: SummaryRow = {
        "environment": env,
        "task": task,
        "agent": agent,
        "rollouts": len(items) + len(unstarted),
        "runs": n,
        "passes": c,
        "passRate": round(c / n, 4) if n else None,
        "meanReward": round(sum(r.result["reward"] for r in graded) / n, 4) if n else None,
        "meanToolCalls": round(sum(r.result["toolCalls"] for r in graded) / n, 2) if n else None,
        "environmentErrors": outcomes[ENVIRONMENT_ERROR],
        "modelErrors": outcomes[MODEL_ERROR],
        "couldNotStart": outcomes[COULD_NOT_START],
        "terminationReasons": dict(sorted(reasons.items())),
        "resumed": sum(1 for r in items if r.resumed),
        "passHatK": {str(k): round(pass_hat_k(c, n, k), 4) for k in range(1, n + 1)},
    }
    for key in ("agentIdentity", "userIdentity"):
        identity = items[0].run.get(key) if items else None
        if isinstance(identity, Mapping):
            row[key] = dict(identity)
    usage = summed_usage(r.run.get("usage") for r in items)
    if usage:
        row["usage"] = usage
    cost = summed_cost(r.run for r in items)
    if cost is not None:
        row["estimatedCost"] = cost
    judged = judged_summary(read_judgement(r.folder) for r in items)
    if judged is not None:
        row["judged"] = judged
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
    """Per agent: its graded tasks, runs, passes and pass^k averaged over those tasks.

    k goes up to the fewest graded runs of a task; a task with no graded rollout is left out
    of the average (its rollouts are in ``notGraded``).
    """
    agents: list[AgentSummaryRow] = []
    for agent in sorted({row["agent"] for row in rows}):
        mine = [row for row in rows if row["agent"] == agent and row["runs"]]
        k_max = min((row["runs"] for row in mine), default=0)
        agents.append(
            {
                "agent": agent,
                "tasks": len(mine),
                "runs": sum(r["runs"] for r in mine),
                "passes": sum(r["passes"] for r in mine),
                "notGraded": sum(
                    row["rollouts"] - row["runs"] for row in rows if row["agent"] == agent
                ),
                "passHatK": {
                    str(k): round(
                        sum(pass_hat_k(r["passes"], r["runs"], k) for r in mine) / len(mine), 4
                    )
                    for k in range(1, k_max + 1)
                },
            }
        )
    return agents


def not_graded(group_dir: Path, rollouts: Sequence[Rollout]) -> list[NotGradedRecord]:
    """The group's rollouts that were not graded, with their reason, sorted by task and repeat.

    ``runDir`` is the rollout's folder relative to ``group_dir`` (``None``: it never started).
    """
    found: list[NotGradedRecord] = []
    for rollout in rollouts:
        outcome, reason = rollout.outcome
        if reason is None:
            continue
        env, task, agent = rollout.cell
        try:
            where: str | None = rollout.folder.relative_to(group_dir).as_posix()
        except ValueError:  # resumed from another group's folder
            where = str(rollout.folder)
        repeat = rollout.run.get("repeat")
        found.append(_record(outcome, env, task, agent, repeat, reason, where))
    for record, cell in start_failures(group_dir, rollouts):
        outcome = str(record.get("outcome") or COULD_NOT_START)
        reason = str(record.get("error") or "?")
        found.append(_record(outcome, *cell, record.get("repeat"), reason, None))
    return sorted(found, key=_record_order)


def _record(
    outcome: str, env: str, task: str, agent: str, repeat: Any, error: str, run_dir: str | None
) -> NotGradedRecord:
    repeat = repeat if isinstance(repeat, int) and not isinstance(repeat, bool) else None
    return {
        "outcome": outcome,
        "environment": env,
        "taskId": task,
        "agent": agent,
        "repeat": repeat,
        "error": error,
        "runDir": run_dir,
    }


def _record_order(record: NotGradedRecord) -> tuple[str, str, str, int, str]:
    repeat = record["repeat"]
    return (
        record["environment"],
        record["taskId"],
        record["agent"],
        -1 if repeat is None else repeat,
        record["error"],
    )


def start_failures(
    group_dir: Path, rollouts: Sequence[Rollout]
) -> list[tuple[dict[str, JSON], tuple[str, str, str]]]:
    """Every ``infra-errors.jsonl`` record (rollouts that never began) and the cell it counts for.

    A record names the agent by its label; when the group has exactly one agent of that label
    for the task (e.g. ``openai[gpt-4.1-mini]`` for ``openai``), the record joins that row.
    """
    names: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for rollout in rollouts:
        env, task, agent = rollout.cell
        names[(env, task, str(rollout.run.get("agent") or "?"))].add(agent)
    found = []
    for record in _group_records(group_dir, "infra-errors.jsonl"):
        env, task = str(record.get("environment") or "?"), str(record.get("taskId") or "?")
        label = str(record.get("agent") or "?")
        same = names.get((env, task, label), set())
        found.append((record, (env, task, next(iter(same)) if len(same) == 1 else label)))
    return found


def summarize(group_dir: Path) -> SummaryDocument:
    """The ``summary.json`` document of ``group_dir`` (see the module docstring)."""
    rollouts = load_group(group_dir)
    cells: dict[tuple[str, str, str], list[Rollout]] = dict(group_cells(rollouts))
    unstarted: dict[tuple[str, str, str], list[dict[str, JSON]]] = defaultdict(list)
    for record, cell in start_failures(group_dir, rollouts):
        unstarted[cell].append(record)
        cells.setdefault(cell, [])
    rows = [cell_row(cell, cells[cell], unstarted.get(cell, [])) for cell in sorted(cells)]
    counts = outcome_counts(rows)
    summary: SummaryDocument = {
        "group": group_dir.name,
        "rollouts": sum(counts.values()),
        "graded": counts[PASSED] + counts[FAILED],
        "passed": counts[PASSED],
        "failed": counts[FAILED],
        "environmentErrors": counts[ENVIRONMENT_ERROR],
        "modelErrors": counts[MODEL_ERROR],
        "couldNotStart": counts[COULD_NOT_START],
        "notGraded": not_graded(group_dir, rollouts),
        "rows": rows,
        "agents": agent_rows(rows),
    }
    templates = template_rows(rows)
    if templates:
        summary["templates"] = templates
    return summary


def outcome_counts(rows: Iterable[Mapping[str, JSON]]) -> dict[str, int]:
    """The rollouts of summary rows by outcome (every outcome of :data:`OUTCOMES` listed)."""
    counts = dict.fromkeys(OUTCOMES, 0)
    for row in rows:
        counts[PASSED] += int(row.get("passes") or 0)
        counts[FAILED] += int(row.get("runs") or 0) - int(row.get("passes") or 0)
        counts[ENVIRONMENT_ERROR] += int(row.get("environmentErrors") or 0)
        counts[MODEL_ERROR] += int(row.get("modelErrors") or 0)
        counts[COULD_NOT_START] += int(row.get("couldNotStart") or 0)
    return counts


def _shown_ks(n: int) -> set[int]:
    """The k the table prints: 1, 2, 3, 5, 10, 20, 50, 100, … and n (summary.json has every k)."""
    shown = {k for k in (1, 2, 3) if k <= n} | {n}
    scale = 1
    while 5 * scale < n:
        shown |= {k * scale for k in (5, 10, 20) if k * scale < n}
        scale *= 10
    return shown


_REASON_LINES = 20  # grouped reasons the table shows; summary.json lists every rollout


def format_table(summary: SummaryDocument) -> str:
    """The summary as the table ``silo-run`` prints after a group or sweep.

    ``runs`` counts every rollout of a row; ``pass`` and ``fail`` the graded ones, ``error``
    the others, whose reasons follow the table grouped by task, agent and reason.
    """
    # Name columns as wide as their longest name (at least 14 and 12), plus space.
    tw = max([13, *(len(row["task"]) for row in summary["rows"])]) + 1
    priced = any("estimatedCost" in row for row in summary["rows"])  # a cost column
    width = max([12, *(len(row["agent"]) + 2 for row in summary["rows"])])
    header = (
        f"{'task':<{tw}}{'agent':<{width}}{'runs':>5}{'pass':>6}{'fail':>6}{'error':>7}"
        f"{'rate':>7}{'reward':>8}{'calls':>7}{'tokens':>9}{_COST_HEADER if priced else ''}  reasons / pass^k"
    )
    lines = [header, "-" * len(header)]
    for row in summary["rows"]:
        reasons = ",".join(f"{k}:{v}" for k, v in row["terminationReasons"].items())
        errors = row["rollouts"] - row["runs"]
        lines.append(
            f"{row['task']:<{tw}}{row['agent']:<{width}}{row['rollouts']:>5}{row['passes']:>6}"
            f"{row['runs'] - row['passes']:>6}{errors:>7}{_num(row['passRate'], 2, 7)}"
            f"{_num(row['meanReward'], 2, 8)}{_num(row['meanToolCalls'], 1, 7)}"
            f"{_tokens(row):>9}{_cost(row) if priced else ''}  {reasons}"
        )
    for agent in summary["agents"]:
        if not agent["passHatK"]:
            continue
        shown = _shown_ks(len(agent["passHatK"]))
        ks = " ".join(f"k={k}:{v:.2f}" for k, v in agent["passHatK"].items() if int(k) in shown)
        lines.append(f"pass^k {agent['agent']:<{width}} over {agent['tasks']} task(s): {ks}")
    for pooled in summary.get("templates", []):
        ks = " ".join(f"k={k}:{v:.2f}" for k, v in pooled["passHatK"].items())
        lines.append(
            f"template {pooled['template']} {pooled['agent']} over {pooled['instances']} "
            f"instance(s): rate {pooled['passRate']:.2f} reward {pooled['meanReward']:.2f} "
            f"pass^k {ks}"
            + (f"; judged {judged_text(pooled['judged'])}" if pooled.get("judged") else "")
        )
    lines.extend(judged_lines(summary["rows"]))
    lines.extend(_reason_lines(summary["notGraded"]))
    lines.append(count_line(outcome_counts(summary["rows"])))
    return "\n".join(lines)


def _num(value: float | None, places: int, width: int) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.{places}f}"


def _reason_lines(records: Sequence[NotGradedRecord]) -> list[str]:
    """The not-graded rollouts, one line per task, agent, outcome and reason (with a count)."""
    if not records:
        return []
    grouped = Counter(
        (r["taskId"], r["agent"], LABELS.get(r["outcome"], r["outcome"]), r["error"])
        for r in records
    )
    lines = ["not graded (left out of the rates; fix the cause, then resume=true):"]
    for (task, agent, label, error), n in list(grouped.items())[:_REASON_LINES]:
        times = f" x{n}" if n > 1 else ""
        lines.append(f"  {task} {agent}: {label}{times}: {error}")
    if len(grouped) > _REASON_LINES:
        lines.append(f"  ... {len(grouped) - _REASON_LINES} more reason(s) in summary.json")
    return lines


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


def write_summary(group_dir: Path) -> dict[str, JSON]:
    """Summarize ``group_dir``, write ``summary.json`` there, and return it with its table."""
    from silo.artifacts.atomic import write_json_atomic

    summary = summarize(group_dir)
    write_json_atomic(group_dir / "summary.json", summary)
    return {**summary, "table": format_table(summary)}
