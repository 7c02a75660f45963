"""Judged items and pooled templates in ``silo-view``: shown beside the checks, never in them.

Contract: :func:`judged_cell` is a summary row's "judged" cell (``3/4 pass`` from the row's
``judged``, with abstentions and judge errors named; ``-`` for a row not judged).
:func:`templates_section` renders the summary's ``templates`` (a template's instances pooled
per agent: instances, runs, passes, rate, reward, pass^k, judged) with one link per instance
(the drill-down: ``links`` maps an instance and agent to where its runs are shown); empty when the group ran no instance.
:func:`judgement_section` renders a run folder's ``judgement.json``: each rubric item with
every judge's verdict and reason, the agreement and judge errors, and the combined reward
when the task declares one; empty when the run was not judged. None of them raises on a
damaged file, and none reads a clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from silo.artifacts.run_reader import optional_json
from silo.view.html import esc, records, table

__all__ = ["judged_cell", "judgement_section", "templates_section"]

_VERDICT_CSS = {"pass": "pass", "fail": "err", "error": "err"}


def judged_cell(row: Mapping[str, Any]) -> str:
    """A row's judged items, e.g. ``3/4 pass · 1 abstain``; ``-`` when not judged."""
    judged = row.get("judged")
    if not isinstance(judged, Mapping):
        return "-"
    passed, failed = judged.get("passed", 0), judged.get("failed", 0)
    text = f"{passed}/{passed + failed} pass" if isinstance(passed + failed, int) else "?"
    if judged.get("abstained"):
        text += f" · {judged['abstained']} abstain"
    html = esc(text)
    if judged.get("judgeErrors"):
        html += f' · <span class="err">{esc(judged["judgeErrors"])} judge error(s)</span>'
    return html


def _num(value: Any, places: int) -> str:
    return f"{value:.{places}f}" if isinstance(value, int | float) else "-"


def templates_section(summary: Mapping[str, Any], links: Mapping[tuple[str, str], str]) -> str:
    """The pooled template rows; ``links`` maps (task, agent) to where its runs are shown."""
    pooled = records(summary.get("templates"))
    if not pooled:
        return ""
    judged = any("judged" in t for t in pooled)  # a judged column only when runs were judged
    rows = []
    for t in pooled:
        agent, template = str(t.get("agent")), str(t.get("template"))
        instances = sorted(
            (task for task, who in links if who == agent and task.partition("#")[0] == template),
            key=lambda task: int(task.partition("#")[2] or 0),
        )
        pills = " ".join(
            f'<a class="pill" href="{esc(links[(task, agent)])}">#{esc(task.partition("#")[2])}</a>'
            for task in instances
        )
        ks = t.get("passHatK")
        rows.append(
            [
                esc(template),
                esc(agent),
                esc(t.get("instances", "-")),
                esc(t.get("runs", "-")),
                esc(t.get("passes", "-")),
                _num(t.get("passRate"), 2),
                _num(t.get("meanReward"), 2),
                esc(" ".join(f"k={k}:{v:.2f}" for k, v in ks.items()))
                if isinstance(ks, Mapping)
                else "",
                *([judged_cell(t)] if judged else []),
                pills,
            ]
        )
    headers = ["template", "agent", "instances#", "runs#", "passes#", "rate#", "reward#"]
    headers += ["pass^k", *(["judged"] if judged else []), "instances (link)"]
    return '<h2 id="templates">Templates (instances pooled)</h2>' + table(headers, rows)


def judgement_section(folder: Path) -> str:
    """The run's judged items (``judgement.json``), apart from its checks; "" when not judged."""
    document = optional_json(folder / "judgement.json")
    if not isinstance(document, Mapping):
        return ""
    rows = []
    for item in records(document.get("items")):
        verdicts = "<br>".join(
            f'<span class="{_VERDICT_CSS.get(str(v.get("verdict")), "muted")}">'
            f"{esc(v.get('judge', '?'))}: {esc(v.get('verdict', '?'))}</span> "
            f"{esc(v.get('reason', ''))}"
            for v in records(item.get("verdicts"))
        )
        rows.append(
            [
                esc(item.get("id", "?")),
                esc(item.get("assertion", "")),
                esc(item.get("about", "")),
                verdicts,
                _num(item.get("agreement"), 2),
            ]  # fmt: skip
        )
    counts = (
        f"{document.get('passed', 0)} pass, {document.get('failed', 0)} fail, "
        f"{document.get('abstained', 0)} abstain · judges: "
        f"{', '.join(str(j) for j in document.get('judges') or [])}"
    )
    parts = ['<h2 id="judged">Judged items (apart from the checks)</h2>', f"<p>{esc(counts)}</p>"]
    combined = document.get("combinedReward")
    if isinstance(combined, Mapping):
        parts.append(
            f"<p>combined reward {_num(combined.get('reward'), 2)} = "
            f"{esc(combined.get('formula', ''))} (checks {_num(combined.get('checks'), 2)}, "
            f"judged {_num(combined.get('judged'), 2)}); result.json keeps the checks' reward</p>"
        )
    parts += [f'<p class="err">{esc(e)}</p>' for e in document.get("judgeErrors") or []]
    parts.append(table(["item", "assertion", "about", "verdicts", "agreement#"], rows))
    return "".join(parts)
