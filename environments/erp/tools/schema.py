"""Builders for the JSON Schemas (Draft 2020-12) of ERP tool inputs.

Contract: every builder returns a fresh plain dict. :func:`obj` is the only way an input object
is made, so every object schema carries ``type``, ``properties``, ``required`` and
``additionalProperties: false``; every property builder demands a description, because the
schema is what a model reads to learn how to call the tool. Ranges, enums and id patterns are
stated in the schema so the engine refuses malformed input before a tool runs. The status
vocabularies of every document live here, so tools and filters agree on them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..domain.documents import PAYMENT_TERMS

Schema = dict[str, Any]

DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
INSTANT_PATTERN = r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z?)?$"
MAX_AMOUNT = 100_000_000
MAX_QUANTITY = 1_000_000
MAX_TEXT = 2000
MAX_LINES = 50
DEFAULT_LIMIT = 50
MAX_LIMIT = 500

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


def obj(properties: Mapping[str, Schema], required: Sequence[str] = ()) -> Schema:
    """An input object: only the listed properties, the named ones required."""
    unknown = [name for name in required if name not in properties]
    if unknown:
        raise ValueError(f"required names missing from properties: {unknown}")
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
    }


def text(description: str, *, min_length: int = 1, max_length: int = 200) -> Schema:
    """A free-text string."""
    return {
        "type": "string",
        "description": description,
        "minLength": min_length,
        "maxLength": max_length,
    }


def long_text(description: str, *, min_length: int = 0) -> Schema:
    """Notes and reasons, up to a few paragraphs."""
    return text(description, min_length=min_length, max_length=MAX_TEXT)


def reason(description: str) -> Schema:
    """A required explanation: at least three characters."""
    return long_text(description, min_length=3)


def record_id(kind: str, description: str) -> Schema:
    """The id of a record of ``kind`` (a key of :data:`ID_PATTERNS`)."""
    return {"type": "string", "description": description, "pattern": ID_PATTERNS[kind]}


def line_id(description: str) -> Schema:
    """The id of a document line, ``<document id>-L<n>`` (e.g. PO-203-L1)."""
    return {
        "type": "string",
        "description": description,
        "pattern": r"^[A-Z]{2,5}-\d{3,6}-L\d{1,3}$",
    }


def actor(description: str = "") -> Schema:
    """The acting user's id; every mutating tool takes one."""
    return record_id(
        "user",
        description
        or "Id of the active user making this change (e.g. USR-002); recorded in the audit log.",
    )


def day(description: str) -> Schema:
    """A calendar date written YYYY-MM-DD."""
    return {"type": "string", "description": description, "pattern": DATE_PATTERN}


def amount(description: str) -> Schema:
    """A positive amount of money in US dollars."""
    return {
        "type": "number",
        "description": description,
        "exclusiveMinimum": 0,
        "maximum": MAX_AMOUNT,
    }


def money(description: str) -> Schema:
    """An amount of money in US dollars that may be zero."""
    return {"type": "number", "description": description, "minimum": 0, "maximum": MAX_AMOUNT}


def quantity(description: str, *, minimum: int = 1) -> Schema:
    """A whole number of units (at least ``minimum``)."""
    return integer(description, minimum, MAX_QUANTITY)


def integer(description: str, minimum: int, maximum: int, default: int | None = None) -> Schema:
    """A bounded whole number."""
    schema: Schema = {
        "type": "integer",
        "description": description,
        "minimum": minimum,
        "maximum": maximum,
    }
    if default is not None:
        schema["default"] = default
    return schema


def choice(values: Iterable[str], description: str) -> Schema:
    """One string out of a fixed set."""
    return {"type": "string", "description": description, "enum": list(values)}


def flag(description: str, default: bool | None = None) -> Schema:
    """A boolean; filters leave ``default`` out (omitted means "either"), switches state it."""
    schema: Schema = {"type": "boolean", "description": description}
    if default is not None:
        schema["default"] = default
    return schema


def email(description: str) -> Schema:
    """An email address."""
    return {
        "type": "string",
        "description": description,
        "pattern": r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
        "maxLength": 200,
    }


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


def query() -> Schema:
    """The free-text term of a search tool."""
    return text("Text to look for; matched case-insensitively anywhere in the searched fields.")


def paging() -> dict[str, Schema]:
    """The ``limit`` and ``offset`` properties every list and search tool accepts."""
    return {
        "limit": integer(
            f"Maximum number of results to return (default {DEFAULT_LIMIT}).",
            1,
            MAX_LIMIT,
            DEFAULT_LIMIT,
        ),
        "offset": integer(
            "Number of matching results to skip before the first one returned (default 0).",
            0,
            1_000_000,
            0,
        ),
    }


def listing(filters: Mapping[str, Schema], required: Sequence[str] = ()) -> Schema:
    """An input object made of optional filters plus paging."""
    return obj({**filters, **paging()}, required)


def searching(filters: Mapping[str, Schema] | None = None) -> Schema:
    """The input of a search tool: a required query, optional filters, paging."""
    return listing({"query": query(), **(filters or {})}, ["query"])


def by_id(kind: str, field: str, description: str) -> Schema:
    """The input of a tool that takes one record id and nothing else."""
    return obj({field: record_id(kind, description)}, [field])


def acting_on(kind: str, field: str, description: str, **extra: Schema) -> Schema:
    """The input of a mutating tool: ``actorId``, one record id, then ``extra`` properties.

    Every property given is required; make optional ones with :func:`obj` directly.
    """
    properties = {"actorId": actor(), field: record_id(kind, description), **extra}
    return obj(properties, list(properties))


def no_input() -> Schema:
    """The input of a tool that takes no arguments."""
    return obj({})
