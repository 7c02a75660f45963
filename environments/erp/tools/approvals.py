"""Approval tools: the queue of decisions, their notes, reassignment and authority checks.

Contract: approvals are decided by the tool of their document (``approve_requisition``,
``approve_purchase_order``...; each pending row names it in ``decideWith``). Here: list the
pending ones (by approver or kind), get one, list a document's approvals or all approvals, add
a note, reassign a pending approval to a different active user (the note is appended), and
check whether a user's limit covers an amount and who could approve instead. Each mutation
appends one audit row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import Args, non_blank
from silo.toolkit.results import filtered, snapshot, sorted_by_id
from silo.toolkit.schema import choice, obj, text

from ..domain import approvals as rules
from .common import WRITES, State, active_user, audit, fetch, page, require_status
from .crud import get_tool, list_tool
from .schema import (
    APPROVAL_ENTITY_TYPES,
    APPROVAL_STATUSES,
    acting_on,
    amount,
    listing,
    long_text,
    record_id,
)


def approval_view(state: Mapping[str, Any], approval: Mapping[str, Any]) -> dict[str, Any]:
    """An approval with its approver's name and limit, and the tool that decides it."""
    approver = state["users"].get(approval["approverId"], {})
    return {
        **approval,
        "approverName": approver.get("name"),
        "approverLimit": approver.get("approvalLimit"),
        "approverAuthorised": bool(approver) and rules.authorised(approver, approval["amount"]),
        "decideWith": rules.DECIDING_TOOL[approval["entityType"]],
    }


def _list_pending_approvals(state: State, args: Args) -> dict[str, Any]:
    pending = [a for a in state["approvals"].values() if a["status"] == "pending"]
    rows = filtered(pending, args, ("approverId", "entityType"))
    return page(rows, args, lambda row: approval_view(state, row))


def _list_approvals_for_entity(state: State, args: Args) -> dict[str, Any]:
    rows = sorted_by_id(rules.APPROVALS_BY_ENTITY.rows(state, args["entityId"]))
    return page(rows, args, lambda row: approval_view(state, row))


def _add_approval_note(state: State, args: Args) -> dict[str, Any]:
    approval = fetch(state, "approvals", args["approvalId"])
    note = non_blank(args["text"], "text")
    rules.add_note(state, approval, args["actorId"], note)
    audit(state, args, "approval.noted", approval, {"text": note})
    return snapshot(approval_view(state, approval))


def _reassign_approval(state: State, args: Args) -> dict[str, Any]:
    approval = fetch(state, "approvals", args["approvalId"])
    require_status(approval, ("pending",), "reassigned")
    target = active_user(state, args["toUserId"], "approver")
    if target["id"] == approval["approverId"]:
        raise ToolError(
            "invalid_input",
            f"{approval['id']} is already assigned to {target['id']}; pick a different user",
        )
    note = non_blank(args["note"], "note")
    previous = approval["approverId"]
    approval["approverId"] = target["id"]
    rules.add_note(state, approval, args["actorId"], f"Reassigned from {previous}: {note}")
    document = _document(state, approval)
    if document is not None and "approverId" in document:
        document["approverId"] = target["id"]
    audit(state, args, "approval.reassigned", approval, {"from": previous, "to": target["id"]})
    return snapshot(approval_view(state, approval))


COLLECTION_OF = {
    "requisition": "requisitions",
    "purchase_order": "purchaseOrders",
    "vendor_invoice": "vendorInvoices",
    "payment": "payments",
    "expense": "expenses",
}


def _document(state: State, approval: Mapping[str, Any]) -> dict[str, Any] | None:
    found: dict[str, Any] | None = state[COLLECTION_OF[approval["entityType"]]].get(
        approval["entityId"]
    )
    return found


def _check_approval_authority(state: State, args: Args) -> dict[str, Any]:
    if "approvalId" in args:
        approval = fetch(state, "approvals", args["approvalId"])
        value = float(args["amount"] if "amount" in args else approval["amount"])
        user_id = str(args.get("userId", approval["approverId"]))
    elif "amount" in args and "userId" in args:
        value, user_id = float(args["amount"]), args["userId"]
    else:
        raise ToolError("invalid_input", "pass approvalId, or both userId and amount")
    user = fetch(state, "users", user_id)
    return {
        "userId": user["id"],
        "userName": user["name"],
        "approvalLimit": user.get("approvalLimit"),
        "amount": value,
        "authorised": rules.authorised(user, value),
        "authorisedUsers": [
            {
                "id": uid,
                "name": state["users"][uid]["name"],
                "approvalLimit": state["users"][uid]["approvalLimit"],
            }
            for uid in rules.qualified_approvers(state, value)
        ],
    }


APPROVAL_ID = "Id of the approval, e.g. APR-005."
FILTERS = {
    "approverId": record_id("user", "Only approvals assigned to this user."),
    "entityType": choice(APPROVAL_ENTITY_TYPES, "Only approvals of this kind of document."),
}

TOOLS: list[Tool] = [
    define_tool(
        "list_pending_approvals",
        "Approvals awaiting a decision, each naming its approver, whether their limit covers "
        "the amount, and the tool that decides it (decideWith).",
        listing(FILTERS),
        _list_pending_approvals,
        read_only=True,
    ),
    get_tool(
        "get_approval",
        "One approval: document, amount, approver (and whether authorised), status, notes.",
        "approvals",
        "approval",
        "approvalId",
        view=approval_view,
        example="APR-005",
    ),
    define_tool(
        "list_approvals_for_entity",
        "Every approval of one document (requisition, PO, invoice, payment or expense).",
        listing(
            {"entityId": text("Id of the document, e.g. PR-006 or VINV-103.", max_length=20)},
            ["entityId"],
        ),
        _list_approvals_for_entity,
        read_only=True,
    ),
    list_tool(
        "list_approvals",
        "List approvals, optionally by status, approver or kind of document.",
        "approvals",
        {"status": choice(APPROVAL_STATUSES, "Only approvals in this status."), **FILTERS},
        view=approval_view,
    ),
    WRITES.tool(
        "add_approval_note",
        "Add a note to an approval (any status).",
        acting_on("approval", "approvalId", APPROVAL_ID, text=long_text("The note.", min_length=1)),
        _add_approval_note,
    ),
    WRITES.tool(
        "reassign_approval",
        "Move a pending approval to a different active user (e.g. one whose limit covers the "
        "amount); the note is appended to the approval.",
        acting_on(
            "approval",
            "approvalId",
            APPROVAL_ID,
            toUserId=record_id("user", "The new approver, e.g. USR-008."),
            note=long_text("Why it is reassigned.", min_length=1),
        ),
        _reassign_approval,
    ),
    define_tool(
        "check_approval_authority",
        "Whether a user's approval limit covers an amount (or an approval's amount), and which "
        "active users could approve it instead, smallest sufficient limit first.",
        obj(
            {
                "userId": record_id("user", "User to check (default: the approval's approver)."),
                "amount": amount("Amount in USD (default: the approval's amount)."),
                "approvalId": record_id("approval", APPROVAL_ID),
            },
        ),
        _check_approval_authority,
        read_only=True,
    ),
]
