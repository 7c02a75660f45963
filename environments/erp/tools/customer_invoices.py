"""Customer invoice tools: billing what shipped, and following the money owed.

Contract: list (status, customer, sales order), search (id, customer, order) and get (with
payments, outstanding, overdue). ``create_customer_invoice`` drafts an invoice: on a sales
order its lines bill shipped units not yet billed by a live invoice (omitted lines: all of
them, at the order's prices) and more is refused; without an order it needs ``customerId``
and lines. ``issue_customer_invoice`` dates it, sets the due date from the customer's terms
and marks a fully shipped and fully billed order ``invoiced``. ``cancel_customer_invoice``
(nothing paid) and ``write_off_customer_invoice`` (approval limit must cover what is written
off) close an invoice. The receivables readers live in :mod:`.receivables`; :data:`TOOLS` lists
all eleven in the reference's order. Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError
from silo.toolkit.guards import Args, non_blank
from silo.toolkit.schema import choice, day, obj

from ..domain.approvals import require_authority
from ..domain.documents import due_date, line_of, outstanding
from ..domain.money import round2
from ..state import mint_id, today
from . import finance, receivables
from .common import WRITES, State, audit, fetch, parse_day
from .crud import get_tool, list_tool, search_tool
from .lines import product_lines, reprice
from .receivables import OPEN, billed_units, customer_invoice_view, shown, unbilled
from .schema import (
    CUSTOMER_INVOICE_STATUSES,
    acting_on,
    actor,
    amount,
    line_id,
    lines,
    long_text,
    quantity,
    reason,
    record_id,
)


def _order_lines(state: State, so: Any, given: list[Args] | None) -> list[dict[str, Any]]:
    wanted = given or [
        {"soLineId": line["id"], "quantity": unbilled(state, so, line)}
        for line in so["lines"]
        if unbilled(state, so, line) > 0
    ]
    if not wanted:
        raise ToolError(
            "invalid_state",
            f"{so['id']} has nothing shipped and not yet billed; see list_uninvoiced_shipments",
            {"id": so["id"]},
        )
    built = []
    for item in wanted:
        line = line_of(so, item["soLineId"])
        room = unbilled(state, so, line)
        units = int(item.get("quantity", room))
        if units > room or units <= 0:
            raise ToolError(
                "invalid_input",
                f"{line['id']} has {room} shipped and not yet billed; bill between 1 and {room}",
                {"lineId": line["id"], "billable": room},
            )
        built.append(
            {
                "soLineId": line["id"],
                "productId": line["productId"],
                "quantity": units,
                "unitPrice": round2(item.get("unitPrice", line["unitPrice"])),
            }
        )
    return built


def _free_lines(state: State, given: list[Args] | None) -> list[dict[str, Any]]:
    if not given or any("productId" not in item for item in given):
        raise ToolError(
            "invalid_input", "an invoice without salesOrderId needs lines with productId"
        )
    return [
        {"soLineId": None, **line}
        for line in product_lines(state, given, default_price="listPrice")
    ]


def _create(state: State, args: Args) -> dict[str, Any]:
    so = fetch(state, "salesOrders", args["salesOrderId"]) if "salesOrderId" in args else None
    if so is not None:
        if so["status"] in ("draft", "cancelled"):
            raise ToolError("invalid_state", f"{so['id']} is {so['status']}; nothing has shipped")
        if args.get("customerId", so["customerId"]) != so["customerId"]:
            raise ToolError("invalid_input", f"{so['id']} belongs to {so['customerId']}")
        customer_id = so["customerId"]
        built = _order_lines(state, so, args.get("lines"))
    elif "customerId" in args:
        customer_id = fetch(state, "customers", args["customerId"])["id"]
        built = _free_lines(state, args.get("lines"))
    else:
        raise ToolError("invalid_input", "pass salesOrderId (or customerId and lines)")
    invoice_id = mint_id(state, "CINV")
    invoice: dict[str, Any] = {
        "id": invoice_id,
        "customerId": customer_id,
        "salesOrderId": so["id"] if so else None,
        "status": "draft",
        "issueDate": None,
        "dueDate": None,
        "lines": built,
        "amountPaid": 0,
        "createdBy": args["actorId"],
        "writeOffReason": None,
        "cancelReason": None,
        "notes": args.get("notes", ""),
    }
    reprice(invoice, taxed=True)
    state["customerInvoices"][invoice_id] = invoice
    audit(
        state, args, "customer_invoice.created", invoice, {"salesOrderId": invoice["salesOrderId"]}
    )
    return shown(state, invoice)


def _fully_billed(state: State, so: Any) -> bool:
    return all(
        billed_units(state, so["id"], line["id"]) >= int(line["quantity"]) for line in so["lines"]
    )


def _invoice(state: State, args: Args, allowed: tuple[str, ...], verb: str) -> dict[str, Any]:
    return finance.acted_on(state, args, "customerInvoices", "customerInvoiceId", allowed, verb)


def _issue(state: State, args: Args) -> dict[str, Any]:
    invoice = _invoice(state, args, ("draft",), "issued")
    issued_on = args.get("issueDate", today(state))
    parse_day(issued_on, "issueDate")
    terms = state["customers"][invoice["customerId"]]["paymentTerms"]
    invoice["status"] = "issued"
    invoice["issueDate"] = issued_on
    invoice["dueDate"] = due_date(issued_on, terms)
    so = state["salesOrders"].get(invoice["salesOrderId"] or "")
    if so is not None and so["status"] == "fulfilled" and _fully_billed(state, so):
        so["status"] = "invoiced"
    audit(state, args, "customer_invoice.issued", invoice, {"dueDate": invoice["dueDate"]})
    return shown(state, invoice)


def _cancel(state: State, args: Args) -> dict[str, Any]:
    invoice = _invoice(state, args, ("draft", "issued"), "cancelled")
    if float(invoice["amountPaid"]) > 0:
        raise ToolError("invalid_state", f"{invoice['id']} has payments; write it off instead")
    note = non_blank(args["reason"], "reason")
    invoice["status"] = "cancelled"
    invoice["cancelReason"] = note
    so = state["salesOrders"].get(invoice["salesOrderId"] or "")
    if so is not None and so["status"] == "invoiced":
        so["status"] = "fulfilled"
    audit(state, args, "customer_invoice.cancelled", invoice, {"reason": note})
    return shown(state, invoice)


def _write_off(state: State, args: Args) -> dict[str, Any]:
    invoice = _invoice(state, args, OPEN, "written off")
    owed = outstanding(invoice)
    require_authority(state, state["users"][args["actorId"]], owed)
    note = non_blank(args["reason"], "reason")
    invoice["status"] = "written_off"
    invoice["writeOffReason"] = note
    audit(state, args, "customer_invoice.written_off", invoice, {"amount": owed, "reason": note})
    return shown(state, invoice)


_CUSTOMER = record_id("customer", "Only this customer.")


def _line_item() -> dict[str, Any]:
    return {
        "soLineId": line_id("Sales-order line billed, e.g. SO-306-L1."),
        "productId": record_id("product", "Product billed (only without a sales order)."),
        "quantity": quantity("Units billed (default: shipped and not yet billed)."),
        "unitPrice": amount("Price per unit (default: the order's price or list price)."),
    }


TOOLS: list[Tool] = [
    list_tool(
        "list_customer_invoices",
        "List customer invoices with outstanding amount and overdue flag. Filter by status, "
        "customer or sales order.",
        "customerInvoices",
        {
            "status": choice(CUSTOMER_INVOICE_STATUSES, "Only invoices in this status."),
            "customerId": _CUSTOMER,
            "salesOrderId": record_id("sales_order", "Only invoices for this order."),
        },
        view=customer_invoice_view,
    ),
    search_tool(
        "search_customer_invoices",
        "Find customer invoices whose id, customer id or sales order id contains the query.",
        "customerInvoices",
        lambda inv: (inv["id"], inv["customerId"], inv["salesOrderId"]),
        view=customer_invoice_view,
    ),
    get_tool(
        "get_customer_invoice",
        "One customer invoice with payments and balance.",
        "customerInvoices",
        "customer_invoice",
        "customerInvoiceId",
        view=customer_invoice_view,
        example="CINV-403",
    ),
    WRITES.tool(
        "create_customer_invoice",
        "Draft a customer invoice. With salesOrderId, omitted lines bill every shipped unit "
        "not yet billed, at the order's prices; without, give customerId and lines.",
        obj(
            {
                "actorId": actor(),
                "salesOrderId": record_id("sales_order", "Order whose shipments are billed."),
                "customerId": record_id("customer", "Customer billed (only without an order)."),
                "lines": lines(
                    "What is billed (default: shipped, not yet billed).", _line_item(), []
                ),
                "notes": long_text("Free-text notes."),
            },
            ["actorId"],
        ),
        _create,
    ),
    WRITES.tool(
        "issue_customer_invoice",
        "Issue a draft invoice: sets the issue date (default today) and the due date from the "
        "customer's terms; a fully shipped and billed order becomes invoiced.",
        obj(
            {
                "actorId": actor(),
                "customerInvoiceId": record_id("customer_invoice", "Draft invoice."),
                "issueDate": day("Issue date (default today)."),
            },
            ["actorId", "customerInvoiceId"],
        ),
        _issue,
    ),
    WRITES.tool(
        "cancel_customer_invoice",
        "Cancel a draft or issued invoice on which nothing has been paid.",
        acting_on(
            "customer_invoice",
            "customerInvoiceId",
            "Invoice to cancel.",
            reason=reason("Why it is cancelled."),
        ),
        _cancel,
    ),
    WRITES.tool(
        "write_off_customer_invoice",
        "Write off what is still owed on an issued invoice as uncollectable. The acting user's "
        "approval limit must cover the amount.",
        acting_on(
            "customer_invoice",
            "customerInvoiceId",
            "Invoice to write off.",
            reason=reason("Why it cannot be collected."),
        ),
        _write_off,
    ),
    *receivables.TOOLS,
]

__all__ = ["TOOLS"]
