"""Clock tools: the simulated date, which only ever moves forward.

Contract: ``get_current_date`` reports ``state["now"]`` with the fiscal year and how many
vendor invoices, customer invoices and purchase orders are overdue or late. ``advance_clock``
(1-365 days) and ``set_clock`` (to a later date or instant) are the only ways time passes; a
move backwards or to the same instant is refused. Both report what became overdue or expired
because of the move and leave one audit row. Nothing here reads the real time.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import Args
from silo.toolkit.schema import integer, no_input, obj

from ..domain.documents import is_late, is_overdue, quotation_is_valid
from ..state import now_instant, set_now, today
from .common import WRITES, State
from .schema import INSTANT_PATTERN, actor


def _overdue_ids(state: State) -> list[str]:
    return [
        invoice["id"]
        for collection in ("vendorInvoices", "customerInvoices")
        for invoice in state[collection].values()
        if is_overdue(state, invoice)
    ]


def _valid_quotation_ids(state: State) -> set[str]:
    return {q["id"] for q in state["quotations"].values() if quotation_is_valid(state, q)}


def _get_current_date(state: State, args: Args) -> dict[str, Any]:
    fiscal_start = int(state["company"]["fiscalYearStartMonth"])
    now = now_instant(state)
    return {
        "now": state["now"],
        "today": today(state),
        "fiscalYear": now.year if now.month >= fiscal_start or fiscal_start == 1 else now.year - 1,
        "overdueVendorInvoices": sum(
            is_overdue(state, inv) for inv in state["vendorInvoices"].values()
        ),
        "overdueCustomerInvoices": sum(
            is_overdue(state, inv) for inv in state["customerInvoices"].values()
        ),
        "latePurchaseOrders": sum(is_late(state, po) for po in state["purchaseOrders"].values()),
    }


def _move_clock(state: State, args: Args, target: datetime, action: str) -> dict[str, Any]:
    """Move the clock forward to ``target`` and report what the move made overdue or expired."""
    WRITES.acting(state, args)
    if target <= now_instant(state):
        raise ToolError(
            "invalid_input",
            f"the clock only moves forward; it is {state['now']}, pick a later date",
            {"now": state["now"]},
        )
    overdue_before = set(_overdue_ids(state))
    valid_before = _valid_quotation_ids(state)
    previous, current = set_now(state, target)
    newly_overdue = [key for key in _overdue_ids(state) if key not in overdue_before]
    newly_expired = sorted(valid_before - _valid_quotation_ids(state))
    details = {"from": previous, "to": current}
    WRITES.audit(state, args, action, "clock", "now", details)
    return {
        "previous": previous,
        "now": current,
        "today": today(state),
        "newlyOverdueInvoices": newly_overdue,
        "newlyExpiredQuotations": newly_expired,
    }


def _advance_clock(state: State, args: Args) -> dict[str, Any]:
    target = now_instant(state) + timedelta(days=int(args["days"]))
    return _move_clock(state, args, target, "clock.advanced")


def _set_clock(state: State, args: Args) -> dict[str, Any]:
    value = str(args["to"])
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ToolError(
            "invalid_input", f"to {value!r} is not a real date or instant (YYYY-MM-DD[THH:MM])"
        ) from None
    target = parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    if "T" not in value:
        target = target.replace(hour=9)  # a bare date means the start of that business day
    return _move_clock(state, args, target, "clock.set")


TOOLS: list[Tool] = [
    define_tool(
        "get_current_date",
        "The simulated date and time, fiscal year, and counts of overdue vendor invoices, "
        "overdue customer invoices and late purchase orders. Time moves only with advance_clock "
        "or set_clock.",
        no_input(),
        _get_current_date,
        read_only=True,
    ),
    define_tool(
        "advance_clock",
        "Move the simulated clock forward by 1-365 days; reports invoices that became overdue "
        "and quotations that expired because of the move.",
        obj(
            {"actorId": actor(), "days": integer("Days to move forward (1-365).", 1, 365)},
            ["actorId", "days"],
        ),
        _advance_clock,
    ),
    define_tool(
        "set_clock",
        "Set the simulated clock to a later date (YYYY-MM-DD, 09:00 that day) or instant "
        "(YYYY-MM-DDTHH:MM[:SS]Z). The clock never moves backwards.",
        obj(
            {
                "actorId": actor(),
                "to": {
                    "type": "string",
                    "description": "The new date or UTC instant, later than now.",
                    "pattern": INSTANT_PATTERN,
                },
            },
            ["actorId", "to"],
        ),
        _set_clock,
    ),
]
