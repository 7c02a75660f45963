"""Summary rows of task templates: a template's instances pooled, per agent.

Contract: :func:`template_rows` takes the ``summary.json`` rows (one per task × agent, an
instance ``TASK-010#17`` being a task of its own, with its own pass^k) and returns one
:class:`~silo.artifacts.documents.TemplateSummaryRow` per environment × template × agent that
ran instances: how many instances, runs and passes, the pass rate and mean reward over all
those runs, and pass^k averaged over the instances (k up to the fewest runs of one instance).
Only graded rollouts count (an instance none of whose rollouts was graded is left out, as in
its own row's rates). Judged instances pool their ``judged`` counts too. Fixed tasks make no row; a group without instances gets ``[]``.
"""

from __future__ import annotations

from collections import defaultdict

from silo.artifacts.documents import SummaryRow, TemplateSummaryRow
from silo.batch.judged_rows import pooled_judged

__all__ = ["template_rows"]


def template_rows(rows: list[SummaryRow]) -> list[TemplateSummaryRow]:
    """The instances of each template × agent pooled (see the module docstring)."""
    pooled: dict[tuple[str, str, str], list[SummaryRow]] = defaultdict(list)
    for row in rows:
        template, sep, _ = row["task"].partition("#")
        if sep and row["runs"]:  # an instance with no graded rollout has no rate to pool
            pooled[(row["environment"], template, row["agent"])].append(row)
    found: list[TemplateSummaryRow] = []
    for (env, template, agent), mine in sorted(pooled.items()):
        runs = sum(r["runs"] for r in mine)
        passes = sum(r["passes"] for r in mine)
        k_max = min(r["runs"] for r in mine)
        pooled_row: TemplateSummaryRow = {
            "environment": env,
            "template": template,
            "agent": agent,
            "instances": len(mine),
            "runs": runs,
            "passes": passes,
            "passRate": round(passes / runs, 4),
            "meanReward": round(sum((r["meanReward"] or 0) * r["runs"] for r in mine) / runs, 4),
            "passHatK": {
                str(k): round(sum(r["passHatK"][str(k)] for r in mine) / len(mine), 4)
                for k in range(1, k_max + 1)
            },
        }
        judged = pooled_judged(r.get("judged") for r in mine)
        if judged is not None:
            pooled_row["judged"] = judged
        found.append(pooled_row)
    return found
