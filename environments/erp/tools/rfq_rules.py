"""Rules RFQs and quotations share: which vendors may be invited, and making an RFQ.

Contract: :func:`invitable_vendors` refuses unknown vendors (``not_found``), blocked vendors
(``forbidden``) and vendors not yet active (``invalid_state``). :func:`new_rfq` stores a draft
RFQ with line ids and leaves its audit row; its response date defaults to 7 days from today.
:func:`quotations_of` lists an RFQ's quotations in id order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from silo import Index, ToolError
from silo.toolkit.guards import Args

from ..state import add_days, mint_id, today
from .common import State, audit, fetch

QUOTATIONS_BY_RFQ = Index("quotations", "rfqId")


def eligible_vendor(state: Mapping[str, Any], vendor_id: str, purpose: str) -> dict[str, Any]:
    """An active vendor fit for ``purpose`` (an RFQ, an order, an award)."""
    vendor = fetch(state, "vendors", vendor_id)
    if vendor["status"] == "blocked":
        raise ToolError(
            "forbidden",
            f"{vendor_id} ({vendor['name']}) is blocked ({vendor['statusReason']}) and cannot "
            f"get {purpose}",
            {"id": vendor_id},
        )
    if vendor["status"] != "active":
        raise ToolError(
            "invalid_state",
            f"{vendor_id} ({vendor['name']}) is {vendor['status']}; activate_vendor first",
            {"id": vendor_id},
        )
    return vendor


def invitable_vendors(state: Mapping[str, Any], vendor_ids: Sequence[str]) -> list[str]:
    """``vendor_ids`` after checking each may be invited to quote."""
    return [eligible_vendor(state, vendor_id, "RFQ invitations")["id"] for vendor_id in vendor_ids]


def new_rfq(
    state: State,
    args: Args,
    title: str,
    lines: Sequence[Mapping[str, Any]],
    vendor_ids: Sequence[str],
    requisition_id: str | None,
) -> dict[str, Any]:
    """Store a draft RFQ for ``lines`` (product and quantity) and audit it."""
    rfq_id = mint_id(state, "RFQ")
    rfq = {
        "id": rfq_id,
        "title": title,
        "requisitionId": requisition_id,
        "status": "draft",
        "vendorIds": list(vendor_ids),
        "lines": [
            {"id": f"{rfq_id}-L{n}", "productId": line["productId"], "quantity": line["quantity"]}
            for n, line in enumerate(lines, 1)
        ],
        "responseDueDate": args.get("responseDueDate", add_days(today(state), 7)),
        "createdAt": state["now"],
        "createdBy": args["actorId"],
        "sentAt": None,
        "closedAt": None,
        "awardedQuotationId": None,
    }
    state["rfqs"][rfq_id] = rfq
    audit(state, args, "rfq.created", rfq, {"requisitionId": requisition_id})
    return rfq


def quotations_of(state: Mapping[str, Any], rfq_id: str) -> list[dict[str, Any]]:
    """The quotations received on an RFQ, in id order."""
    return sorted(QUOTATIONS_BY_RFQ.rows(state, rfq_id), key=lambda q: q["id"])
