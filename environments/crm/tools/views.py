"""Read models: records as tools show them, with derived figures attached.

Contract: each view returns a new dict holding the stored fields of a record plus the figures
derived from the world at read time (status, weighted amount, days in stage, staleness, quota
attainment, owner and account names). Views never write to the state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import state as derived

View = dict[str, Any]


def _name_of(state: Mapping[str, Any], collection: str, record_id: str | None) -> str | None:
    record = state[collection].get(record_id) if record_id else None
    return record["name"] if record is not None else None


def opportunity_view(state: Mapping[str, Any], opp: Mapping[str, Any]) -> View:
    """A deal with its stage, status, weighted amount, age in stage and warning flags."""
    return {
        **opp,
        "accountName": _name_of(state, "accounts", opp["accountId"]),
        "ownerName": _name_of(state, "users", opp["ownerId"]),
        "stageName": derived.stage_of(state, opp)["name"],
        "status": derived.opportunity_status(state, opp),
        "probability": derived.probability(state, opp),
        "weightedAmount": derived.weighted_amount(state, opp),
        "daysInStage": derived.days_in_stage(state, opp),
        "isStale": derived.is_stale(state, opp),
        "isPastDue": derived.is_past_due(state, opp),
    }


def user_view(state: Mapping[str, Any], user: Mapping[str, Any]) -> View:
    """A user with closed-won revenue, open pipeline and quota attainment."""
    return {
        **user,
        "closedWon": derived.closed_won_total(state, user["id"]),
        "openPipeline": derived.open_pipeline(state, user["id"]),
        "quotaAttainmentPct": derived.quota_attainment(state, user),
    }


def contact_view(state: Mapping[str, Any], contact: Mapping[str, Any]) -> View:
    """A contact with the name of the account it belongs to (None when unattached)."""
    return {**contact, "accountName": _name_of(state, "accounts", contact.get("accountId"))}


def lead_view(state: Mapping[str, Any], lead: Mapping[str, Any]) -> View:
    """A lead with its owner's name and its age in days."""
    return {
        **lead,
        "ownerName": _name_of(state, "users", lead["ownerId"]),
        "ageDays": derived.days_between(lead["createdOn"], state["now"]),
    }


def activity_view(state: Mapping[str, Any], activity: Mapping[str, Any]) -> View:
    """An activity with its status (open or done) and whether it is overdue."""
    done = activity.get("completedOn") is not None
    return {
        **activity,
        "status": "done" if done else "open",
        "isOverdue": not done and activity["dueDate"] < state["now"],
    }
