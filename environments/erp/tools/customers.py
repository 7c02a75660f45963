"""Customer tools: the accounts Meridian sells to.

Contract: list (status, segment), search (id, name, segment, contact), get (with balance),
create (starts ``pending_approval``; a name already used is a ``conflict``), update (terms,
credit limit, contact), activate, block (status ``blocked`` or ``credit_hold``, with a reason)
and the receivables balance (outstanding, overdue, credit available). Each mutation appends
one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, define_tool
from silo.toolkit.guards import Args
from silo.toolkit.results import snapshot
from silo.toolkit.schema import choice, obj, text

from ..domain.money import round2
from . import parties
from .common import WRITES, State, fetch
from .crud import get_tool, list_tool, search_tool
from .schema import CUSTOMER_STATUSES, TERMS, acting_on, actor, by_id, money, reason, record_id
from .vendors import contact_fields

UPDATABLE = ("paymentTerms", "creditLimit")


def _receivables(state: Any, customer: Any) -> dict[str, Any]:
    balance = parties.balance(state, parties.CUSTOMER, customer["id"])
    return {
        **balance,
        "creditLimit": customer["creditLimit"],
        "creditAvailable": round2(float(customer["creditLimit"]) - balance["outstanding"]),
    }


def _customer_view(state: Any, customer: Any) -> dict[str, Any]:
    return {**customer, "balance": _receivables(state, customer)}


def _create_customer(state: State, args: Args) -> dict[str, Any]:
    fields = {
        "segment": args["segment"].strip(),
        "creditLimit": args.get("creditLimit", 0),
        "salesRepId": args["actorId"],
    }
    return snapshot(parties.create(state, args, parties.CUSTOMER, fields))


def _update_customer(state: State, args: Args) -> dict[str, Any]:
    return snapshot(parties.update(state, args, parties.CUSTOMER, UPDATABLE))


def _activate_customer(state: State, args: Args) -> dict[str, Any]:
    allowed = ("pending_approval", "inactive", "blocked", "credit_hold")
    return snapshot(parties.set_status(state, args, parties.CUSTOMER, "active", allowed, None))


def _block_customer(state: State, args: Args) -> dict[str, Any]:
    status = args["status"]
    allowed = tuple(
        s for s in ("pending_approval", "active", "inactive", "credit_hold") if s != status
    )
    customer = parties.set_status(state, args, parties.CUSTOMER, status, allowed, args["reason"])
    return snapshot(customer)


def _get_customer_balance(state: State, args: Args) -> dict[str, Any]:
    customer = fetch(state, "customers", args["customerId"])
    return {"customerName": customer["name"], **_receivables(state, customer)}


CUSTOMER_ID = "Id of the customer, e.g. CUS-003."

TOOLS: list[Tool] = [
    list_tool(
        "list_customers",
        "List customers, optionally filtered by status or segment.",
        "customers",
        {
            "status": choice(CUSTOMER_STATUSES, "Only customers in this status."),
            "segment": text("Only customers of this segment (e.g. manufacturing)."),
        },
    ),
    search_tool(
        "search_customers",
        "Find customers whose id, name, segment or contact name/email contains the query.",
        "customers",
        lambda c: (c["id"], c["name"], c["segment"], c["contact"]["name"], c["contact"]["email"]),
    ),
    get_tool(
        "get_customer",
        "One customer with terms, credit limit, status reason and receivables balance.",
        "customers",
        "customer",
        "customerId",
        view=_customer_view,
        example="CUS-003",
    ),
    WRITES.tool(
        "create_customer",
        "Register a new customer; it starts pending_approval until activate_customer. Names "
        "must be unique.",
        obj(
            {
                "actorId": actor(),
                "name": text("Customer's trading name."),
                "segment": text("Industry segment (e.g. manufacturing)."),
                "paymentTerms": choice(TERMS, "Payment terms (default NET_30)."),
                "creditLimit": money("Credit limit in USD (default 0)."),
                **contact_fields(),
            },
            ["actorId", "name", "segment"],
        ),
        _create_customer,
    ),
    WRITES.tool(
        "update_customer",
        "Change a customer's payment terms, credit limit or contact details. Pass at least one "
        "field.",
        obj(
            {
                "actorId": actor(),
                "customerId": record_id("customer", CUSTOMER_ID),
                "paymentTerms": choice(TERMS, "New payment terms."),
                "creditLimit": money("New credit limit in USD."),
                **contact_fields(),
            },
            ["actorId", "customerId"],
        ),
        _update_customer,
    ),
    WRITES.tool(
        "activate_customer",
        "Make a pending, inactive, blocked or credit-held customer active.",
        acting_on("customer", "customerId", CUSTOMER_ID),
        _activate_customer,
    ),
    WRITES.tool(
        "block_customer",
        "Put a customer on credit_hold (can still get draft orders, none confirmed) or block "
        "it outright, with a reason such as non-payment.",
        acting_on(
            "customer",
            "customerId",
            CUSTOMER_ID,
            status=choice(("blocked", "credit_hold"), "blocked or credit_hold."),
            reason=reason("Why, e.g. 'Non-payment: CINV-403 and CINV-407 overdue'."),
        ),
        _block_customer,
    ),
    define_tool(
        "get_customer_balance",
        "What a customer owes: outstanding and overdue receivables, credit limit and credit "
        "still available, with the open invoices.",
        by_id("customer", "customerId", CUSTOMER_ID),
        _get_customer_balance,
        read_only=True,
    ),
]
