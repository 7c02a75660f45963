"""Read models: records as tools show them, with derived figures attached.

Contract: each view returns a new dict holding the stored fields of a record plus figures
derived from the world at read time (available and inbound stock, reorder status, budget
headroom, quotation validity, what is still to receive or invoice on a purchase order, names
of referenced records). Views never write to the state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..domain import budgets, stock
from ..domain.documents import is_late, quotation_is_valid
from ..state import days_between, today
from .common import name_of

View = dict[str, Any]
Row = Mapping[str, Any]


def stock_view(state: Mapping[str, Any], record: Row) -> View:
    """A stock record with available and inbound units and whether it is below reorder."""
    point = stock.reorder_point(state, record)
    available = stock.available(record)
    return {
        **record,
        "productName": name_of(state, "products", record["productId"]),
        "warehouseName": name_of(state, "warehouses", record["warehouseId"]),
        "available": available,
        "inbound": stock.inbound_quantity(state, record["productId"], record["warehouseId"]),
        "effectiveReorderPoint": point,
        "belowReorderPoint": record["onHand"] < point,
    }


def budget_view(state: Mapping[str, Any], budget: Row) -> View:
    """A budget with its headroom and utilisation."""
    return {
        **budget,
        "departmentName": name_of(state, "departments", budget["departmentId"]),
        "headroom": budgets.headroom(budget),
        "utilisationPct": budgets.utilisation_pct(budget),
    }


def quotation_view(state: Mapping[str, Any], quotation: Row) -> View:
    """A quotation with its vendor's name, whether it is valid and days left to expiry."""
    return {
        **quotation,
        "vendorName": name_of(state, "vendors", quotation["vendorId"]),
        "isValid": quotation_is_valid(state, quotation),
        "daysUntilExpiry": days_between(today(state), str(quotation["validUntil"])),
    }


def po_view(state: Mapping[str, Any], po: Row) -> View:
    """A purchase order with per-line outstanding and uninvoiced units, and lateness."""
    lines = [
        {
            **line,
            "outstandingQuantity": max(
                0, line["quantity"] - line["receivedQuantity"] - line["rejectedQuantity"]
            ),
            "uninvoicedQuantity": max(0, line["receivedQuantity"] - line["invoicedQuantity"]),
        }
        for line in po["lines"]
    ]
    return {
        **po,
        "lines": lines,
        "vendorName": name_of(state, "vendors", po["vendorId"]),
        "isLate": is_late(state, po),
    }


def requisition_view(state: Mapping[str, Any], requisition: Row) -> View:
    """A requisition with its requester's and department's names."""
    return {
        **requisition,
        "requesterName": name_of(state, "users", requisition["requesterId"]),
        "departmentName": name_of(state, "departments", requisition["departmentId"]),
    }
