"""Money: rounding to cents, the tax rate and the figures of priced documents.

Contract: amounts are plain numbers in US dollars rounded to 2 decimals with halves away from
zero (:func:`round2`). :func:`price_document` is the one derivation of ``lineTotal``,
``subtotal``, ``tax`` and ``total`` (or a requisition's ``estimatedTotal``) from the lines'
``quantity`` and ``unitPrice``; it writes them into the document and is re-run whenever lines
change.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

__all__ = ["TAX_RATE", "price_document", "round2"]

TAX_RATE = 0.08
"""Sales tax on purchase orders, invoices and sales orders; quotations carry none."""


def round2(value: float) -> float:
    """``value`` rounded to cents, halves away from zero (0.125 -> 0.13), as a float."""
    rounded = Decimal(repr(float(value))).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    result = float(rounded)
    return int(result) if result.is_integer() else result


def price_document(doc: dict[str, Any], *, taxed: bool, total_field: str = "total") -> None:
    """Write line totals and the document's totals from its lines.

    Args:
        doc: a document whose ``lines`` carry ``quantity`` and ``unitPrice``.
        taxed: add ``tax`` at :data:`TAX_RATE` (else only ``subtotal`` and ``total_field``).
        total_field: name of the grand total (``estimatedTotal`` for requisitions, which
            store no subtotal).
    """
    subtotal = 0.0
    for line in doc["lines"]:
        line["lineTotal"] = round2(float(line["quantity"]) * float(line["unitPrice"]))
        subtotal += line["lineTotal"]
    subtotal = round2(subtotal)
    if total_field != "total":
        doc[total_field] = subtotal
        return
    doc["subtotal"] = subtotal
    if taxed:
        doc["tax"] = round2(subtotal * TAX_RATE)
        doc["total"] = round2(subtotal + doc["tax"])
    else:
        doc["total"] = subtotal
