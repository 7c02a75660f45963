"""Sales-order stock and shipping: checking, reserving, releasing and fulfilling.

Contract: a line's reservation (``reservedQuantity``) is held at the line's warehouse, or the
order's when the line names none (:func:`line_warehouse`). ``check_sales_order_stock`` reads,
for each line still to ship, what the nominated warehouse and every other site can give.
``reserve_sales_order_stock`` reserves every open line in full or nothing;
``release_sales_order_stock`` gives all reservations back. ``fulfill_sales_order`` ships per
line (omitted lines: everything left, from the line's warehouse), a line may be split across
warehouses by listing it once per site; shipping from the reserving warehouse consumes the
reservation first. Every stock change goes through the single write path
(:func:`stock.apply_stock_changes`), which refuses to drive stock or reservations negative; a
shipment creates a ``FUL`` record and recomputes the order's status. Each mutation appends
one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import Args
from silo.toolkit.results import filtered, snapshot
from silo.toolkit.schema import choice, obj, text

from ..domain import stock
from ..domain.documents import line_of, recompute_so_status
from ..state import mint_id
from . import finance
from .common import WRITES, State, audit, fetch, page, require_status
from .schema import acting_on, actor, by_id, line_id, lines, listing, quantity, record_id

SHIPPABLE = ("confirmed", "partially_fulfilled")
FULFILLMENT_STATUSES = ("shipped", "delivered")


def line_warehouse(so: Any, line: Any) -> str:
    """The warehouse a line ships from and reserves at by default."""
    return str(line.get("warehouseId") or so["warehouseId"])


def remaining(line: Any) -> int:
    """Units of a line not yet shipped."""
    return max(0, int(line["quantity"]) - int(line["fulfilledQuantity"]))


def move_stock(
    state: State, actor_id: str, so: Any, changes: list[stock.StockChange], reason: str
) -> None:
    """Apply ``changes`` for ``so`` through the single stock write path (all or nothing)."""
    stock.apply_stock_changes(
        state,
        changes,
        actor_id=actor_id,
        reference_type="sales_order",
        reference_id=so["id"],
        reason=reason,
    )


def release_all(state: State, so: dict[str, Any], actor_id: str) -> int:
    """Give back every reservation of ``so``; returns the units released."""
    changes = [
        stock.StockChange(
            line["productId"],
            line_warehouse(so, line),
            reserved=-int(line["reservedQuantity"]),
            kind="release",
        )
        for line in so["lines"]
        if line["reservedQuantity"] > 0
    ]
    move_stock(state, actor_id, so, changes, "reservation released")
    for line in so["lines"]:
        line["reservedQuantity"] = 0
    return sum(-change.reserved for change in changes)


def _open_order(state: State, args: Args, verb: str) -> dict[str, Any]:
    return finance.acted_on(state, args, "salesOrders", "salesOrderId", SHIPPABLE, verb)


def _check(state: State, args: Args) -> dict[str, Any]:
    so = fetch(state, "salesOrders", args["salesOrderId"])
    rows = []
    for line in so["lines"]:
        home = line_warehouse(so, line)
        need = remaining(line)
        here = stock.available(stock.stock_of(state, line["productId"], home))
        elsewhere = [
            {"warehouseId": rec["warehouseId"], "available": stock.available(rec)}
            for rec in sorted(
                stock.INVENTORY_BY_PRODUCT.rows(state, line["productId"]),
                key=lambda rec: rec["warehouseId"],
            )
            if rec["warehouseId"] != home and stock.available(rec) > 0
        ]
        covered = here + int(line["reservedQuantity"])
        rows.append(
            {
                "lineId": line["id"],
                "productId": line["productId"],
                "toShip": need,
                "warehouseId": home,
                "reserved": line["reservedQuantity"],
                "availableHere": here,
                "coveredHere": covered >= need,
                "elsewhere": elsewhere,
                "coveredWithSplit": covered + sum(site["available"] for site in elsewhere) >= need,
            }
        )
    return {
        "salesOrderId": so["id"],
        "status": so["status"],
        "lines": rows,
        "fullyCovered": all(row["coveredHere"] for row in rows),
    }


def _reserve(state: State, args: Args) -> dict[str, Any]:
    so = _open_order(state, args, "reserved")
    wanted = [(line, remaining(line) - int(line["reservedQuantity"])) for line in so["lines"]]
    wanted = [(line, units) for line, units in wanted if units > 0]
    if not wanted:
        raise ToolError("conflict", f"every open line of {so['id']} is already reserved")
    changes = [
        stock.StockChange(
            line["productId"], line_warehouse(so, line), reserved=units, kind="reservation"
        )
        for line, units in wanted
    ]
    move_stock(state, args["actorId"], so, changes, "reserved for order")
    for line, units in wanted:
        line["reservedQuantity"] = int(line["reservedQuantity"]) + units
    details = {"reserved": {line["id"]: units for line, units in wanted}}
    audit(state, args, "sales_order.stock_reserved", so, details)
    return snapshot(so)


def _release(state: State, args: Args) -> dict[str, Any]:
    so = _open_order(state, args, "released")
    if not any(line["reservedQuantity"] for line in so["lines"]):
        raise ToolError("conflict", f"{so['id']} holds no reservations")
    units = release_all(state, so, args["actorId"])
    audit(state, args, "sales_order.stock_released", so, {"units": units})
    return snapshot(so)


def _shipment_plan(so: Any, given: list[Args] | None) -> list[tuple[Any, int, str]]:
    """(line, units, warehouse) to ship; refuses more than a line has left to ship."""
    if given is None:
        plan = [(line, remaining(line), line_warehouse(so, line)) for line in so["lines"]]
    else:
        plan = [
            (
                line_of(so, item["lineId"]),
                int(item["quantity"]),
                str(item.get("warehouseId") or line_warehouse(so, line_of(so, item["lineId"]))),
            )
            for item in given
        ]
    plan = [step for step in plan if step[1] > 0]
    if not plan:
        raise ToolError("invalid_state", f"{so['id']} has nothing left to ship")
    for line in so["lines"]:
        asked = sum(units for target, units, _ in plan if target is line)
        if asked > remaining(line):
            raise ToolError(
                "invalid_input",
                f"{line['id']} has {remaining(line)} left to ship; {asked} requested",
                {"lineId": line["id"], "remaining": remaining(line)},
            )
    return plan


def _fulfill(state: State, args: Args) -> dict[str, Any]:
    so = _open_order(state, args, "fulfilled")
    plan = _shipment_plan(so, args.get("lines"))
    for _, _, warehouse_id in plan:
        fetch(state, "warehouses", warehouse_id)
    held = {line["id"]: int(line["reservedQuantity"]) for line in so["lines"]}
    changes, consumed = [], []
    for line, units, warehouse_id in plan:
        use = min(held[line["id"]], units) if warehouse_id == line_warehouse(so, line) else 0
        held[line["id"]] -= use
        consumed.append(use)
        changes.append(
            stock.StockChange(
                line["productId"], warehouse_id, on_hand=-units, reserved=-use, kind="shipment"
            )
        )
    move_stock(state, args["actorId"], so, changes, "shipped to customer")
    for (line, units, _), use in zip(plan, consumed, strict=True):
        line["fulfilledQuantity"] = int(line["fulfilledQuantity"]) + units
        line["reservedQuantity"] = int(line["reservedQuantity"]) - use
    shipment = {
        "id": mint_id(state, "FUL"),
        "salesOrderId": so["id"],
        "status": "shipped",
        "shippedAt": state["now"],
        "deliveredAt": None,
        "shippedBy": args["actorId"],
        "carrier": args.get("carrier", ""),
        "trackingNumber": args.get("trackingNumber", ""),
        "lines": [
            {
                "soLineId": line["id"],
                "productId": line["productId"],
                "warehouseId": warehouse_id,
                "quantity": units,
            }
            for line, units, warehouse_id in plan
        ],
    }
    state["fulfillments"][shipment["id"]] = shipment
    recompute_so_status(so)
    audit(state, args, "fulfillment.shipped", shipment, {"salesOrderId": so["id"]})
    return {**snapshot(shipment), "salesOrderStatus": so["status"]}


def _delivered(state: State, args: Args) -> dict[str, Any]:
    shipment = fetch(state, "fulfillments", args["fulfillmentId"])
    require_status(shipment, ("shipped",), "marked delivered")
    shipment["status"] = "delivered"
    shipment["deliveredAt"] = state["now"]
    audit(
        state, args, "fulfillment.delivered", shipment, {"salesOrderId": shipment["salesOrderId"]}
    )
    return snapshot(shipment)


def _list_fulfillments(state: State, args: Args) -> dict[str, Any]:
    rows = filtered(state["fulfillments"].values(), args, ("salesOrderId", "status"))
    return page(rows, args)


_SO = record_id("sales_order", "Sales order, e.g. SO-307.")

TOOLS: list[Tool] = [
    define_tool(
        "check_sales_order_stock",
        "For each line still to ship: units reserved and available at its warehouse, and what "
        "other warehouses could supply (whether a split shipment would cover it).",
        by_id("sales_order", "salesOrderId", "Sales order to check."),
        _check,
        read_only=True,
    ),
    WRITES.tool(
        "reserve_sales_order_stock",
        "Reserve the unshipped units of every line at its warehouse (all lines or none; "
        "insufficient_stock names the short line).",
        acting_on("sales_order", "salesOrderId", "Confirmed sales order."),
        _reserve,
    ),
    WRITES.tool(
        "release_sales_order_stock",
        "Give back every reservation the order holds.",
        acting_on("sales_order", "salesOrderId", "Sales order holding reservations."),
        _release,
    ),
    WRITES.tool(
        "fulfill_sales_order",
        "Ship a confirmed order. Omit lines to ship everything left from each line's warehouse, "
        "or list {lineId, quantity, warehouseId} per shipment; list a line once per warehouse to "
        "split it across sites. Creates a fulfillment (FUL) and updates the order's status.",
        obj(
            {
                "actorId": actor(),
                "salesOrderId": _SO,
                "lines": lines(
                    "What to ship (default: everything left).",
                    {
                        "lineId": line_id("Order line, e.g. SO-307-L1."),
                        "quantity": quantity("Units to ship from that warehouse."),
                        "warehouseId": record_id(
                            "warehouse", "Ship from here (default: the line's warehouse)."
                        ),
                    },
                    ["lineId", "quantity"],
                ),
                "carrier": text("Carrier name.", max_length=100),
                "trackingNumber": text("Carrier tracking number.", max_length=100),
            },
            ["actorId", "salesOrderId"],
        ),
        _fulfill,
    ),
    WRITES.tool(
        "mark_fulfillment_delivered",
        "Record that a shipped fulfillment reached the customer.",
        acting_on("fulfillment", "fulfillmentId", "Shipped fulfillment, e.g. FUL-004."),
        _delivered,
    ),
    define_tool(
        "list_fulfillments",
        "List fulfillments (shipments). Filter by sales order or status.",
        listing(
            {"salesOrderId": _SO, "status": choice(FULFILLMENT_STATUSES, "shipped or delivered.")}
        ),
        _list_fulfillments,
        read_only=True,
    ),
]

__all__ = ["TOOLS", "line_warehouse", "release_all", "remaining"]
