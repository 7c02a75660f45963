"""What purchase-order and receiving tools share: lookups of a PO's receipts and invoices,
and the guard that fetches a PO in an allowed status.

Contract: :data:`RECEIPTS_BY_PO` and :data:`INVOICES_BY_PO` index goods receipts and vendor
invoices by purchase order. :func:`po_in_status` checks the actor and refuses a PO whose status
forbids the action (``invalid_state``). :func:`open_invoices` lists the PO's invoices that are
not paid, cancelled or rejected.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from silo import Index

from .common import fetch, require_status

RECEIPTS_BY_PO = Index("goodsReceipts", "purchaseOrderId")
INVOICES_BY_PO = Index("vendorInvoices", "purchaseOrderId")
DISCREPANCIES_BY_RECEIPT = Index("receivingDiscrepancies", "goodsReceiptId")

SETTLED_INVOICE = ("paid", "cancelled", "rejected")
PO_ID = "Id of the purchase order, e.g. PO-202."


def po_in_status(
    state: Mapping[str, Any], args: Mapping[str, Any], allowed: Sequence[str], verb: str
) -> dict[str, Any]:
    """The PO in ``args["purchaseOrderId"]``, refused unless its status is in ``allowed``."""
    po = fetch(state, "purchaseOrders", args["purchaseOrderId"])
    require_status(po, allowed, verb)
    return po


def open_invoices(state: Mapping[str, Any], po_id: str) -> list[dict[str, Any]]:
    """The PO's vendor invoices that are still open (not paid, cancelled or rejected)."""
    return [
        invoice
        for invoice in INVOICES_BY_PO.rows(state, po_id)
        if invoice["status"] not in SETTLED_INVOICE
    ]
