"""Inventory tools: warehouses, stock records, movements and every stock change.

Contract: reads — warehouses (with totals), stock records (filters for product, warehouse and
low stock), available quantity, low-stock rows with shortfall and suggested reorder quantity,
movements (newest first) and which warehouses can cover a quantity. Writes — adjust (signed,
non-zero, with a reason), transfer (unreserved stock only, to an active warehouse; otherwise
``insufficient_stock``), reserve, release, count (sets on hand to the counted figure and posts
the variance). Every write goes through the single stock write path
(:func:`erp.domain.stock.apply_stock_changes`), records movements and one audit row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Tool, ToolError, define_tool

from ..domain import stock
from ..domain.stock import StockChange
from ..state import mint_id, record_audit
from .common import acting_user, fetch, filtered, page, snapshot
from .crud import get_tool, list_tool
from .schema import (
    MOVEMENT_TYPES,
    actor,
    choice,
    day,
    flag,
    integer,
    listing,
    obj,
    quantity,
    reason,
    record_id,
)
from .views import stock_view

State = dict[str, Any]
Args = dict[str, Any]


def _warehouse_totals(state: Mapping[str, Any], warehouse: Mapping[str, Any]) -> dict[str, Any]:
    rows = [stock_view(state, r) for r in stock.INVENTORY_BY_WAREHOUSE.rows(state, warehouse["id"])]
    value = sum(row["onHand"] * state["products"][row["productId"]]["standardCost"] for row in rows)
    return {
        **warehouse,
        "managerName": state["users"][warehouse["managerId"]]["name"],
        "stockRecords": len(rows),
        "unitsOnHand": sum(row["onHand"] for row in rows),
        "unitsReserved": sum(row["reserved"] for row in rows),
        "valueAtStandardCost": round(value, 2),
        "belowReorderCount": sum(row["belowReorderPoint"] for row in rows),
    }


def _record(state: State, product_id: str, warehouse_id: str) -> dict[str, Any]:
    """The stock record of a product at a warehouse; unknown ids or no record are refused."""
    fetch(state, "products", product_id)
    fetch(state, "warehouses", warehouse_id)
    record = stock.stock_of(state, product_id, warehouse_id)
    if record is None:
        raise ToolError(
            "not_found",
            f"{product_id} has never been stocked at {warehouse_id}; see get_product_availability",
            {"id": stock.stock_id(product_id, warehouse_id)},
        )
    return dict(record)


def _active_warehouse(state: State, warehouse_id: str) -> dict[str, Any]:
    warehouse = fetch(state, "warehouses", warehouse_id)
    if warehouse["status"] != "active":
        raise ToolError(
            "invalid_state",
            f"{warehouse_id} ({warehouse['name']}) is {warehouse['status']}; pick an active "
            "warehouse (see list_warehouses)",
            {"id": warehouse_id},
        )
    return warehouse


def _low_stock_row(state: Mapping[str, Any], record: Mapping[str, Any]) -> dict[str, Any]:
    row = stock_view(state, record)
    shortfall = row["effectiveReorderPoint"] - row["onHand"]
    reorder_qty = int(state["products"][record["productId"]]["reorderQuantity"])
    suggested = 0 if row["inbound"] >= shortfall else max(reorder_qty, shortfall - row["inbound"])
    return {**row, "shortfall": shortfall, "suggestedReorderQuantity": suggested}


def _list_inventory(state: State, args: Args) -> dict[str, Any]:
    rows = filtered(state["inventory"].values(), args, ("productId", "warehouseId"))
    views = [stock_view(state, row) for row in rows]
    if "lowStock" in args:
        views = [row for row in views if row["belowReorderPoint"] == args["lowStock"]]
    return page(views, args)


def _get_inventory(state: State, args: Args) -> dict[str, Any]:
    return stock_view(state, _record(state, args["productId"], args["warehouseId"]))


def _get_available_quantity(state: State, args: Args) -> dict[str, Any]:
    fetch(state, "products", args["productId"])
    fetch(state, "warehouses", args["warehouseId"])
    record = stock.stock_of(state, args["productId"], args["warehouseId"])
    return {
        "productId": args["productId"],
        "warehouseId": args["warehouseId"],
        "onHand": record["onHand"] if record else 0,
        "reserved": record["reserved"] if record else 0,
        "available": stock.available(record),
        "inbound": stock.inbound_quantity(state, args["productId"], args["warehouseId"]),
    }


def _list_low_stock(state: State, args: Args) -> dict[str, Any]:
    rows = filtered(state["inventory"].values(), args, ("warehouseId",))
    low = [_low_stock_row(state, row) for row in rows]
    return page([row for row in low if row["shortfall"] > 0], args)


def _write(state: State, args: Args, changes: list[StockChange], ref: tuple[str, str]) -> list[Any]:
    """Apply ``changes`` for the actor in ``args`` with the reason given; returns movements."""
    movements: list[Any] = stock.apply_stock_changes(
        state,
        changes,
        actor_id=args["actorId"],
        reference_type=ref[0],
        reference_id=ref[1],
        reason=args.get("reason", "").strip(),
    )
    return movements


def _stock_result(state: State, args: Args, movements: list[Any], action: str) -> dict[str, Any]:
    first = movements[0]
    record_audit(
        state,
        args["actorId"],
        action,
        "inventory",
        stock.stock_id(first["productId"], first["warehouseId"]),
        {"movementIds": [m["id"] for m in movements], "reason": first["reason"]},
    )
    records = [
        state["inventory"][stock.stock_id(m["productId"], m["warehouseId"])] for m in movements
    ]
    return {
        "movements": [snapshot(m) for m in movements],
        "stock": [stock_view(state, record) for record in records],
    }


def _adjust_inventory(state: State, args: Args) -> dict[str, Any]:
    acting_user(state, args["actorId"])
    _record(state, args["productId"], args["warehouseId"])
    if args["quantityChange"] == 0:
        raise ToolError("invalid_input", "quantityChange is 0; pass a signed non-zero change")
    change = StockChange(args["productId"], args["warehouseId"], on_hand=args["quantityChange"])
    ref = ("adjustment", f"ADJ-{int(state['sequences'].get('ADJ', 1)) + 1:03d}")
    movements = _write(state, args, [change], ref)
    mint_id(state, "ADJ")
    return _stock_result(state, args, movements, "inventory.adjusted")


def _transfer_inventory(state: State, args: Args) -> dict[str, Any]:
    acting_user(state, args["actorId"])
    product, source, target = args["productId"], args["fromWarehouseId"], args["toWarehouseId"]
    if source == target:
        raise ToolError("invalid_input", "fromWarehouseId and toWarehouseId are the same site")
    record = _record(state, product, source)
    _active_warehouse(state, target)
    qty = int(args["quantity"])
    if qty > stock.available(record):
        raise ToolError(
            "insufficient_stock",
            f"{source} has {stock.available(record)} unreserved units of {product}; transfer at "
            "most that many",
            {"available": stock.available(record)},
        )
    ref = ("transfer", f"TRF-{int(state['sequences'].get('TRF', 1)) + 1:03d}")
    changes = [
        StockChange(product, source, on_hand=-qty, kind="transfer_out"),
        StockChange(product, target, on_hand=qty, kind="transfer_in"),
    ]
    movements = _write(state, args, changes, ref)
    mint_id(state, "TRF")
    return {"transferId": ref[1], **_stock_result(state, args, movements, "inventory.transferred")}


def _reserve(state: State, args: Args, sign: int, action: str) -> dict[str, Any]:
    acting_user(state, args["actorId"])
    _record(state, args["productId"], args["warehouseId"])
    kind = "reservation" if sign > 0 else "release"
    change = StockChange(
        args["productId"], args["warehouseId"], reserved=sign * int(args["quantity"]), kind=kind
    )
    ref = (args.get("referenceType", "manual"), args.get("referenceId", "manual"))
    movements = _write(state, args, [change], ref)
    return _stock_result(state, args, movements, action)


def _reserve_inventory(state: State, args: Args) -> dict[str, Any]:
    return _reserve(state, args, 1, "inventory.reserved")


def _release_reservation(state: State, args: Args) -> dict[str, Any]:
    return _reserve(state, args, -1, "inventory.released")


def _count_inventory(state: State, args: Args) -> dict[str, Any]:
    acting_user(state, args["actorId"])
    record = _record(state, args["productId"], args["warehouseId"])
    variance = int(args["countedQuantity"]) - int(record["onHand"])
    change = StockChange(args["productId"], args["warehouseId"], on_hand=variance, kind="count")
    ref = ("count", f"ADJ-{int(state['sequences'].get('ADJ', 1)) + 1:03d}")
    movements = _write(state, args, [change], ref)
    mint_id(state, "ADJ")
    return {"variance": variance, **_stock_result(state, args, movements, "inventory.counted")}


def _list_inventory_movements(state: State, args: Args) -> dict[str, Any]:
    rows = filtered(
        state["inventoryMovements"].values(), args, ("productId", "warehouseId", "type")
    )
    if "since" in args:
        rows = [row for row in rows if row["at"] >= args["since"]]
    rows.sort(key=lambda row: (row["at"], row["id"]), reverse=True)
    return page(rows, args)


def _find_warehouses_with_stock(state: State, args: Args) -> dict[str, Any]:
    product = fetch(state, "products", args["productId"])
    wanted = int(args["quantity"])
    sites = [
        {
            "warehouseId": record["warehouseId"],
            "warehouseName": state["warehouses"][record["warehouseId"]]["name"],
            "available": stock.available(record),
            "coversQuantity": stock.available(record) >= wanted,
        }
        for record in stock.INVENTORY_BY_PRODUCT.rows(state, product["id"])
        if stock.available(record) > 0
        and state["warehouses"][record["warehouseId"]]["status"] == "active"
    ]
    sites.sort(key=lambda site: (-site["available"], site["warehouseId"]))
    total = sum(site["available"] for site in sites)
    single = any(site["coversQuantity"] for site in sites)
    return {
        "productId": product["id"],
        "quantity": wanted,
        "totalAvailable": total,
        "warehouses": sites,
        "singleWarehouseCanCover": single,
        "splitRequired": not single and total >= wanted,
        "canCover": total >= wanted,
    }


PLACE = {
    "productId": record_id("product", "Id of the product, e.g. PRD-010."),
    "warehouseId": record_id("warehouse", "Id of the warehouse, e.g. WH-001."),
}


def _stock_write(extra: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return obj({"actorId": actor(), **PLACE, **extra}, ["actorId", *PLACE, *required])


REFERENCE = {
    "referenceType": choice(("manual", "sales_order", "work_order"), "What the units are for."),
    "referenceId": {"type": "string", "description": "Id of that document.", "maxLength": 40},
}

TOOLS: list[Tool] = [
    list_tool(
        "list_warehouses",
        "List warehouses with their status and totals (units on hand, reserved, value).",
        "warehouses",
        {"status": choice(("active", "inactive"), "Only active or inactive warehouses.")},
        view=_warehouse_totals,
    ),
    get_tool(
        "get_warehouse",
        "One warehouse with its manager and stock totals.",
        "warehouses",
        "warehouse",
        "warehouseId",
        view=_warehouse_totals,
        example="WH-001",
    ),
    define_tool(
        "list_inventory",
        "List stock records (product x warehouse) with available and inbound units; filter by "
        "product, warehouse or lowStock (below reorder point).",
        listing(
            {**PLACE, "lowStock": flag("Only records below (true) or at/above (false) reorder.")}
        ),
        _list_inventory,
        read_only=True,
    ),
    define_tool(
        "get_inventory",
        "The stock record of one product at one warehouse: on hand, reserved, available, "
        "inbound and reorder point.",
        obj(PLACE, list(PLACE)),
        _get_inventory,
        read_only=True,
    ),
    define_tool(
        "get_available_quantity",
        "Units of a product free to ship or move at one warehouse (on hand minus reserved).",
        obj(PLACE, list(PLACE)),
        _get_available_quantity,
        read_only=True,
    ),
    define_tool(
        "list_low_stock",
        "Stock records below their reorder point with the shortfall and a suggested reorder "
        "quantity (nothing when inbound purchase orders already cover it).",
        listing({"warehouseId": PLACE["warehouseId"]}),
        _list_low_stock,
        read_only=True,
    ),
    define_tool(
        "adjust_inventory",
        "Correct on-hand stock by a signed, non-zero quantity (damage, loss, found stock) with a "
        "reason. Cannot take on hand below zero or below what is reserved.",
        _stock_write(
            {
                "quantityChange": integer(
                    "Signed change to on hand, e.g. -2.", -1_000_000, 1_000_000
                ),
                "reason": reason("Why the stock changed."),
            },
            ["quantityChange", "reason"],
        ),
        _adjust_inventory,
    ),
    define_tool(
        "transfer_inventory",
        "Move unreserved stock of a product from one warehouse to another active warehouse.",
        obj(
            {
                "actorId": actor(),
                "productId": PLACE["productId"],
                "fromWarehouseId": record_id("warehouse", "Warehouse the stock leaves."),
                "toWarehouseId": record_id("warehouse", "Active warehouse the stock goes to."),
                "quantity": quantity("Units to move."),
                "reason": reason("Why the stock is moved."),
            },
            ["actorId", "productId", "fromWarehouseId", "toWarehouseId", "quantity"],
        ),
        _transfer_inventory,
    ),
    define_tool(
        "reserve_inventory",
        "Hold available units of a product at a warehouse so they cannot be shipped or moved.",
        _stock_write(
            {
                "quantity": quantity("Units to reserve."),
                "reason": reason("What they are held for."),
                **REFERENCE,
            },
            ["quantity"],
        ),
        _reserve_inventory,
    ),
    define_tool(
        "release_reservation",
        "Release reserved units of a product at a warehouse back to available.",
        _stock_write(
            {"quantity": quantity("Units to release."), "reason": reason("Why."), **REFERENCE},
            ["quantity"],
        ),
        _release_reservation,
    ),
    define_tool(
        "count_inventory",
        "Record a physical count: on hand becomes the counted quantity and the variance is "
        "posted as a count movement.",
        _stock_write(
            {
                "countedQuantity": quantity("Units physically counted.", minimum=0),
                "reason": reason("Count reference or note."),
            },
            ["countedQuantity"],
        ),
        _count_inventory,
    ),
    define_tool(
        "list_inventory_movements",
        "Stock movements, newest first; filter by product, warehouse, type or since a date.",
        listing(
            {
                **PLACE,
                "type": choice(MOVEMENT_TYPES, "Only movements of this type."),
                "since": day("Only movements on or after this date (YYYY-MM-DD)."),
            }
        ),
        _list_inventory_movements,
        read_only=True,
    ),
    get_tool(
        "get_inventory_movement",
        "One stock movement.",
        "inventoryMovements",
        "movement",
        "movementId",
        example="MOV-013",
    ),
    define_tool(
        "find_warehouses_with_stock",
        "Which active warehouses hold available units of a product, whether one of them covers "
        "the quantity alone, and whether a split across sites is required.",
        obj(
            {"productId": PLACE["productId"], "quantity": quantity("Units needed.")},
            ["productId", "quantity"],
        ),
        _find_warehouses_with_stock,
        read_only=True,
    ),
]
