"""A group or sweep folder as HTML: the group part of ``silo-view`` reports.

Contract: :func:`group_body` renders a group/sweep folder: a header (name, kind, rollouts by
outcome: passed, failed, environment error, model error, could not start; see
:mod:`silo.batch.outcomes`), the per-agent pass^k, the summary table (one row per task × agent:
rollouts, graded runs, passes, not graded, rate, mean reward, mean tool calls, termination
reasons, pass^k; rates over the graded alone; a "judged" column, apart from the checks, when
runs were judged: :mod:`silo.view.judged`) in which every row links to its runs, the
templates' instances pooled (each instance linking to its row's runs), then every
run rendered by :func:`silo.view.run_page.run_section` inside a ``<details>`` closed by default
(a link to it opens it), the run folders that hold no finished rollout (``UNFINISHED``), and the
rollouts that were not graded with their reason. The summary is the folder's ``summary.json``
when it can be read, else it is computed by :func:`silo.batch.summary.summarize`. Runs are read with :func:`silo.batch.summary.load_group` (resumed runs included, from
their own folders); one whose run.json or result.json lacks what a row needs is shown with the
unfinished ones, and nothing in a damaged folder makes rendering raise.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from silo.artifacts.run_reader import optional_json
from silo.batch.outcomes import LABELS, count_line
from silo.batch.summary import (
    Rollout,
    agent_rows,
    cell_row,
    group_cells,
    load_group,
    outcome_counts,
    summarize,
)
from silo.json_types import JSON
from silo.view.html import anchor, badge, esc, table
from silo.view.judged import judged_cell, templates_section
from silo.view.run_page import RUN_FILES, RunFolder, load_run, run_section, verdict

__all__ = ["group_body", "is_group"]


def is_group(folder: Path) -> bool:
    """A group/sweep folder: a ``summary.json``, or subfolders holding run files."""
    if (folder / "summary.json").is_file():
        return True
    return any(sub.is_dir() and _has_run_files(sub) for sub in folder.iterdir())


def _has_run_files(folder: Path) -> bool:
    return any((folder / name).is_file() for name in RUN_FILES)


def _summary(folder: Path, rollouts: list[Rollout]) -> tuple[dict[str, JSON], str]:
    """The group's summary and where it came from: summary.json, else ``rollouts``."""
    summary = optional_json(folder / "summary.json")
    if isinstance(summary, dict) and isinstance(summary.get("rows"), list):
        return summary, "summary.json"
    try:
        computed: dict[str, JSON] = dict(summarize(folder))
    except (OSError, ValueError, KeyError, TypeError):  # damaged records: the runs alone
        rows = [cell_row(cell, items) for cell, items in group_cells(rollouts).items()]
        computed = {"rows": rows, "agents": agent_rows(rows)}
    return computed, "the run folders (no readable summary.json)"


def _rollouts(folder: Path) -> list[Rollout]:
    """The group's finished rollouts whose run.json and result.json have what a row needs."""
    kinds: dict[str, type | tuple[type, ...]] = {
        "passed": bool,
        "reward": (int, float),
        "toolCalls": int,
        "terminationReason": str,
    }
    return [
        r
        for r in load_group(folder)
        if all(isinstance(r.run.get(k), str) for k in ("environment", "taskId"))
        and all(isinstance(r.result.get(k), kind) for k, kind in kinds.items())
    ]


def _run_id(run: RunFolder) -> str:
    return anchor("run", run.folder.name)


def _run_details(run: RunFolder, resumed: bool) -> str:
    """A run, collapsed: its verdict, task, agent, repeat and reward on the summary line."""
    meta: Mapping[str, JSON] = run.run or {}
    result: Mapping[str, JSON] = run.result or {}
    start = run.event("run_start")
    task = meta.get("taskId") or (start.get("task") or {}).get("id", "?")
    bits = [str(task), str(meta.get("agent", start.get("agent", "?")))]
    if isinstance(meta.get("repeat"), int):
        bits.append(f"repeat {meta['repeat'] + 1}")
    if isinstance(result.get("reward"), (int, float)):
        bits.append(f"reward {result['reward']:.2f}")
    if "toolCalls" in result:
        bits.append(f"{result['toolCalls']} calls")
    bits.append(run.folder.name + (" (resumed from an earlier group)" if resumed else ""))
    rid = _run_id(run)
    return (
        f'<details class="run" id="{rid}"><summary>{badge(verdict(run), big=False)} '
        f"{esc(' · '.join(bits))}</summary>{run_section(run, rid)}</details>"
    )


def _repeat(run: Mapping[str, JSON]) -> int:
    repeat = run.get("repeat")
    return repeat if isinstance(repeat, int) else 0


def _pass_hat_k(values: JSON) -> str:
    items = values.items() if isinstance(values, dict) else []
    return esc(" ".join(f"k={k}:{v:.2f}" for k, v in items if isinstance(v, (int, float))))


def _num(value: JSON, places: int) -> str:
    return f"{value:.{places}f}" if isinstance(value, (int, float)) else "-"


def _summary_row(
    row: dict[str, JSON], cell_id: str, runs: list[RunFolder], judged: bool
) -> list[str]:
    """A task × agent's cells: the task links to its runs' heading, then one link per run."""
    links = "".join(
        f'<a class="pill {"pass" if verdict(run) == "PASS" else ""}" href="#{_run_id(run)}">{n}</a>'
        for n, run in enumerate(runs, 1)
    )
    reasons = row.get("terminationReasons")
    reasons = reasons.items() if isinstance(reasons, dict) else []
    return [
        f'<a href="#{cell_id}">{esc(row.get("task", "?"))}</a>',
        *_cells(row, "agent", "rollouts", "runs", "passes"),
        _not_graded_count(row),
        _num(row.get("passRate"), 2),
        _num(row.get("meanReward"), 2),
        _num(row.get("meanToolCalls"), 1),
        esc(", ".join(f"{k}:{v}" for k, v in reasons)),
        _pass_hat_k(row.get("passHatK")),
        *([judged_cell(row)] if judged else []),
        links,
    ]


def group_body(folder: Path) -> tuple[str, str]:
    """The page title and body of a group/sweep folder."""
    rollouts = _rollouts(folder)
    summary, source = _summary(folder, rollouts)
    cells = group_cells(rollouts)
    finished = {r.folder for items in cells.values() for r in items}
    rows, classes, sections = [], [], []
    judged = any("judged" in row for row in _records(summary, "rows"))  # a column only then
    cell_ids: dict[tuple[str, str], str] = {}
    for i, row in enumerate(_records(summary, "rows"), 1):
        key = (str(row.get("environment")), str(row.get("task")), str(row.get("agent")))
        items = sorted(cells.pop(key, []), key=lambda r: (_repeat(r.run), r.folder.name))
        runs = [load_run(r.folder) for r in items]
        cell_id = anchor("cell", str(i))
        cell_ids[(str(row.get("task")), str(row.get("agent")))] = f"#{cell_id}"
        rows.append(_summary_row(row, cell_id, runs, judged))
        rate = row.get("passRate")
        classes.append("" if rate == 1 else "fail-required" if rate == 0 else "fail-optional")
        title = f"{row.get('task')} · {row.get('agent')} · {row.get('environment')}"
        sections.append(f'<h3 id="{cell_id}">{esc(title)}</h3>')
        sections.extend(_run_details(run, r.resumed) for run, r in zip(runs, items, strict=True))
    headers = ["task", "agent", "rollouts#", "graded#", "passes#", "not graded#", "rate#"]
    headers += ["reward#", "calls#", "termination"]
    parts = [_header(folder, summary, source), _agents(summary), "<h2>Summary</h2>"]
    headers += ["pass^k", *(["judged"] if judged else []), "runs (link)"]
    parts.append(table(headers, rows, classes))
    parts.append(templates_section(summary, cell_ids))
    parts.append('<h2 id="runs">Runs</h2>' + "".join(sections))
    leftover = [r for items in cells.values() for r in items]  # finished but not in summary
    extra = [_run_details(load_run(r.folder), r.resumed) for r in leftover]
    extra += [
        _run_details(load_run(sub), False)  # killed before run.json/result.json were written
        for sub in sorted(folder.iterdir())
        if sub.is_dir() and sub not in finished and _has_run_files(sub)
    ]
    if extra:
        parts.append('<h2 id="other-runs">Runs not in the summary</h2>' + "".join(extra))
    parts.append(_infra(summary))
    return f"{folder.name} — silo-view", "".join(parts)


def _header(folder: Path, summary: dict[str, JSON], source: str) -> str:
    kind = "sweep" if folder.name.startswith("sweep_") else "group"
    counts = count_line(outcome_counts(_records(summary, "rows")))
    return (
        f"<h1>{esc(folder.name)}</h1><p>{esc(kind)} · {esc(counts)}</p>"
        f'<p class="muted">Summary read from {esc(source)}. Click a row\'s task or a run number '
        f'to open a run. <button onclick="siloAll(true)">expand all runs</button> '
        f'<button onclick="siloAll(false)">collapse all</button></p>'
    )


def _records(summary: dict[str, JSON], key: str) -> list[dict[str, JSON]]:
    return [r for r in summary.get(key) or [] if isinstance(r, dict)]


def _cells(record: dict[str, JSON], *keys: str) -> list[str]:
    return [esc(record.get(key, "-")) for key in keys]


def _agents(summary: dict[str, JSON]) -> str:
    rows = [
        [*_cells(a, "agent", "tasks", "runs", "passes"), _pass_hat_k(a.get("passHatK"))]
        for a in _records(summary, "agents")
    ]
    headers = ["agent", "tasks#", "runs#", "passes#", "pass^k"]
    return "<h2>Agents</h2>" + table(headers, rows) if rows else ""


def _not_graded_count(row: dict[str, JSON]) -> str:
    rollouts, runs = row.get("rollouts"), row.get("runs")
    if not isinstance(rollouts, int) or not isinstance(runs, int):
        return "-"
    return f'<span class="err">{rollouts - runs}</span>' if rollouts > runs else "0"


def _infra(summary: dict[str, JSON]) -> str:
    rows = [
        [
            *_cells(e, "taskId", "agent"),
            str(e["repeat"] + 1) if isinstance(e.get("repeat"), int) else "-",
            esc(LABELS.get(str(e.get("outcome")), str(e.get("outcome", "?")))),
            f'<span class="err">{esc(e.get("error", ""))}</span>',
        ]
        for e in _records(summary, "notGraded")
    ]
    if not rows:
        return ""
    title = '<h2 id="infra">Not graded (environment errors, model errors, could not start)</h2>'
    return title + table(["task", "agent", "repeat#", "outcome", "reason"], rows)
