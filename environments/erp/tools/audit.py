"""Audit tools: reading the trail every change leaves.

Contract: read-only views of ``auditLog`` (one row per mutating call: ``at``, ``actorId``,
``action``, ``entityType``, ``entityId``, ``details``). ``list_audit_events`` filters by actor,
entity type, action and a time window, newest first; ``get_entity_history`` is one record's
history, oldest first; ``get_user_activity`` is one user's events, newest first, with counts
by action; ``get_recent_changes`` is the latest N events (default 20). "Newest first" orders
by time, then by id, both descending.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, define_tool
from silo.toolkit.guards import Args
from silo.toolkit.results import snapshot
from silo.toolkit.schema import integer, obj, text

from .common import State, fetch, page
from .schema import INSTANT_PATTERN, listing, record_id


def _newest_first(state: State) -> list[dict[str, Any]]:
    return sorted(state["auditLog"], key=lambda row: (row["at"], row["id"]), reverse=True)


def _list(state: State, args: Args) -> dict[str, Any]:
    since, until = args.get("since", ""), args.get("until", "9999")
    rows = [
        row
        for row in _newest_first(state)
        if all(row[key] == args[key] for key in ("actorId", "entityType", "action") if key in args)
        and since <= row["at"]
        and row["at"][: len(until)] <= until
    ]
    return page(rows, args)


def _history(state: State, args: Args) -> dict[str, Any]:
    rows = [
        row
        for row in state["auditLog"]
        if row["entityId"] == args["entityId"]
        and args.get("entityType", row["entityType"]) == row["entityType"]
    ]
    return {"entityId": args["entityId"], **page(rows, args)}


def _activity(state: State, args: Args) -> dict[str, Any]:
    user = fetch(state, "users", args["userId"])
    rows = [row for row in _newest_first(state) if row["actorId"] == user["id"]]
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["action"]] = counts.get(row["action"], 0) + 1
    return {
        "userId": user["id"],
        "name": user["name"],
        "countsByAction": dict(sorted(counts.items())),
        **page(rows, args),
    }


def _recent(state: State, args: Args) -> dict[str, Any]:
    rows = _newest_first(state)[: int(args.get("limit", 20))]
    return {"count": len(rows), "results": [snapshot(row) for row in rows]}


def _instant(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description, "pattern": INSTANT_PATTERN}


_ENTITY_TYPE = text("Kind of record, e.g. vendor_invoice, purchase_order, payment.", max_length=40)

TOOLS: list[Tool] = [
    define_tool(
        "list_audit_events",
        "Audit events, newest first. Filter by actor, entity type, action (e.g. "
        "vendor_invoice.approved) and a time window. For one record's history use "
        "get_entity_history.",
        listing(
            {
                "actorId": record_id("user", "Only events by this user."),
                "entityType": _ENTITY_TYPE,
                "action": text("Only this action, e.g. payment.completed.", max_length=60),
                "since": _instant("Only events at or after this date or instant."),
                "until": _instant("Only events at or before this date or instant."),
            }
        ),
        _list,
        read_only=True,
    ),
    define_tool(
        "get_entity_history",
        "Every audit event about one record (e.g. VINV-106), oldest first.",
        listing(
            {
                "entityId": text("Id of the record, e.g. PO-207.", max_length=40),
                "entityType": _ENTITY_TYPE,
            },
            ["entityId"],
        ),
        _history,
        read_only=True,
    ),
    define_tool(
        "get_user_activity",
        "What one user has done, newest first, with counts by action.",
        listing({"userId": record_id("user", "The user, e.g. USR-006.")}, ["userId"]),
        _activity,
        read_only=True,
    ),
    define_tool(
        "get_recent_changes",
        "The latest audit events across the whole company (default 20), newest first.",
        obj({"limit": integer("How many events (default 20).", 1, 500, 20)}),
        _recent,
        read_only=True,
    ),
]

__all__ = ["TOOLS"]
