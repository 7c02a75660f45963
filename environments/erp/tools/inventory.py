"""Inventory read tools: warehouses, stock records, low stock, movements, where stock is.

Contract: warehouses (with totals), stock records (filters for product, warehouse and low
stock), available quantity, low-stock rows with shortfall and a suggested reorder quantity
(nothing when inbound purchase orders already cover it), movements (newest first) and which
active warehouses can cover a quantity (alone or only by a split). The stock-changing tools
live in :mod:`.stock_moves` and sit in the registry between these, in the reference's order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Tool, define_tool
from silo.toolkit.guards import Args
from silo.toolkit.results import filtered
from silo.toolkit.schema import choice, day, flag, obj

from ..domain import stock
from . import stock_moves
from .common import State, fetch, page
from .crud import get_tool, list_tool
from .schema import MOVEMENT_TYPES, listing, quantity
from .stock_moves import PLACE, stock_record
from .views import stock_view


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
    return stock_view(state, stock_record(state, args["productId"], args["warehouseId"]))


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
    *stock_moves.TOOLS,
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
