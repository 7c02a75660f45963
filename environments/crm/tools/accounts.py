"""Account tools: the companies the team sells to.

Contract: list (filter by owner, tier, industry), search (id, name, industry, website, city),
get (with contacts and every opportunity), create and update. Account names are unique ignoring
case; owners must be active users. Each create or update appends one audit row.
:func:`new_account` is shared with lead conversion.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import apply_changes, changes, non_blank, search_term
from silo.toolkit.results import contains, snapshot, sorted_by_id
from silo.toolkit.schema import choice, text

from ..state import CONTACTS_BY_ACCOUNT, OPPORTUNITIES_BY_ACCOUNT, mint_id
from .common import WRITES, assignable_user, fetch, page
from .schema import ACCOUNT_TIERS, by_id, listing, long_text, record_id, searching
from .views import contact_view, opportunity_view

State = dict[str, Any]
Args = dict[str, Any]

UPDATABLE = ("industry", "tier", "website", "city", "ownerId", "notes")


def account_named(state: State, name: str) -> dict[str, Any] | None:
    """The account whose name equals ``name`` ignoring case and surrounding spaces."""
    wanted = name.strip().casefold()
    for account in state["accounts"].values():
        if account["name"].strip().casefold() == wanted:
            return account
    return None


def new_account(state: State, fields: Args, owner_id: str) -> dict[str, Any]:
    """Create and store an account; refuses a name that is already taken."""
    name = non_blank(fields["name"], "name")
    existing = account_named(state, name)
    if existing is not None:
        raise ToolError(
            "conflict",
            f"account {existing['id']} is already called {existing['name']!r}; use it instead",
            {"id": existing["id"]},
        )
    assignable_user(state, owner_id)
    account = {
        "id": mint_id(state, "ACC"),
        "name": name,
        "industry": fields.get("industry", ""),
        "tier": fields.get("tier", "smb"),
        "website": fields.get("website", ""),
        "city": fields.get("city", ""),
        "ownerId": owner_id,
        "createdOn": state["now"],
        "notes": fields.get("notes", ""),
    }
    state["accounts"][account["id"]] = account
    return account


def _list_accounts(state: State, args: Args) -> dict[str, Any]:
    industry = args.get("industry", "").strip().casefold()
    rows = [
        account
        for account in sorted_by_id(state["accounts"].values())
        if ("ownerId" not in args or account["ownerId"] == args["ownerId"])
        and ("tier" not in args or account["tier"] == args["tier"])
        and (not industry or account["industry"].casefold() == industry)
    ]
    return page(rows, args)


def _search_accounts(state: State, args: Args) -> dict[str, Any]:
    term = search_term(args)
    fields = ("id", "name", "industry", "website", "city")
    rows = [
        account
        for account in sorted_by_id(state["accounts"].values())
        if contains(term, (account[field] for field in fields))
    ]
    return page(rows, args)


def _get_account(state: State, args: Args) -> dict[str, Any]:
    account = fetch(state, "accounts", args["accountId"])
    contacts = CONTACTS_BY_ACCOUNT.rows(state, account["id"])
    deals = OPPORTUNITIES_BY_ACCOUNT.rows(state, account["id"])
    return {
        **snapshot(account),
        "contacts": [contact_view(state, c) for c in sorted_by_id(contacts)],
        "opportunities": [opportunity_view(state, o) for o in sorted_by_id(deals)],
    }


def _create_account(state: State, args: Args) -> dict[str, Any]:
    account = new_account(state, args, args.get("ownerId", args["actorId"]))
    WRITES.audit(state, args, "account.created", "account", account["id"])
    return snapshot(account)


def _update_account(state: State, args: Args) -> dict[str, Any]:
    account = fetch(state, "accounts", args["accountId"])
    updates = changes(args, UPDATABLE)
    if "ownerId" in updates:
        assignable_user(state, updates["ownerId"])
    diff = apply_changes(account, updates)
    WRITES.audit(state, args, "account.updated", "account", account["id"], diff)
    return snapshot(account)


def _descriptive_fields() -> dict[str, Any]:
    """The optional properties create_account and update_account share."""
    return {
        "industry": text("Industry, e.g. Logistics or Healthcare."),
        "tier": choice(ACCOUNT_TIERS, "Size tier of the account."),
        "website": text("Website domain, e.g. example.com."),
        "city": text("City of the head office."),
        "notes": long_text("Free-text notes about the account (replaces the current notes)."),
    }


TOOLS: list[Tool] = [
    define_tool(
        "list_accounts",
        "List accounts (customer and prospect companies), optionally filtered by owner, tier "
        "or industry.",
        listing(
            {
                "ownerId": record_id("user", "Only accounts owned by this user."),
                "tier": choice(ACCOUNT_TIERS, "Only accounts of this tier."),
                "industry": text("Only accounts in this industry (exact name, any case)."),
            }
        ),
        _list_accounts,
        read_only=True,
    ),
    define_tool(
        "search_accounts",
        "Find accounts whose id, name, industry, website or city contains the query text.",
        searching(),
        _search_accounts,
        read_only=True,
    ),
    define_tool(
        "get_account",
        "One account with its contacts and all of its opportunities (open and closed).",
        by_id("account", "accountId", "Id of the account, e.g. ACC-004."),
        _get_account,
        read_only=True,
    ),
    WRITES.tool(
        "create_account",
        "Create a new account. The name must not match an existing account; the owner defaults "
        "to the acting user and must be active.",
        WRITES.input(
            {
                "name": text("Company name of the new account."),
                **_descriptive_fields(),
                "ownerId": record_id("user", "Active user who will own the account."),
            },
            ["name"],
        ),
        _create_account,
    ),
    WRITES.tool(
        "update_account",
        "Change an account's industry, tier, website, city, notes or owner. Pass only the "
        "fields to change.",
        WRITES.input(
            {
                "accountId": record_id("account", "Id of the account to change."),
                **_descriptive_fields(),
                "ownerId": record_id("user", "Active user who should own the account."),
            },
            ["accountId"],
        ),
        _update_account,
    ),
]
