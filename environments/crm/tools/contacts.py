"""Contact tools: the people at accounts.

Contract: list (filter by account, primary only), search (id, name, email, title), get, create,
update and link to an account. Emails are unique ignoring case. An account has at most one
primary contact: making one primary demotes the others, and only a contact on an account can be
primary. Each mutation appends one audit row. :func:`new_contact` is shared with lead
conversion.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import apply_changes, changes, non_blank, search_term
from silo.toolkit.results import contains, sorted_by_id
from silo.toolkit.schema import email, flag, text

from ..state import CONTACTS_BY_ACCOUNT, mint_id
from .common import WRITES, fetch, page
from .schema import by_id, listing, record_id, searching
from .views import contact_view

State = dict[str, Any]
Args = dict[str, Any]

UPDATABLE = ("firstName", "lastName", "email", "phone", "title")


def check_email_free(state: State, address: str, own_id: str | None = None) -> None:
    wanted = address.strip().casefold()
    for contact in state["contacts"].values():
        if contact["id"] != own_id and (contact["email"] or "").casefold() == wanted:
            raise ToolError(
                "conflict",
                f"contact {contact['id']} already uses {address}",
                {"id": contact["id"]},
            )


def _make_primary(state: State, contact: dict[str, Any]) -> list[str]:
    """Mark ``contact`` primary on its account; returns the ids of contacts demoted."""
    demoted = []
    for other in sorted_by_id(state["contacts"].values()):
        same_account = other["accountId"] == contact["accountId"]
        if other["id"] != contact["id"] and same_account and other["isPrimary"]:
            other["isPrimary"] = False
            demoted.append(other["id"])
    contact["isPrimary"] = True
    return demoted


def has_primary(state: State, account_id: str) -> bool:
    """Whether the account already has a primary contact."""
    return any(c["isPrimary"] for c in CONTACTS_BY_ACCOUNT.rows(state, account_id))


def new_contact(
    state: State, fields: Args, account_id: str | None, primary: bool
) -> dict[str, Any]:
    """Create and store a contact, demoting the account's old primary if ``primary``."""
    if primary and account_id is None:
        raise ToolError("invalid_input", "only a contact on an account can be its primary contact")
    check_email_free(state, fields["email"])
    first_name = non_blank(fields["firstName"], "firstName")
    last_name = non_blank(fields["lastName"], "lastName")
    contact = {
        "id": mint_id(state, "CON"),
        "firstName": first_name,
        "lastName": last_name,
        "email": fields["email"].strip(),
        "phone": fields.get("phone") or "",
        "title": fields.get("title") or "",
        "accountId": account_id,
        "isPrimary": False,
        "createdOn": state["now"],
    }
    state["contacts"][contact["id"]] = contact
    if primary:
        _make_primary(state, contact)
    return contact


def _list_contacts(state: State, args: Args) -> dict[str, Any]:
    rows = [
        contact_view(state, contact)
        for contact in sorted_by_id(state["contacts"].values())
        if ("accountId" not in args or contact["accountId"] == args["accountId"])
        and (not args.get("primaryOnly") or contact["isPrimary"])
    ]
    return page(rows, args)


def _search_contacts(state: State, args: Args) -> dict[str, Any]:
    term = search_term(args)
    rows = [
        contact_view(state, contact)
        for contact in sorted_by_id(state["contacts"].values())
        if contains(
            term,
            (
                contact["id"],
                f"{contact['firstName']} {contact['lastName']}",
                contact["email"],
                contact["title"],
            ),
        )
    ]
    return page(rows, args)


def _get_contact(state: State, args: Args) -> dict[str, Any]:
    return contact_view(state, fetch(state, "contacts", args["contactId"]))


def _create_contact(state: State, args: Args) -> dict[str, Any]:
    account_id = args.get("accountId")
    if account_id is not None:
        fetch(state, "accounts", account_id)
    contact = new_contact(state, args, account_id, bool(args.get("isPrimary", False)))
    WRITES.audit(state, args, "contact.created", "contact", contact["id"])
    return contact_view(state, contact)


def _update_contact(state: State, args: Args) -> dict[str, Any]:
    contact = fetch(state, "contacts", args["contactId"])
    updates = changes(args, UPDATABLE)
    for name in ("firstName", "lastName"):
        if name in updates:
            updates[name] = non_blank(updates[name], name)
    if "email" in updates:
        check_email_free(state, updates["email"], contact["id"])
    diff = apply_changes(contact, updates)
    WRITES.audit(state, args, "contact.updated", "contact", contact["id"], diff)
    return contact_view(state, contact)


def _link_contact(state: State, args: Args) -> dict[str, Any]:
    contact = fetch(state, "contacts", args["contactId"])
    account = fetch(state, "accounts", args["accountId"])
    make_primary = bool(args.get("makePrimary", False))
    previous = contact["accountId"]
    if previous == account["id"] and (contact["isPrimary"] or not make_primary):
        raise ToolError(
            "conflict", f"{contact['id']} is already linked to {account['id']} that way"
        )
    if previous != account["id"]:
        contact["accountId"] = account["id"]
        contact["isPrimary"] = False
    demoted = _make_primary(state, contact) if make_primary else []
    details = {"fromAccountId": previous, "toAccountId": account["id"], "demoted": demoted}
    WRITES.audit(state, args, "contact.linked", "contact", contact["id"], details)
    return contact_view(state, contact)


def _person_fields() -> dict[str, Any]:
    """The optional properties create_contact and update_contact share."""
    return {
        "phone": text("Phone number, any format."),
        "title": text("Job title."),
    }


TOOLS: list[Tool] = [
    define_tool(
        "list_contacts",
        "List contacts, optionally only those of one account or only primary contacts.",
        listing(
            {
                "accountId": record_id("account", "Only contacts on this account."),
                "primaryOnly": flag("true to return only the primary contact of each account."),
            }
        ),
        _list_contacts,
        read_only=True,
    ),
    define_tool(
        "search_contacts",
        "Find contacts whose id, full name, email or job title contains the query text.",
        searching(),
        _search_contacts,
        read_only=True,
    ),
    define_tool(
        "get_contact",
        "One contact with the name of its account.",
        by_id("contact", "contactId", "Id of the contact, e.g. CON-003."),
        _get_contact,
        read_only=True,
    ),
    WRITES.tool(
        "create_contact",
        "Create a contact, optionally on an account. Making it primary demotes the account's "
        "current primary contact; a contact without an account cannot be primary.",
        WRITES.input(
            {
                "firstName": text("Given name."),
                "lastName": text("Family name."),
                "email": email("Email address; must not belong to another contact."),
                **_person_fields(),
                "accountId": record_id("account", "Account the contact works for."),
                "isPrimary": flag("Make this the account's primary contact.", False),
            },
            ["firstName", "lastName", "email"],
        ),
        _create_contact,
    ),
    WRITES.tool(
        "update_contact",
        "Change a contact's name, email, phone or title. Pass only the fields to change; use "
        "link_contact_to_account to change the account.",
        WRITES.input(
            {
                "contactId": record_id("contact", "Id of the contact to change."),
                "firstName": text("New given name."),
                "lastName": text("New family name."),
                "email": email("New email address; must not belong to another contact."),
                **_person_fields(),
            },
            ["contactId"],
        ),
        _update_contact,
    ),
    WRITES.tool(
        "link_contact_to_account",
        "Attach a contact to an account (moving it from any previous account), optionally as "
        "the account's primary contact.",
        WRITES.input(
            {
                "contactId": record_id("contact", "Id of the contact to attach."),
                "accountId": record_id("account", "Id of the account to attach it to."),
                "makePrimary": flag("Also make it the account's primary contact.", False),
            },
            ["contactId", "accountId"],
        ),
        _link_contact,
    ),
]
