"""Stock-changing inventory tools: adjust, transfer, reserve, release and count.

Contract: adjust (signed, non-zero, with a reason), transfer (unreserved stock only, to a
different, active warehouse; otherwise ``insufficient_stock``), reserve, release, and count
(on hand becomes the counted figure; the variance is posted). Every change goes through the
single stock write path (:func:`erp.domain.stock.apply_stock_changes`), which records the
movements, and leaves one audit row. Adjustments and counts take an ``ADJ`` reference and
transfers a ``TRF`` one. Stock records and warehouses are looked up with :func:`stock_record`
and :func:`active_warehouse`, which the read tools share.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError
from silo.toolkit.guards import Args
from silo.toolkit.results import snapshot
from silo.toolkit.schema import choice, integer, obj

from ..domain import stock
from ..domain.stock import StockChange
from ..state import mint_id
from .common import WRITES, State, fetch
from .schema import actor, quantity, reason, record_id
from .views import stock_view

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


def stock_record(state: State, product_id: str, warehouse_id: str) -> dict[str, Any]:
    """A copy of the stock record of a product at a warehouse; unknown ids or none are refused."""
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


def active_warehouse(state: State, warehouse_id: str) -> dict[str, Any]:
    """The warehouse ``warehouse_id``; refused (``invalid_state``) unless it is active."""
    warehouse = fetch(state, "warehouses", warehouse_id)
    if warehouse["status"] != "active":
        raise ToolError(
            "invalid_state",
            f"{warehouse_id} ({warehouse['name']}) is {warehouse['status']}; pick an active "
            "warehouse (see list_warehouses)",
            {"id": warehouse_id},
        )
    return warehouse


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
    WRITES.audit(
        state,
        args,
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
    stock_record(state, args["productId"], args["warehouseId"])
    if args["quantityChange"] == 0:
        raise ToolError("invalid_input", "quantityChange is 0; pass a signed non-zero change")
    change = StockChange(args["productId"], args["warehouseId"], on_hand=args["quantityChange"])
    ref = ("adjustment", f"ADJ-{int(state['sequences'].get('ADJ', 1)) + 1:03d}")
    movements = _write(state, args, [change], ref)
    mint_id(state, "ADJ")
    return _stock_result(state, args, movements, "inventory.adjusted")


def _transfer_inventory(state: State, args: Args) -> dict[str, Any]:
    product, source, target = args["productId"], args["fromWarehouseId"], args["toWarehouseId"]
    if source == target:
        raise ToolError("invalid_input", "fromWarehouseId and toWarehouseId are the same site")
    record = stock_record(state, product, source)
    active_warehouse(state, target)
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
    stock_record(state, args["productId"], args["warehouseId"])
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
    record = stock_record(state, args["productId"], args["warehouseId"])
    variance = int(args["countedQuantity"]) - int(record["onHand"])
    change = StockChange(args["productId"], args["warehouseId"], on_hand=variance, kind="count")
    ref = ("count", f"ADJ-{int(state['sequences'].get('ADJ', 1)) + 1:03d}")
    movements = _write(state, args, [change], ref)
    mint_id(state, "ADJ")
    return {"variance": variance, **_stock_result(state, args, movements, "inventory.counted")}


TOOLS: list[Tool] = [
    WRITES.tool(
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
    WRITES.tool(
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
    WRITES.tool(
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
    WRITES.tool(
        "release_reservation",
        "Release reserved units of a product at a warehouse back to available.",
        _stock_write(
            {"quantity": quantity("Units to release."), "reason": reason("Why."), **REFERENCE},
            ["quantity"],
        ),
        _release_reservation,
    ),
    WRITES.tool(
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
]
