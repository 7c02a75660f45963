"""Vendor tools: the suppliers Meridian buys from.

Contract: list (status, category, preferred), search (id, name, category, contact), get (with
balance), create (starts ``pending_approval``; a name already used is a ``conflict``), update
(terms, lead time, contact, preferred; nothing supplied is ``invalid_input``), activate, block
(with a reason; blocked vendors get no new purchase orders or RFQ invitations) and the vendor's
payables balance (outstanding and overdue). Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, define_tool
from silo.toolkit.guards import Args
from silo.toolkit.results import snapshot
from silo.toolkit.schema import choice, email, flag, integer, obj, text

from . import parties
from .common import WRITES, State, fetch
from .crud import get_tool, list_tool, search_tool
from .schema import TERMS, VENDOR_STATUSES, acting_on, actor, by_id, reason, record_id

UPDATABLE = ("paymentTerms", "leadTimeDays", "preferred")


def _vendor_view(state: Any, vendor: Any) -> dict[str, Any]:
    return {**vendor, "balance": parties.balance(state, parties.VENDOR, vendor["id"])}


def _create_vendor(state: State, args: Args) -> dict[str, Any]:
    fields = {
        "category": args["category"].strip(),
        "leadTimeDays": args.get("leadTimeDays", 7),
        "preferred": args.get("preferred", False),
        "qualityNotes": None,
    }
    return snapshot(parties.create(state, args, parties.VENDOR, fields))


def _update_vendor(state: State, args: Args) -> dict[str, Any]:
    return snapshot(parties.update(state, args, parties.VENDOR, UPDATABLE))


def _activate_vendor(state: State, args: Args) -> dict[str, Any]:
    allowed = ("pending_approval", "inactive", "blocked")
    return snapshot(parties.set_status(state, args, parties.VENDOR, "active", allowed, None))


def _block_vendor(state: State, args: Args) -> dict[str, Any]:
    allowed = ("pending_approval", "active", "inactive")
    vendor = parties.set_status(state, args, parties.VENDOR, "blocked", allowed, args["reason"])
    return snapshot(vendor)


def _get_vendor_balance(state: State, args: Args) -> dict[str, Any]:
    vendor = fetch(state, "vendors", args["vendorId"])
    return {"vendorName": vendor["name"], **parties.balance(state, parties.VENDOR, vendor["id"])}


def contact_fields() -> dict[str, Any]:
    """Schema properties of a party's contact person."""
    return {
        "contactName": text("Name of the contact person."),
        "contactEmail": email("Contact email address."),
        "contactPhone": text("Contact phone number, any format.", max_length=40),
    }


VENDOR_ID = "Id of the vendor, e.g. VEN-002."

TOOLS: list[Tool] = [
    list_tool(
        "list_vendors",
        "List vendors, optionally filtered by status, category or preferred flag.",
        "vendors",
        {
            "status": choice(VENDOR_STATUSES, "Only vendors in this status."),
            "category": text("Only vendors of this category (e.g. fasteners)."),
            "preferred": flag("Only preferred (true) or non-preferred (false) vendors."),
        },
    ),
    search_tool(
        "search_vendors",
        "Find vendors whose id, name, category or contact name/email contains the query.",
        "vendors",
        lambda v: (v["id"], v["name"], v["category"], v["contact"]["name"], v["contact"]["email"]),
    ),
    get_tool(
        "get_vendor",
        "One vendor with its terms, contact, status reason, quality notes and payables balance.",
        "vendors",
        "vendor",
        "vendorId",
        view=_vendor_view,
        example="VEN-002",
    ),
    WRITES.tool(
        "create_vendor",
        "Register a new vendor; it starts pending_approval until activate_vendor. Names must be "
        "unique.",
        obj(
            {
                "actorId": actor(),
                "name": text("Vendor's trading name."),
                "category": text("What the vendor supplies (e.g. fasteners, safety)."),
                "paymentTerms": choice(TERMS, "Payment terms (default NET_30)."),
                "leadTimeDays": integer("Usual days from order to delivery (default 7).", 0, 365),
                "preferred": flag("Whether this is a preferred vendor (default false).", False),
                **contact_fields(),
            },
            ["actorId", "name", "category"],
        ),
        _create_vendor,
    ),
    WRITES.tool(
        "update_vendor",
        "Change a vendor's payment terms, lead time, contact details or preferred flag. Pass at "
        "least one field.",
        obj(
            {
                "actorId": actor(),
                "vendorId": record_id("vendor", VENDOR_ID),
                "paymentTerms": choice(TERMS, "New payment terms."),
                "leadTimeDays": integer("New usual lead time in days.", 0, 365),
                "preferred": flag("New preferred flag."),
                **contact_fields(),
            },
            ["actorId", "vendorId"],
        ),
        _update_vendor,
    ),
    WRITES.tool(
        "activate_vendor",
        "Make a pending, inactive or blocked vendor active so it can receive RFQs and orders.",
        acting_on("vendor", "vendorId", VENDOR_ID),
        _activate_vendor,
    ),
    WRITES.tool(
        "block_vendor",
        "Block a vendor with a reason (e.g. failed quality audits). Blocked vendors get no new "
        "purchase orders, RFQ invitations or accepted quotations.",
        acting_on("vendor", "vendorId", VENDOR_ID, reason=reason("Why the vendor is blocked.")),
        _block_vendor,
    ),
    define_tool(
        "get_vendor_balance",
        "What Meridian owes a vendor: outstanding and overdue payables with the open invoices.",
        by_id("vendor", "vendorId", VENDOR_ID),
        _get_vendor_balance,
        read_only=True,
    ),
]
