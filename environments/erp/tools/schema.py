"""Builders for the JSON Schemas (Draft 2020-12) of ERP tool inputs.

Contract: every builder returns a fresh plain dict. Tools take the generic builders (objects,
text, dates, enums, flags, emails) from :mod:`silo.toolkit`; what is the ERP's own is here: id
patterns, the actor, money and quantities, document lines, and :data:`PAGING`, the ERP's page
size for every listing's schema and window. Ranges, enums and id patterns are stated in
the schema so the engine refuses malformed input before a tool runs. The status
vocabularies of every document live here, so tools and filters agree on them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from silo.toolkit.paging import Paging
from silo.toolkit.schema import Schema, actor_id, integer, matching, number, obj, text

from ..domain.documents import PAYMENT_TERMS

INSTANT_PATTERN = r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z?)?$"
MAX_AMOUNT = 100_000_000
MAX_QUANTITY = 1_000_000
MAX_TEXT = 2000
MAX_LINES = 50

PAGING = Paging()
"""The toolkit's paging (50 a page, at most 500), in every listing's schema and window."""

listing = PAGING.listing
searching = PAGING.searching

TERMS = tuple(PAYMENT_TERMS)
VENDOR_STATUSES = ("pending_approval", "active", "blocked", "inactive")
CUSTOMER_STATUSES = ("pending_approval", "active", "credit_hold", "blocked", "inactive")
PRODUCT_STATUSES = ("active", "discontinued")
REQUISITION_STATUSES = (
    "draft",
    "pending_approval",
    "approved",
    "rejected",
    "cancelled",
    "converted",
)
APPROVAL_STATUSES = ("pending", "approved", "rejected", "cancelled")
APPROVAL_ENTITY_TYPES = ("requisition", "purchase_order", "vendor_invoice", "payment", "expense")
RFQ_STATUSES = ("draft", "sent", "closed", "awarded", "cancelled")
QUOTATION_STATUSES = ("submitted", "accepted", "rejected", "expired")
PO_STATUSES = (
    "draft",
    "pending_approval",
    "approved",
    "rejected",
    "sent",
    "partially_received",
    "received",
    "closed",
    "cancelled",
)
RECEIPT_STATUSES = ("posted", "cancelled")
DISCREPANCY_TYPES = (
    "short_shipment",
    "over_shipment",
    "damaged",
    "damaged_packaging",
    "wrong_item",
)
DISCREPANCY_STATUSES = ("open", "resolved", "waived")
MOVEMENT_TYPES = (
    "receipt",
    "receipt_reversal",
    "shipment",
    "adjustment",
    "count",
    "transfer_in",
    "transfer_out",
    "reservation",
    "release",
)
VENDOR_INVOICE_STATUSES = (
    "pending_match",
    "matched",
    "exception",
    "pending_approval",
    "approved",
    "partially_paid",
    "paid",
    "disputed",
    "rejected",
    "cancelled",
)
PAYMENT_STATUSES = ("draft", "pending_approval", "approved", "completed", "failed", "cancelled")
PAYMENT_METHODS = ("bank_transfer", "ach", "check", "wire")
SALES_ORDER_STATUSES = (
    "draft",
    "confirmed",
    "partially_fulfilled",
    "fulfilled",
    "invoiced",
    "closed",
    "cancelled",
)
CUSTOMER_INVOICE_STATUSES = (
    "draft",
    "issued",
    "partially_paid",
    "paid",
    "cancelled",
    "written_off",
)
EXPENSE_STATUSES = ("draft", "submitted", "approved", "rejected", "paid")
BUDGET_STATUSES = ("active", "frozen", "closed")

ID_PATTERNS = {
    "user": r"^USR-\d{3,6}$",
    "department": r"^DEPT-[A-Z]{2,10}$",
    "vendor": r"^VEN-\d{3,6}$",
    "customer": r"^CUS-\d{3,6}$",
    "product": r"^PRD-\d{3,6}$",
    "warehouse": r"^WH-\d{3,6}$",
    "stock": r"^STK-PRD-\d{3,6}-WH-\d{3,6}$",
    "movement": r"^MOV-\d{3,6}$",
    "requisition": r"^PR-\d{3,6}$",
    "approval": r"^APR-\d{3,6}$",
    "rfq": r"^RFQ-\d{3,6}$",
    "quotation": r"^QUO-\d{3,6}$",
    "purchase_order": r"^PO-\d{3,6}$",
    "goods_receipt": r"^GR-\d{3,6}$",
    "discrepancy": r"^DISC-\d{3,6}$",
    "vendor_invoice": r"^VINV-\d{3,6}$",
    "match": r"^MATCH-\d{3,6}$",
    "payment": r"^PAY-\d{3,6}$",
    "sales_order": r"^SO-\d{3,6}$",
    "fulfillment": r"^FUL-\d{3,6}$",
    "customer_invoice": r"^CINV-\d{3,6}$",
    "expense": r"^EXP-\d{3,6}$",
    "budget": r"^BUD-\d{3,6}$",
    "audit": r"^AUD-\d{4,8}$",
}
"""Id pattern of each kind of record."""


def long_text(description: str, *, min_length: int = 0) -> Schema:
    """Notes and reasons, up to a few paragraphs."""
    return text(description, min_length=min_length, max_length=MAX_TEXT)


def reason(description: str) -> Schema:
    """A required explanation: at least three characters."""
    return long_text(description, min_length=3)


def record_id(kind: str, description: str) -> Schema:
    """The id of a record of ``kind`` (a key of :data:`ID_PATTERNS`)."""
    return matching(description, ID_PATTERNS[kind])


def line_id(description: str) -> Schema:
    """The id of a document line, ``<document id>-L<n>`` (e.g. PO-203-L1)."""
    return matching(description, r"^[A-Z]{2,5}-\d{3,6}-L\d{1,3}$")


def actor(description: str = "") -> Schema:
    """The acting user's id; every mutating tool takes one."""
    return actor_id(ID_PATTERNS["user"], "user", "USR-002", description)


def amount(description: str) -> Schema:
    """A positive amount of money in US dollars."""
    return number(description, exclusive_minimum=0, maximum=MAX_AMOUNT)


def money(description: str) -> Schema:
    """An amount of money in US dollars that may be zero."""
    return number(description, minimum=0, maximum=MAX_AMOUNT)


def quantity(description: str, *, minimum: int = 1) -> Schema:
    """A whole number of units (at least ``minimum``)."""
    return integer(description, minimum, MAX_QUANTITY)


def id_list(kind: str, description: str, *, min_items: int = 1) -> Schema:
    """A list of distinct ids of ``kind``."""
    return {
        "type": "array",
        "description": description,
        "items": record_id(kind, f"Id of a {kind.replace('_', ' ')}."),
        "minItems": min_items,
        "maxItems": MAX_LINES,
        "uniqueItems": True,
    }


def lines(description: str, item: Mapping[str, Schema], required: Sequence[str]) -> Schema:
    """A non-empty list of document lines, each an object of ``item``'s properties."""
    return {
        "type": "array",
        "description": description,
        "items": obj(item, required),
        "minItems": 1,
        "maxItems": MAX_LINES,
    }


def by_id(kind: str, field: str, description: str) -> Schema:
    """The input of a tool that takes one record id and nothing else."""
    return obj({field: record_id(kind, description)}, [field])


def acting_on(kind: str, field: str, description: str, **extra: Schema) -> Schema:
    """The input of a mutating tool: ``actorId``, one record id, then ``extra`` properties.

    Every property given is required; make optional ones with :func:`obj` directly.
    """
    properties = {"actorId": actor(), field: record_id(kind, description), **extra}
    return obj(properties, list(properties))
