"""Parameter generators of the CRM's templated tasks (``tasks/TASK-010.json`` and on).

Contract: each generator lists every valid parameter set the shipped world allows, read from
the initial world only (open deals whose owner is still active, their account and its first
contact); :func:`silo.variants.candidates_generator` turns the list into ``fn(world, seed)``,
so instances ``#0`` to ``#count-1`` are distinct. Amounts are whole dollars, shown with
thousands separators in text; dates are ISO days after the simulation's ``now``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo.variants import Generator, candidates_generator

from . import state as derived

World = Mapping[str, Any]
Params = dict[str, Any]

__all__ = ["generators"]


def _money(value: int) -> str:
    return f"{value:,}"


def _open_deals(world: World) -> list[Params]:
    """The open deals an active owner can still change, with their account and contact."""
    found = []
    for opp in sorted(world["opportunities"].values(), key=lambda o: o["id"]):
        owner = world["users"][opp["ownerId"]]
        if derived.opportunity_status(world, opp) != "open" or not owner["active"]:
            continue
        account = world["accounts"][opp["accountId"]]
        contact = min(
            (c for c in world["contacts"].values() if c["accountId"] == account["id"]),
            key=lambda c: c["id"],
        )
        others = sorted(
            o["id"]
            for o in world["opportunities"].values()
            if o["accountId"] == account["id"] and o["id"] != opp["id"]
        )
        found.append(
            {
                "opportunityId": opp["id"],
                "dealName": opp["name"],
                "amount": int(opp["amount"]),
                "closeDate": opp["expectedCloseDate"],
                "accountName": account["name"],
                "actorId": owner["id"],
                "actorName": owner["name"],
                "contactId": contact["id"],
                "contactName": f"{contact['firstName']} {contact['lastName']}",
                "otherOpportunityIds": others,
            }
        )
    return found


def signed_wins(world: World) -> list[Params]:
    """TASK-010: every open deal, signed at 1 to 20 percent under its last quote."""
    return [
        {
            **deal,
            "discountPct": pct,
            "signedAmount": deal["amount"] * (100 - pct) // 100,
            "signedText": _money(deal["amount"] * (100 - pct) // 100),
            "difficulty": "easy" if pct % 5 == 0 else "medium",
        }
        for deal in _open_deals(world)
        for pct in range(1, 21)
        if deal["amount"] * (100 - pct) % 100 == 0
    ]


def new_amounts(world: World) -> list[Params]:
    """TASK-011: every open deal, its amount moved by -20,000 to +20,000 in 2,500 steps."""
    return [
        {**deal, "newAmount": new, "newAmountText": _money(new)}
        for deal in _open_deals(world)
        for step in range(-8, 9)
        if step and (new := deal["amount"] + 2500 * step) > 0
    ]


def _days(now: str) -> list[str]:
    """The 15th and the last day of each of the twelve months after ``now``'s month."""
    year, month = int(now[:4]), int(now[5:7])
    days = []
    for _ in range(12):
        month, year = (1, year + 1) if month == 12 else (month + 1, year)
        last = 31 if month in (1, 3, 5, 7, 8, 10, 12) else 30 if month != 2 else 28
        days += [f"{year:04d}-{month:02d}-15", f"{year:04d}-{month:02d}-{last:02d}"]
    return days


def new_close_dates(world: World) -> list[Params]:
    """TASK-012: every open deal, moved to a 15th or month end of the coming year."""
    return [
        {**deal, "newCloseDate": day}
        for deal in _open_deals(world)
        for day in _days(world["now"])
        if day != deal["closeDate"]
    ]


generators: dict[str, Generator] = {
    "signed_wins": candidates_generator(signed_wins),
    "new_amounts": candidates_generator(new_amounts),
    "new_close_dates": candidates_generator(new_close_dates),
}
