"""Grading helpers the ERP verifiers share.

Contract: pure functions over read-only world snapshots (any ``Mapping``; verifiers are handed
frozen views) that never mutate what they read. They answer the questions many ERP checks ask:
the facts a task file states (:func:`task_entities`), the rows a run created
(:func:`new_rows`), stock on hand at a site (:func:`on_hand`), money paid against an invoice by
completed payments (:func:`completed_payments_for`), the latest three-way match of an invoice
(:func:`latest_match_for`), whether a free-text field holds something (:func:`has_text`), and
how a value reads in a check's detail (:func:`show`: whole floats without ``.0``, ``None`` as
``null``, like the reference's baselines) and the common "record is in status X" check
(:func:`status_check`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from silo import Check, VerifierContext, check, optional

from .domain.money import round2
from .domain.stock import stock_of

__all__ = [
    "amount",
    "approvals_for",
    "completed_payments_for",
    "has_text",
    "latest_match_for",
    "line_for",
    "lines_of",
    "new_rows",
    "on_hand",
    "same_money",
    "show",
    "status_check",
    "task_entities",
    "transfer_movements_since",
]

Row = Mapping[str, Any]
World = Mapping[str, Any]
_CENT = 0.005


def amount(value: Any) -> float:
    """The number in a money field: a plain number or a ``{"amount": ...}`` object; 0 if absent."""
    if isinstance(value, Mapping):
        value = value.get("amount")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return float(value)


def same_money(left: Any, right: Any) -> bool:
    """Whether two money values are equal to the cent."""
    return abs(amount(left) - amount(right)) < _CENT


def show(value: Any) -> str:
    """How ``value`` reads in a detail: ``82`` not ``82.0``, ``7084.8``, ``null`` for none."""
    if value is None:
        return "null"
    if isinstance(value, Mapping) and "amount" in value:
        return show(value["amount"])
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def status_check(label: str, record: Row, *statuses: str, required: bool = True) -> Check:
    """A check that ``record``'s status is one of ``statuses``, naming the status it has."""
    status = record.get("status")
    make = check if required else optional
    return make(label, status in statuses, f"status = {show(status)}")


def has_text(value: Any) -> bool:
    """Whether ``value`` is a string with something other than whitespace in it."""
    return isinstance(value, str) and bool(value.strip())


def task_entities(context: VerifierContext) -> Mapping[str, Any]:
    """The ``entities`` object of the task being graded (empty when the file has none)."""
    entities = context.task.entities
    return entities if isinstance(entities, Mapping) else {}


def new_rows(final: World, initial: World, collection: str) -> list[Row]:
    """Rows of ``collection`` present in the final world but not the initial one, in id order."""
    before = initial.get(collection) or {}
    after = final.get(collection) or {}
    return [after[key] for key in sorted(after) if key not in before]


def lines_of(row: Row | None) -> Sequence[Row]:
    """The ``lines`` of a document, or none when the document is missing."""
    return (row or {}).get("lines") or ()


def line_for(row: Row | None, **match: Any) -> Row | None:
    """The first line of a document whose fields equal every ``match`` value."""
    for line in lines_of(row):
        if all(line.get(key) == value for key, value in match.items()):
            return line
    return None


def on_hand(world: World, product_id: str, warehouse_id: str) -> float:
    """Units of ``product_id`` on hand at ``warehouse_id`` (0 when there is no stock record)."""
    record = stock_of(world, product_id, warehouse_id)
    return float(record["onHand"]) if record else 0.0


def transfer_movements_since(world: World, product_id: str, since: str) -> list[Row]:
    """Transfer movements of ``product_id`` that occurred at or after the ISO time ``since``."""
    return [
        movement
        for movement in (world.get("inventoryMovements") or {}).values()
        if movement.get("productId") == product_id
        and _is_transfer(movement)
        and str(movement.get("at") or "") >= since
    ]


def _is_transfer(movement: Row) -> bool:
    """A movement between warehouses, however the stock write path names its two legs."""
    kind = str(movement.get("type") or "")
    return kind.startswith("transfer") or movement.get("referenceType") == "transfer"


def completed_payments_for(world: World, invoice_id: str) -> float:
    """Money allocated to ``invoice_id`` by payments whose status is ``completed``."""
    total = sum(
        amount(allocation.get("amount"))
        for payment in (world.get("payments") or {}).values()
        if payment.get("status") == "completed"
        for allocation in payment.get("allocations") or ()
        if allocation.get("invoiceId") == invoice_id
    )
    return round2(total)


def latest_match_for(world: World, invoice_id: str) -> Row | None:
    """The three-way match of ``invoice_id`` with the highest id (the most recent run)."""
    matches = [
        match
        for match in (world.get("threeWayMatches") or {}).values()
        if match.get("vendorInvoiceId") == invoice_id
    ]
    return max(matches, key=lambda match: _id_order(str(match.get("id")))) if matches else None


def approvals_for(world: World, entity_type: str, entity_id: Any) -> list[Row]:
    """Approvals of one document (``entity_type`` like ``requisition``), oldest id first."""
    found = [
        approval
        for approval in (world.get("approvals") or {}).values()
        if approval.get("entityType") == entity_type and approval.get("entityId") == entity_id
    ]
    return sorted(found, key=lambda approval: _id_order(str(approval.get("id"))))


def _id_order(row_id: str) -> tuple[str, int]:
    """``MATCH-010`` after ``MATCH-009`` even if a counter outgrows its zero padding."""
    prefix, _, number = row_id.rpartition("-")
    return (prefix, int(number)) if number.isdigit() else (row_id, -1)
