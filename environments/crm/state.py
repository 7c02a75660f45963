"""The CRM world: how it is loaded, and every figure derived from it.

Contract:

* :func:`create_state` returns a fresh, independent world built from the nine ``data/*.json``
  files plus the frozen clock ``now``. Collections of records are dicts keyed by id; ``auditLog``
  is a list and ``sequences`` a dict of id counters. Only plain JSON values live in the state.
* Derived figures (stage probability, weighted amount, days in stage, staleness, closed-won
  revenue, open pipeline, quota attainment) are computed here on read and never stored. Tools
  and verifiers share these helpers, so both always agree on what a number means.
* :func:`mint_id` and :data:`AUDIT` are the only ways tools create ids and audit rows
  (:mod:`silo.toolkit`'s sequences and audit trail, with the CRM's padding); write tools reach
  the audit trail through ``tools.common.WRITES``.
* Lookups by a foreign key (deals by owner or account, contacts by account, activities by the
  record they concern) go through :class:`silo.Index`, so their cost follows the matches, not
  the size of the world; answers and their order are exactly those of a scan.

Every helper that only reads accepts any ``Mapping`` view of the state, so verifiers can pass
the engine's read-only snapshots.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any

from silo import Index
from silo.toolkit.facts import FactFiles
from silo.toolkit.records import AuditTrail, Sequences

__all__ = [
    "AUDIT",
    "ACTIVITIES_BY_RECORD",
    "COLLECTIONS",
    "CONTACTS_BY_ACCOUNT",
    "DATASETS",
    "SIMULATION_NOW",
    "STALE_STAGE_DAYS",
    "closed_won_total",
    "create_state",
    "days_between",
    "days_in_stage",
    "is_past_due",
    "is_stale",
    "mint_id",
    "OPPORTUNITIES_BY_ACCOUNT",
    "OPPORTUNITIES_BY_OWNER",
    "open_pipeline",
    "opportunity_status",
    "ordered_stages",
    "probability",
    "quota_attainment",
    "stage_of",
    "weighted_amount",
]

SIMULATION_NOW = "2026-03-16"
"""The only clock in this world. No tool reads the real time."""

STALE_STAGE_DAYS = 30
"""An open deal is stale once it has sat in its stage for more than this many days."""

COLLECTIONS = ("users", "accounts", "contacts", "leads", "opportunities", "activities", "stages")
"""Datasets stored as a list of records in ``data/`` and held as dicts keyed by id in state."""

DATASETS = (*COLLECTIONS, "auditLog", "sequences")

OPPORTUNITIES_BY_OWNER = Index("opportunities", "ownerId")
OPPORTUNITIES_BY_ACCOUNT = Index("opportunities", "accountId")
CONTACTS_BY_ACCOUNT = Index("contacts", "accountId")
ACTIVITIES_BY_RECORD = Index("activities", "relatedId")

SEQUENCES = Sequences(widths={"AUD": 4})
"""Id counters; zero padding is three digits except the audit log's four."""

AUDIT = AuditTrail(SEQUENCES)
"""The CRM's audit log: one row per change, ids ``AUD-0001`` from :data:`SEQUENCES`."""

_FACTS = FactFiles(Path(__file__).resolve().parent / "data")

State = dict[str, Any]
Row = Mapping[str, Any]


def create_state() -> State:
    """A new world: every call parses the cached JSON again, so worlds never share objects."""
    return _FACTS.world(COLLECTIONS, head={"now": SIMULATION_NOW}, after=("auditLog", "sequences"))


# --- ids and audit ---------------------------------------------------------------------------

mint_id = SEQUENCES.mint
"""``mint_id(state, prefix)``: the next id for ``prefix`` (``ACC-012``, ``AUD-0001``)."""


# --- dates -----------------------------------------------------------------------------------


def days_between(earlier: str, later: str) -> int:
    """Whole days from ``earlier`` to ``later`` (ISO dates); negative when reversed."""
    return (date.fromisoformat(later) - date.fromisoformat(earlier)).days


# --- stages and opportunities ----------------------------------------------------------------


def ordered_stages(state: Mapping[str, Any]) -> list[Row]:
    """All stages in pipeline order."""
    return sorted(state["stages"].values(), key=lambda stage: stage["order"])


def stage_of(state: Mapping[str, Any], opportunity: Row) -> Row:
    """The stage record an opportunity sits in."""
    return state["stages"][opportunity["stageId"]]


def opportunity_status(state: Mapping[str, Any], opportunity: Row) -> str:
    """``open``, ``won`` or ``lost``, read from the stage the deal sits in."""
    stage = stage_of(state, opportunity)
    if not stage["isClosed"]:
        return "open"
    return "won" if stage["isWon"] else "lost"


def probability(state: Mapping[str, Any], opportunity: Row) -> float:
    """Win probability in percent, taken from the deal's stage."""
    return float(stage_of(state, opportunity)["probability"])


def weighted_amount(state: Mapping[str, Any], opportunity: Row) -> float:
    """Amount times stage probability / 100, rounded to cents."""
    return round(float(opportunity["amount"]) * probability(state, opportunity) / 100, 2)


def days_in_stage(state: Mapping[str, Any], opportunity: Row) -> int:
    """Days since the deal entered its current stage, as of the world's clock."""
    return days_between(opportunity["stageEnteredOn"], state["now"])


def is_stale(
    state: Mapping[str, Any], opportunity: Row, threshold_days: int = STALE_STAGE_DAYS
) -> bool:
    """Open and more than ``threshold_days`` in the current stage."""
    return (
        opportunity_status(state, opportunity) == "open"
        and days_in_stage(state, opportunity) > threshold_days
    )


def is_past_due(state: Mapping[str, Any], opportunity: Row) -> bool:
    """Open with an expected close date already behind the world's clock."""
    return (
        opportunity_status(state, opportunity) == "open"
        and opportunity["expectedCloseDate"] < state["now"]
    )


# --- reps ------------------------------------------------------------------------------------


def closed_won_total(state: Mapping[str, Any], user_id: str) -> float:
    """Sum of the amounts of the deals ``user_id`` has won."""
    return round(
        sum(
            float(opp["amount"])
            for opp in OPPORTUNITIES_BY_OWNER.rows(state, user_id)
            if opportunity_status(state, opp) == "won"
        ),
        2,
    )


def open_pipeline(state: Mapping[str, Any], user_id: str) -> dict[str, float | int]:
    """Count, amount and weighted amount of the open deals ``user_id`` owns."""
    deals = [
        opp
        for opp in OPPORTUNITIES_BY_OWNER.rows(state, user_id)
        if opportunity_status(state, opp) == "open"
    ]
    return {
        "count": len(deals),
        "amount": round(sum(float(opp["amount"]) for opp in deals), 2),
        "weightedAmount": round(sum(weighted_amount(state, opp) for opp in deals), 2),
    }


def quota_attainment(state: Mapping[str, Any], user: Row) -> float | None:
    """Closed-won revenue as a percentage of quota, to one decimal; None without a quota."""
    quota = float(user.get("quota") or 0)
    if quota <= 0:
        return None
    return round(closed_won_total(state, user["id"]) / quota * 1000) / 10
