"""Lead conversion: a qualified lead becomes a contact, maybe an account, and a deal.

Contract: ``convert_lead`` needs a qualified lead. It puts a new contact (from the lead's
details) on an existing account (``accountId``) or on a new account named after the lead's
company; a company that already has an account is refused with ``conflict`` rather than
duplicated. By default it also opens an opportunity in the first open stage, pointing back via
``sourceLeadId``, owned by the lead's owner while active (else by the acting user). Every check
runs before anything is written, and the whole conversion appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError
from silo.toolkit.schema import choice, day, flag, text

from .accounts import account_named, new_account
from .common import WRITES, fetch, future_day
from .contacts import check_email_free, has_primary, new_contact
from .leads import lead_id, lead_in_status
from .opportunities import new_opportunity
from .schema import ACCOUNT_TIERS, amount, record_id
from .views import lead_view

State = dict[str, Any]
Args = dict[str, Any]


def _conversion_account(state: State, args: Args, lead: dict[str, Any]) -> dict[str, Any] | None:
    """The existing account to convert onto, or None when a new one must be made."""
    if "accountId" in args:
        return fetch(state, "accounts", args["accountId"])
    clash = account_named(state, lead["company"])
    if clash is not None:
        raise ToolError(
            "conflict",
            f"{lead['company']} is already account {clash['id']}; pass accountId to convert "
            "onto it",
            {"id": clash["id"]},
        )
    return None


def _convert_lead(state: State, args: Args) -> dict[str, Any]:
    lead = lead_in_status(state, args, ("qualified",), "converted (qualify it first)")
    account = _conversion_account(state, args, lead)
    wants_deal = args.get("createOpportunity", True)
    if wants_deal:
        missing = [key for key in ("amount", "expectedCloseDate") if key not in args]
        if missing:
            raise ToolError(
                "invalid_input",
                f"creating the opportunity needs {' and '.join(missing)}; pass them or set "
                "createOpportunity to false",
            )
        future_day(state, args["expectedCloseDate"], "expectedCloseDate")
    check_email_free(state, lead["email"])
    owner_id = lead["ownerId"] if state["users"][lead["ownerId"]]["active"] else args["actorId"]
    if account is None:
        account = new_account(
            state,
            {
                "name": lead["company"],
                "industry": lead["industry"],
                "tier": args.get("accountTier", "smb"),
            },
            owner_id,
        )
    contact = new_contact(state, lead, account["id"], not has_primary(state, account["id"]))
    opp_id = None
    if wants_deal:
        deal = {
            "name": args.get("opportunityName") or f"{account['name']} new business",
            "amount": args["amount"],
            "expectedCloseDate": args["expectedCloseDate"],
            "primaryContactId": contact["id"],
            "sourceLeadId": lead["id"],
        }
        opp_id = new_opportunity(state, deal, account["id"], owner_id)["id"]
    links = {
        "convertedAccountId": account["id"],
        "convertedContactId": contact["id"],
        "convertedOpportunityId": opp_id,
    }
    lead.update({"status": "converted", "convertedOn": state["now"], **links})
    WRITES.audit(state, args, "lead.converted", "lead", lead["id"], links)
    return {"lead": lead_view(state, lead), **links}


TOOLS: list[Tool] = [
    WRITES.tool(
        "convert_lead",
        "Turn a qualified lead into a contact on an existing account (accountId) or on a new "
        "account named after its company, plus an opportunity (on by default; amount and "
        "expectedCloseDate are then required). The deal starts in the first open stage and is "
        "owned by the lead's owner when still active, otherwise by the acting user.",
        WRITES.input(
            {
                "leadId": lead_id("Id of the qualified lead to convert."),
                "accountId": record_id(
                    "account", "Existing account to attach to; omit to create a new account."
                ),
                "accountTier": choice(
                    ACCOUNT_TIERS, "Tier of a newly created account (default smb)."
                ),
                "createOpportunity": flag("Also open an opportunity.", True),
                "opportunityName": text(
                    "Name of the new deal (default: '<company> new business')."
                ),
                "amount": amount("Value of the new deal in US dollars."),
                "expectedCloseDate": day("Expected close date of the new deal (YYYY-MM-DD)."),
            },
            ["leadId"],
        ),
        _convert_lead,
    ),
]
