"""Stock: the single write path for on-hand and reserved quantities, and inbound supply.

Contract: every change to ``inventory`` goes through :func:`apply_stock_changes`. It checks
the combined effect of all the changes it is given before writing any of them, refuses an
on-hand below 0 or a reservation above on-hand (``insufficient_stock``) and a reservation
below 0 (``invalid_state``), creates the ``STK-<product>-<warehouse>`` record on first
receipt, and appends one ``inventoryMovements`` row per change. Inbound quantities are never
stored: :func:`inbound_quantity` derives them from sent and partially received purchase
orders, counting rejected units as delivered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from silo import Index, ToolError

from ..state import mint_id

__all__ = [
    "INVENTORY_BY_PRODUCT",
    "INVENTORY_BY_WAREHOUSE",
    "OPEN_PO_STATUSES",
    "StockChange",
    "apply_stock_changes",
    "available",
    "inbound_quantity",
    "reorder_point",
    "stock_id",
    "stock_of",
]

INVENTORY_BY_PRODUCT = Index("inventory", "productId")
INVENTORY_BY_WAREHOUSE = Index("inventory", "warehouseId")
PO_BY_STATUS = Index("purchaseOrders", "status")

OPEN_PO_STATUSES = ("sent", "partially_received")
"""Purchase orders whose undelivered quantities are on their way (inbound)."""

Row = Mapping[str, Any]


@dataclass(frozen=True)
class StockChange:
    """One signed change to a stock record; ``kind`` names the movement (receipt, shipment...)."""

    product_id: str
    warehouse_id: str
    on_hand: int = 0
    reserved: int = 0
    kind: str = "adjustment"


def stock_id(product_id: str, warehouse_id: str) -> str:
    """The id of the stock record of a product at a warehouse (``STK-PRD-003-WH-001``)."""
    return f"STK-{product_id}-{warehouse_id}"


def stock_of(state: Mapping[str, Any], product_id: str, warehouse_id: str) -> Row | None:
    """The stock record of a product at a warehouse, or None when it was never stocked there."""
    record: Row | None = state["inventory"].get(stock_id(product_id, warehouse_id))
    return record


def available(record: Row | None) -> int:
    """Unreserved units of a stock record (0 for a missing record)."""
    return int(record["onHand"]) - int(record["reserved"]) if record else 0


def reorder_point(state: Mapping[str, Any], record: Row) -> int:
    """The record's own reorder point when set, else the product's."""
    own = record.get("reorderPoint")
    if own is not None:
        return int(own)
    return int(state["products"][record["productId"]]["reorderPoint"])


def inbound_quantity(
    state: Mapping[str, Any], product_id: str, warehouse_id: str | None = None
) -> int:
    """Units of ``product_id`` still due on open purchase orders (at one warehouse or all)."""
    total = 0
    for status in OPEN_PO_STATUSES:
        for po in PO_BY_STATUS.rows(state, status):
            if warehouse_id is not None and po["warehouseId"] != warehouse_id:
                continue
            for line in po["lines"]:
                if line["productId"] == product_id:
                    delivered = line["receivedQuantity"] + line["rejectedQuantity"]
                    total += max(0, int(line["quantity"]) - int(delivered))
    return total


def _net_effect(state: Mapping[str, Any], changes: Sequence[StockChange]) -> dict[str, list[int]]:
    """Per stock id, [on-hand, reserved] after every change; refuses an impossible result."""
    after: dict[str, list[int]] = {}
    for change in changes:
        key = stock_id(change.product_id, change.warehouse_id)
        if key not in after:
            record = state["inventory"].get(key)
            after[key] = [int(record["onHand"]), int(record["reserved"])] if record else [0, 0]
        after[key][0] += change.on_hand
        after[key][1] += change.reserved
    for key, (on_hand, reserved) in after.items():
        if reserved < 0:
            raise ToolError(
                "invalid_state",
                f"{key} would have {reserved} reserved; release no more than is reserved",
                {"stockId": key},
            )
        if on_hand < 0 or reserved > on_hand:
            record = state["inventory"].get(key)
            raise ToolError(
                "insufficient_stock",
                f"{key} has {available(record)} available ({record['onHand'] if record else 0} "
                "on hand); reduce the quantity or use another warehouse",
                {"stockId": key, "available": available(record)},
            )
    return after


def apply_stock_changes(
    state: dict[str, Any],
    changes: Sequence[StockChange],
    *,
    actor_id: str,
    reference_type: str,
    reference_id: str,
    reason: str = "",
) -> list[dict[str, Any]]:
    """Apply every change or none; returns the movement rows recorded (one per change).

    Args:
        state: the world.
        changes: signed on-hand and reserved deltas; several may touch one record.
        actor_id: the user making the change.
        reference_type: what caused it (``goods_receipt``, ``transfer``, ``sales_order``...).
        reference_id: the id of that document.
        reason: free text kept on each movement.

    Raises:
        ToolError: ``insufficient_stock`` or ``invalid_state`` before anything is written.
    """
    _net_effect(state, changes)
    movements = []
    for change in changes:
        key = stock_id(change.product_id, change.warehouse_id)
        record = state["inventory"].get(key)
        if record is None:
            record = {
                "id": key,
                "productId": change.product_id,
                "warehouseId": change.warehouse_id,
                "onHand": 0,
                "reserved": 0,
                "reorderPoint": None,
                "lastCountedAt": None,
            }
            state["inventory"][key] = record
        record["onHand"] = int(record["onHand"]) + change.on_hand
        record["reserved"] = int(record["reserved"]) + change.reserved
        if change.kind == "count":
            record["lastCountedAt"] = state["now"]
        movement = {
            "id": mint_id(state, "MOV"),
            "productId": change.product_id,
            "warehouseId": change.warehouse_id,
            "type": change.kind,
            "quantity": change.on_hand,
            "reservedChange": change.reserved,
            "at": state["now"],
            "actorId": actor_id,
            "referenceType": reference_type,
            "referenceId": reference_id,
            "reason": reason,
        }
        state["inventoryMovements"][movement["id"]] = movement
        movements.append(movement)
    return movements
