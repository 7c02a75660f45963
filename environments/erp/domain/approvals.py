"""Approvals: who may approve how much, and the life of an approval request.

Contract: a user is authorised for an amount when their ``approvalLimit`` is set and at least
that amount (a null limit never authorises anything). An approval is created ``pending`` for a
named approver (:func:`request_approval`) and decided once (:func:`decide`): deciding it again
is ``invalid_state``. Only the named approver may decide (``forbidden`` otherwise, pointing at
``reassign_approval``), and approving needs authority for the approval's amount
(``forbidden`` naming who could approve instead). :data:`DECIDING_TOOL` names the tool that
decides each kind of approval.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Index, ToolError

from ..state import mint_id

__all__ = [
    "APPROVALS_BY_ENTITY",
    "DECIDING_TOOL",
    "add_note",
    "authorised",
    "cancel_pending",
    "decide",
    "pending_approval",
    "qualified_approvers",
    "request_approval",
    "require_authority",
]

APPROVALS_BY_ENTITY = Index("approvals", "entityId")

DECIDING_TOOL = {
    "requisition": "approve_requisition",
    "purchase_order": "approve_purchase_order",
    "vendor_invoice": "approve_vendor_invoice",
    "payment": "approve_payment",
    "expense": "approve_expense",
}
"""The tool an approver calls to decide each kind of approval."""

Row = Mapping[str, Any]


def authorised(user: Row, amount: float) -> bool:
    """Whether ``user``'s approval limit covers ``amount``."""
    limit = user.get("approvalLimit")
    return limit is not None and float(amount) <= float(limit)


def qualified_approvers(state: Mapping[str, Any], amount: float) -> list[str]:
    """Ids of active users authorised for ``amount``, smallest sufficient limit first."""
    users = [
        user for user in state["users"].values() if user["active"] and authorised(user, amount)
    ]
    users.sort(key=lambda user: (float(user["approvalLimit"]), user["id"]))
    return [user["id"] for user in users]


def require_authority(state: Mapping[str, Any], user: Row, amount: float) -> None:
    """Refuse (``forbidden``) when ``user`` may not approve ``amount``; names who may."""
    if authorised(user, amount):
        return
    others = qualified_approvers(state, amount)
    raise ToolError(
        "forbidden",
        f"{user['name']} ({user['id']}) has an approval limit of {user.get('approvalLimit')} and "
        f"cannot approve {amount}; reassign to an authorised user ({', '.join(others[:3])})",
        {"limit": user.get("approvalLimit"), "amount": amount, "authorisedUsers": others},
    )


def pending_approval(
    state: Mapping[str, Any], entity_type: str, entity_id: str
) -> dict[str, Any] | None:
    """The pending approval of a document, or None."""
    for approval in APPROVALS_BY_ENTITY.rows(state, entity_id):
        if approval["entityType"] == entity_type and approval["status"] == "pending":
            found: dict[str, Any] = approval
            return found
    return None


def request_approval(
    state: dict[str, Any],
    entity_type: str,
    entity_id: str,
    approver_id: str,
    amount: float,
    requested_by: str,
) -> dict[str, Any]:
    """Create and store a pending approval of ``entity_id`` by ``approver_id``.

    Refuses (``conflict``) when the document already has a pending approval.
    """
    existing = pending_approval(state, entity_type, entity_id)
    if existing is not None:
        raise ToolError(
            "conflict",
            f"{entity_id} already awaits {existing['id']} ({existing['approverId']}); decide "
            "or reassign it instead",
            {"approvalId": existing["id"]},
        )
    approval = {
        "id": mint_id(state, "APR"),
        "entityType": entity_type,
        "entityId": entity_id,
        "approverId": approver_id,
        "amount": amount,
        "status": "pending",
        "requestedBy": requested_by,
        "requestedAt": state["now"],
        "decidedAt": None,
        "decidedBy": None,
        "notes": [],
    }
    state["approvals"][approval["id"]] = approval
    return approval


def add_note(state: Mapping[str, Any], approval: dict[str, Any], author_id: str, text: str) -> None:
    """Append a note to an approval."""
    approval["notes"].append({"at": state["now"], "authorId": author_id, "text": text})


def check_decidable(state: Mapping[str, Any], approval: Row, decider: Row, approve: bool) -> None:
    """Refuse a decision the rules forbid, before anything is written.

    Raises:
        ToolError: ``invalid_state`` if already decided, ``forbidden`` if ``decider`` is not the
            named approver or (when approving) lacks authority for the amount.
    """
    if approval["status"] != "pending":
        raise ToolError(
            "invalid_state",
            f"{approval['id']} was already {approval['status']} by {approval['decidedBy']}",
            {"id": approval["id"], "status": approval["status"]},
        )
    if decider["id"] != approval["approverId"]:
        raise ToolError(
            "forbidden",
            f"{approval['id']} is assigned to {approval['approverId']}; act as that user or "
            "move it with reassign_approval",
            {"id": approval["id"], "approverId": approval["approverId"]},
        )
    if approve:
        require_authority(state, decider, float(approval["amount"]))


def decide(
    state: Mapping[str, Any],
    approval: dict[str, Any],
    decider: Row,
    *,
    approve: bool,
    note: str = "",
) -> dict[str, Any]:
    """Approve or reject a pending approval as ``decider`` (checks as :func:`check_decidable`)."""
    check_decidable(state, approval, decider, approve)
    approval["status"] = "approved" if approve else "rejected"
    approval["decidedAt"] = state["now"]
    approval["decidedBy"] = decider["id"]
    if note:
        add_note(state, approval, decider["id"], note)
    return approval


def cancel_pending(
    state: Mapping[str, Any], entity_type: str, entity_id: str, actor_id: str, note: str
) -> str | None:
    """Cancel the document's pending approval, if any; returns its id."""
    approval = pending_approval(state, entity_type, entity_id)
    if approval is None:
        return None
    approval["status"] = "cancelled"
    approval["decidedAt"] = state["now"]
    approval["decidedBy"] = actor_id
    add_note(state, approval, actor_id, note)
    return str(approval["id"])
