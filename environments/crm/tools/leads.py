"""Lead tools: prospects not yet in the customer records.

Contract: list (filter by status, owner, source), search (id, name, company, email), get (with
age in days), create (status ``new``), update (contact details, owner, notes, or mark contacted
today, which moves a new lead to ``working``), qualify (new or working to ``qualified``),
disqualify (with a reason). Conversion lives in ``conversion``; converted leads are frozen.
Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import apply_changes, non_blank, search_term
from silo.toolkit.results import contains, sorted_by_id
from silo.toolkit.schema import choice, email, flag, text

from ..state import mint_id
from .common import WRITES, assignable_user, fetch, page
from .schema import (
    LEAD_SOURCES,
    LEAD_STATUSES,
    by_id,
    listing,
    long_text,
    record_id,
    searching,
)
from .views import lead_view

State = dict[str, Any]
Args = dict[str, Any]

UPDATABLE = ("email", "phone", "title", "company", "industry", "ownerId", "notes")


def lead_in_status(state: State, args: Args, allowed: tuple[str, ...], verb: str) -> dict[str, Any]:
    """The lead in ``args``; refuses leads whose status forbids ``verb``."""
    lead = fetch(state, "leads", args["leadId"])
    if lead["status"] not in allowed:
        raise ToolError(
            "invalid_state",
            f"{lead['id']} is {lead['status']} and cannot be {verb}",
            {"id": lead["id"], "status": lead["status"]},
        )
    return lead


def _list_leads(state: State, args: Args) -> dict[str, Any]:
    rows = [
        lead_view(state, lead)
        for lead in sorted_by_id(state["leads"].values())
        if all(lead[key] == args[key] for key in ("status", "ownerId", "source") if key in args)
    ]
    return page(rows, args)


def _search_leads(state: State, args: Args) -> dict[str, Any]:
    term = search_term(args)
    rows = [
        lead_view(state, lead)
        for lead in sorted_by_id(state["leads"].values())
        if contains(
            term,
            (lead["id"], f"{lead['firstName']} {lead['lastName']}", lead["company"], lead["email"]),
        )
    ]
    return page(rows, args)


def _get_lead(state: State, args: Args) -> dict[str, Any]:
    return lead_view(state, fetch(state, "leads", args["leadId"]))


def _create_lead(state: State, args: Args) -> dict[str, Any]:
    owner = assignable_user(state, args.get("ownerId", args["actorId"]))
    names = {key: non_blank(args[key], key) for key in ("firstName", "lastName", "company")}
    lead = {
        "id": mint_id(state, "LEAD"),
        **names,
        "industry": args.get("industry", ""),
        "title": args.get("title", ""),
        "email": args["email"].strip(),
        "phone": args.get("phone", ""),
        "source": args["source"],
        "status": "new",
        "ownerId": owner["id"],
        "createdOn": state["now"],
        "lastContactedOn": None,
        "notes": args.get("notes", ""),
        "disqualifyReason": None,
        "convertedOn": None,
        "convertedAccountId": None,
        "convertedContactId": None,
        "convertedOpportunityId": None,
    }
    state["leads"][lead["id"]] = lead
    WRITES.audit(state, args, "lead.created", "lead", lead["id"])
    return lead_view(state, lead)


def _update_lead(state: State, args: Args) -> dict[str, Any]:
    lead = lead_in_status(state, args, ("new", "working", "qualified", "disqualified"), "edited")
    updates = {key: args[key] for key in UPDATABLE if key in args}
    if "company" in updates:
        updates["company"] = non_blank(updates["company"], "company")
    if "ownerId" in updates:
        assignable_user(state, updates["ownerId"])
    if args.get("markContacted"):
        updates["lastContactedOn"] = state["now"]
        if lead["status"] == "new":
            updates["status"] = "working"
    if not updates:
        raise ToolError(
            "invalid_input",
            f"nothing to update; pass markContacted or one of: {', '.join(UPDATABLE)}",
        )
    diff = apply_changes(lead, updates)
    WRITES.audit(state, args, "lead.updated", "lead", lead["id"], diff)
    return lead_view(state, lead)


def _qualify_lead(state: State, args: Args) -> dict[str, Any]:
    lead = lead_in_status(state, args, ("new", "working"), "qualified")
    lead["status"] = "qualified"
    WRITES.audit(state, args, "lead.qualified", "lead", lead["id"])
    return lead_view(state, lead)


def _disqualify_lead(state: State, args: Args) -> dict[str, Any]:
    lead = lead_in_status(state, args, ("new", "working", "qualified"), "disqualified")
    reason = non_blank(args["reason"], "reason")
    lead["status"] = "disqualified"
    lead["disqualifyReason"] = reason
    WRITES.audit(state, args, "lead.disqualified", "lead", lead["id"], {"reason": reason})
    return lead_view(state, lead)


def lead_id(description: str) -> dict[str, Any]:
    """Schema of a lead id property."""
    return record_id("lead", description)


TOOLS: list[Tool] = [
    define_tool(
        "list_leads",
        "List leads, optionally filtered by status, owner or source.",
        listing(
            {
                "status": choice(LEAD_STATUSES, "Only leads in this status."),
                "ownerId": record_id("user", "Only leads owned by this user."),
                "source": choice(LEAD_SOURCES, "Only leads from this source."),
            }
        ),
        _list_leads,
        read_only=True,
    ),
    define_tool(
        "search_leads",
        "Find leads whose id, full name, company or email contains the query text.",
        searching(),
        _search_leads,
        read_only=True,
    ),
    define_tool(
        "get_lead",
        "One lead with its age in days and, once converted, the records it became.",
        by_id("lead", "leadId", "Id of the lead, e.g. LEAD-004."),
        _get_lead,
        read_only=True,
    ),
    WRITES.tool(
        "create_lead",
        "Record a new lead (status new). The owner defaults to the acting user.",
        WRITES.input(
            {
                "firstName": text("Given name."),
                "lastName": text("Family name."),
                "company": text("Company the lead works for."),
                "email": email("Email address."),
                "source": choice(LEAD_SOURCES, "Where the lead came from."),
                "phone": text("Phone number, any format."),
                "title": text("Job title."),
                "industry": text("Industry of the company."),
                "ownerId": record_id("user", "Active user who will work the lead."),
                "notes": long_text("Free-text notes."),
            },
            ["firstName", "lastName", "company", "email", "source"],
        ),
        _create_lead,
    ),
    WRITES.tool(
        "update_lead",
        "Change a lead's details or owner, or set markContacted to stamp today's contact (a new "
        "lead becomes working). Converted leads cannot be changed.",
        WRITES.input(
            {
                "leadId": lead_id("Id of the lead to change."),
                "email": email("New email address."),
                "phone": text("New phone number."),
                "title": text("New job title."),
                "company": text("New company name."),
                "industry": text("New industry."),
                "ownerId": record_id("user", "Active user who should own the lead."),
                "notes": long_text("Replacement notes."),
                "markContacted": flag("true to record that the lead was contacted today.", False),
            },
            ["leadId"],
        ),
        _update_lead,
    ),
    WRITES.tool(
        "qualify_lead",
        "Mark a new or working lead as qualified, ready to convert.",
        WRITES.input(
            {"leadId": lead_id("Id of the lead to qualify.")},
            ["leadId"],
        ),
        _qualify_lead,
    ),
    WRITES.tool(
        "disqualify_lead",
        "Mark a lead as disqualified with a reason. Converted leads cannot be disqualified.",
        WRITES.input(
            {
                "leadId": lead_id("Id of the lead to disqualify."),
                "reason": text(
                    "Why the lead is not worth pursuing.", min_length=3, max_length=2000
                ),
            },
            ["leadId", "reason"],
        ),
        _disqualify_lead,
    ),
]
