"""The ERP world of Meridian Industrial Supply: how it is loaded, ids, audit rows and the clock.

Contract:

* :func:`create_state` returns a fresh, independent world built from the 26 ``data/*.json``
  files plus the simulated clock ``now``, with the top-level keys in :data:`STATE_KEYS` order.
  Collections are dicts keyed by id; ``company`` is a single object, ``auditLog`` a list and
  ``sequences`` a dict of id counters. Only plain JSON values live in the state.
* The data hold facts only. At load every document with lines gets line ids ``<doc>-L<n>``,
  priced documents get line totals, ``subtotal``, 8 % ``tax`` (not quotations) and ``total``,
  requisitions an ``estimatedTotal``, and optional facts their defaults (received, rejected,
  invoiced, reserved and fulfilled quantities 0, ``amountPaid`` 0). Tools that change lines
  re-run the same derivation (:func:`erp.domain.money.price_document`), so stored figures
  always agree with the lines.
* :func:`mint_id` and :data:`AUDIT` (through ``tools.common.WRITES``) are the only ways tools
  create ids and audit rows
  (:mod:`silo.toolkit`'s sequences and audit trail, with the ERP's numbering).
* The clock is ``state["now"]`` (an ISO timestamp). :func:`today` is its date; nothing reads
  the real time. Only :func:`set_now` moves it, and only forward.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from silo.toolkit.facts import FactFiles, SeedWorld
from silo.toolkit.records import AuditTrail, Sequences

from .domain.money import price_document

__all__ = [
    "AUDIT",
    "COLLECTIONS",
    "DATASETS",
    "SEQUENCES",
    "SIMULATION_NOW",
    "STATE_KEYS",
    "add_days",
    "create_state",
    "days_between",
    "mint_id",
    "set_now",
    "today",
]

SIMULATION_NOW = "2026-03-16T09:00:00.000Z"
"""The clock of a fresh world. It moves only through ``advance_clock`` and ``set_clock``."""

COLLECTIONS = (
    "departments",
    "users",
    "vendors",
    "customers",
    "products",
    "warehouses",
    "inventory",
    "inventoryMovements",
    "requisitions",
    "approvals",
    "rfqs",
    "quotations",
    "purchaseOrders",
    "goodsReceipts",
    "receivingDiscrepancies",
    "vendorInvoices",
    "threeWayMatches",
    "payments",
    "salesOrders",
    "fulfillments",
    "customerInvoices",
    "expenses",
    "budgets",
)
"""Datasets stored as a list of records in ``data/`` and held as dicts keyed by id."""

DATASETS = ("company", *COLLECTIONS, "auditLog", "sequences")
STATE_KEYS = ("now", *DATASETS)
"""Top-level keys in the order state diffs report them."""

SEQUENCES = Sequences(widths={"AUD": 4}, unset=1)
"""Id counters hold the last number issued; a prefix without a counter starts after 1, as the
reference ERP does. Zero padding is three digits except the audit log's four."""

AUDIT = AuditTrail(SEQUENCES)
"""The ERP's audit log: one row per change, its ids from :data:`SEQUENCES`."""

PRICED = {
    "quotations": False,
    "purchaseOrders": True,
    "vendorInvoices": True,
    "salesOrders": True,
    "customerInvoices": True,
}
"""Priced documents, and whether their totals carry tax."""

LINE_DEFAULTS: dict[str, dict[str, Any]] = {
    "purchaseOrders": {"receivedQuantity": 0, "rejectedQuantity": 0, "invoicedQuantity": 0},
    "salesOrders": {"reservedQuantity": 0, "fulfilledQuantity": 0, "warehouseId": None},
}
DOC_DEFAULTS: dict[str, dict[str, Any]] = {
    "vendorInvoices": {"amountPaid": 0, "matchId": None, "disputeReason": None},
    "customerInvoices": {"amountPaid": 0, "salesOrderId": None},
    "purchaseOrders": {"requisitionId": None, "quotationId": None, "committedAmount": 0},
    "requisitions": {"rfqId": None, "purchaseOrderId": None, "committedAmount": 0},
}

_FACTS = FactFiles(Path(__file__).resolve().parent / "data")

State = dict[str, Any]


def _derive(name: str, record: dict[str, Any]) -> None:
    """Fill the defaults, line ids and figures of one freshly parsed record."""
    for key, value in DOC_DEFAULTS.get(name, {}).items():
        record.setdefault(key, value)
    lines = record.get("lines")
    if isinstance(lines, list):
        defaults = LINE_DEFAULTS.get(name, {})
        record["lines"] = [
            {"id": f"{record['id']}-L{n}", **{**defaults, **line}}
            for n, line in enumerate(lines, 1)
        ]
    if name in PRICED:
        price_document(record, taxed=PRICED[name])
    elif name == "requisitions":
        price_document(record, taxed=False, total_field="estimatedTotal")


_SEED = SeedWorld(
    lambda: _FACTS.world(
        COLLECTIONS,
        head={"now": SIMULATION_NOW},
        before=("company",),
        after=("auditLog", "sequences"),
        derive=_derive,
    )
)
"""The derived seed world, built once per process."""


def create_state() -> State:
    """A new world: every call parses the cached derived JSON, so worlds never share objects."""
    return _SEED.create()


# --- ids and audit ---------------------------------------------------------------------------

mint_id = SEQUENCES.mint
"""``mint_id(state, prefix)``: the next id for ``prefix`` (``PO-210``, ``AUD-0021``); advances
the stored counter."""


# --- the simulated clock ---------------------------------------------------------------------


def today(state: Mapping[str, Any]) -> str:
    """The world's date (YYYY-MM-DD). Due dates compare against it as ISO strings."""
    return str(state["now"])[:10]


def add_days(day: str, days: int) -> str:
    """The ISO date ``days`` after ``day`` (which may be a date or a timestamp)."""
    return (date.fromisoformat(day[:10]) + timedelta(days=days)).isoformat()


def days_between(earlier: str, later: str) -> int:
    """Whole days from ``earlier`` to ``later`` (dates or timestamps; partial days floor)."""
    return (_instant(later) - _instant(earlier)).days


def _instant(value: str) -> datetime:
    text = value if "T" in value else f"{value}T00:00:00.000Z"
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def set_now(state: State, instant: datetime) -> tuple[str, str]:
    """Move the clock to ``instant`` (UTC); returns (previous, new). Callers check forwardness."""
    previous = str(state["now"])
    state["now"] = instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z"
    return previous, str(state["now"])


def now_instant(state: Mapping[str, Any]) -> datetime:
    """The world's clock as an aware datetime."""
    return _instant(str(state["now"]))
