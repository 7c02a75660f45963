"""Sales order tools: taking, confirming and cancelling customer orders.

Contract: list (status, customer, warehouse), search (id, customer name, customer PO number)
and get (lines with what is left to ship, fulfillments, invoices). ``create_sales_order``
drafts an order: a blocked or inactive customer is refused, a customer on credit hold may
still have a draft; products must be active; unit prices default to list price; totals carry
8 % tax. ``update_sales_order`` edits drafts only. ``confirm_sales_order`` is refused for a
customer that is not active (blocked, credit hold...). ``cancel_sales_order`` is refused once
anything shipped and releases every reservation. ``list_unfulfilled_sales_orders`` shows open
orders with units left to ship. Stock and shipping tools live in :mod:`.shipping`;
:data:`TOOLS` lists all fourteen in the reference's order. Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Index, Tool, ToolError, define_tool
from silo.toolkit.guards import Args, apply_changes, changes, non_blank
from silo.toolkit.results import sorted_by_id
from silo.toolkit.schema import choice, day, obj, text

from ..state import mint_id, today
from . import shipping
from .common import WRITES, State, audit, fetch, name_of, page, parse_day, require_status
from .crud import get_tool, list_tool, search_tool
from .lines import product_lines, reprice
from .schema import (
    SALES_ORDER_STATUSES,
    acting_on,
    actor,
    amount,
    lines,
    listing,
    quantity,
    reason,
    record_id,
)

FULFILLMENTS_BY_ORDER = Index("fulfillments", "salesOrderId")
INVOICES_BY_ORDER = Index("customerInvoices", "salesOrderId")


def so_view(state: Any, so: Any) -> dict[str, Any]:
    """An order with customer name, units left per line, shipments and invoices."""
    return {
        **so,
        "customerName": name_of(state, "customers", so["customerId"]),
        "lines": [{**line, "remainingQuantity": shipping.remaining(line)} for line in so["lines"]],
        "fulfillmentIds": [row["id"] for row in FULFILLMENTS_BY_ORDER.rows(state, so["id"])],
        "invoiceIds": [row["id"] for row in INVOICES_BY_ORDER.rows(state, so["id"])],
    }


def _customer(state: State, customer_id: str) -> dict[str, Any]:
    customer = fetch(state, "customers", customer_id)
    if customer["status"] in ("blocked", "inactive"):
        raise ToolError(
            "invalid_state",
            f"{customer['name']} ({customer['id']}) is {customer['status']}: no new orders; "
            "activate the customer first",
            {"id": customer["id"], "status": customer["status"]},
        )
    return customer


def _order_lines(state: State, given: list[Args]) -> list[dict[str, Any]]:
    extra = {"reservedQuantity": 0, "fulfilledQuantity": 0}
    built = product_lines(state, given, default_price="listPrice", extra=extra)
    return [
        {**line, "warehouseId": item.get("warehouseId")}
        for line, item in zip(built, given, strict=True)
    ]


def _warehouse(state: State, warehouse_id: str) -> str:
    warehouse = fetch(state, "warehouses", warehouse_id)
    require_status(warehouse, ("active",), "used")
    return str(warehouse["id"])


def _create(state: State, args: Args) -> dict[str, Any]:
    customer = _customer(state, args["customerId"])
    warehouse_id = _warehouse(
        state, args.get("warehouseId", state["company"]["defaultWarehouseId"])
    )
    for item in args["lines"]:
        if "warehouseId" in item:
            _warehouse(state, item["warehouseId"])
    built = _order_lines(state, args["lines"])
    if "requestedDeliveryDate" in args:
        parse_day(args["requestedDeliveryDate"], "requestedDeliveryDate")
    so_id = mint_id(state, "SO")
    so: dict[str, Any] = {
        "id": so_id,
        "customerId": customer["id"],
        "status": "draft",
        "warehouseId": warehouse_id,
        "orderDate": today(state),
        "requestedDeliveryDate": args.get("requestedDeliveryDate"),
        "createdBy": args["actorId"],
        "confirmedAt": None,
        "cancelledAt": None,
        "cancelReason": None,
        "customerPoNumber": args.get("customerPoNumber", ""),
        "lines": built,
    }
    reprice(so, taxed=True)
    state["salesOrders"][so_id] = so
    audit(state, args, "sales_order.created", so, {"customerId": customer["id"]})
    return so_view(state, so)


def _update(state: State, args: Args) -> dict[str, Any]:
    so = fetch(state, "salesOrders", args["salesOrderId"])
    require_status(so, ("draft",), "edited")
    updates = changes(args, ("lines", "requestedDeliveryDate", "customerPoNumber", "warehouseId"))
    if "warehouseId" in updates:
        _warehouse(state, updates["warehouseId"])
    if "requestedDeliveryDate" in updates:
        parse_day(updates["requestedDeliveryDate"], "requestedDeliveryDate")
    if "lines" in updates:
        updates["lines"] = _order_lines(state, updates["lines"])
    diff = apply_changes(so, updates)
    reprice(so, taxed=True)
    audit(state, args, "sales_order.updated", so, {"fields": sorted(diff)})
    return so_view(state, so)


def _confirm(state: State, args: Args) -> dict[str, Any]:
    so = fetch(state, "salesOrders", args["salesOrderId"])
    require_status(so, ("draft",), "confirmed")
    customer = state["customers"][so["customerId"]]
    if customer["status"] != "active":
        raise ToolError(
            "invalid_state",
            f"{customer['name']} is {customer['status']} ({customer.get('statusReason')}); "
            "orders can be confirmed only for active customers",
            {"customerId": customer["id"], "status": customer["status"]},
        )
    so["status"] = "confirmed"
    so["confirmedAt"] = state["now"]
    audit(state, args, "sales_order.confirmed", so)
    return so_view(state, so)


def _cancel(state: State, args: Args) -> dict[str, Any]:
    so = fetch(state, "salesOrders", args["salesOrderId"])
    require_status(so, ("draft", "confirmed"), "cancelled (nothing may have shipped)")
    note = non_blank(args["reason"], "reason")
    released = shipping.release_all(state, so, args["actorId"])
    so["status"] = "cancelled"
    so["cancelledAt"] = state["now"]
    so["cancelReason"] = note
    audit(state, args, "sales_order.cancelled", so, {"reason": note, "released": released})
    return so_view(state, so)


def _unfulfilled(state: State, args: Args) -> dict[str, Any]:
    rows = [
        {
            **so_view(state, so),
            "unitsToShip": sum(shipping.remaining(line) for line in so["lines"]),
            "isLate": bool(so["requestedDeliveryDate"])
            and so["requestedDeliveryDate"] < today(state),
        }
        for so in sorted_by_id(state["salesOrders"].values())
        if so["status"] in shipping.SHIPPABLE
        and args.get("customerId", so["customerId"]) == so["customerId"]
    ]
    return page(rows, args)


def _line_item() -> dict[str, Any]:
    return {
        "productId": record_id("product", "Product ordered."),
        "quantity": quantity("Units ordered."),
        "unitPrice": amount("Price per unit (default: the product's list price)."),
        "warehouseId": record_id("warehouse", "Ship this line from here (default: order's)."),
    }


def _order_fields() -> dict[str, Any]:
    return {
        "lines": lines("Order lines.", _line_item(), ["productId", "quantity"]),
        "requestedDeliveryDate": day("When the customer wants it (YYYY-MM-DD)."),
        "customerPoNumber": text("The customer's purchase order number.", max_length=60),
        "warehouseId": record_id("warehouse", "Warehouse the order ships from (default WH-001)."),
    }


_CUSTOMER = record_id("customer", "Only this customer's orders.")

TOOLS: list[Tool] = [
    list_tool(
        "list_sales_orders",
        "List sales orders with units left to ship. Filter by status, customer or warehouse.",
        "salesOrders",
        {
            "status": choice(SALES_ORDER_STATUSES, "Only orders in this status."),
            "customerId": _CUSTOMER,
            "warehouseId": record_id("warehouse", "Only orders shipping from here."),
        },
        view=so_view,
    ),
    search_tool(
        "search_sales_orders",
        "Find sales orders whose id, customer id or customer PO number contains the query.",
        "salesOrders",
        lambda so: (so["id"], so["customerId"], so["customerPoNumber"]),
        view=so_view,
    ),
    get_tool(
        "get_sales_order",
        "One sales order: lines with units left to ship, fulfillments and invoices.",
        "salesOrders",
        "sales_order",
        "salesOrderId",
        view=so_view,
        example="SO-307",
    ),
    WRITES.tool(
        "create_sales_order",
        "Draft a sales order. Blocked or inactive customers are refused (credit hold may "
        "draft). Unit prices default to list price.",
        obj(
            {
                "actorId": actor(),
                "customerId": record_id("customer", "Customer ordering."),
                **_order_fields(),
            },
            ["actorId", "customerId", "lines"],
        ),
        _create,
    ),
    WRITES.tool(
        "update_sales_order",
        "Edit a draft order: replace its lines or change date, customer PO number or warehouse.",
        obj(
            {
                "actorId": actor(),
                "salesOrderId": record_id("sales_order", "Draft order."),
                **_order_fields(),
            },
            ["actorId", "salesOrderId"],
        ),
        _update,
    ),
    WRITES.tool(
        "confirm_sales_order",
        "Confirm a draft order so it can be reserved and shipped. Refused unless the customer "
        "is active (not blocked or on credit hold).",
        acting_on("sales_order", "salesOrderId", "Draft order to confirm."),
        _confirm,
    ),
    *shipping.TOOLS,
    WRITES.tool(
        "cancel_sales_order",
        "Cancel an order before anything ships; its reservations are released.",
        acting_on(
            "sales_order", "salesOrderId", "Order to cancel.", reason=reason("Why it is cancelled.")
        ),
        _cancel,
    ),
    define_tool(
        "list_unfulfilled_sales_orders",
        "Confirmed or partly shipped orders with units still to ship, and whether they are "
        "past the requested delivery date.",
        listing({"customerId": _CUSTOMER}),
        _unfulfilled,
        read_only=True,
    ),
]

__all__ = ["TOOLS", "so_view"]
