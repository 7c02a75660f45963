"""Scripted reference solver for the six CRM tasks.

Contract: ``agent(inp)`` reads the instruction, recognises which task it is by its wording and
solves it through the tools alone: every id it uses is either stated in the instruction or read
from a tool result. It returns ``{"output": <answer text>}``. A tool refusal raises
:class:`SolverError`, because the reference solution must never need a retry. The solver uses
only the standard library, so it loads as a standalone file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[[str, dict[str, Any]], Any]


class SolverError(RuntimeError):
    """A tool refused a call the reference solution relies on."""


def _caller(inp: Any) -> Call:
    """``call(name, args)`` returning the tool output, raising on a refusal."""

    def call(name: str, args: dict[str, Any]) -> Any:
        result = inp.call_tool(name, args)
        if result["isError"]:
            raise SolverError(f"{name}({args}) was refused: {result['output']}")
        return result["output"]

    return call


def _first(pattern: str, text: str) -> str:
    match = re.search(pattern, text)
    if match is None:
        raise SolverError(f"the instruction has no match for {pattern!r}")
    return match.group(1)


def _user_id(text: str) -> str:
    """The first user id in ``text``."""
    return _first(r"(USR-\d+)", text)


def _dollars(text: str) -> float:
    return float(_first(r"\$([\d,]+(?:\.\d+)?)", text).replace(",", ""))


def _number(value: float) -> str:
    """``507500`` for whole values, ``36.5`` otherwise."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:g}"


def convert_lead(task: str, call: Call) -> str:
    actor = _user_id(task)
    lead = call("get_lead", {"leadId": _first(r"(LEAD-\d+)", task)})
    existing = call("search_accounts", {"query": lead["company"]})
    args: dict[str, Any] = {
        "actorId": actor,
        "leadId": lead["id"],
        "amount": _dollars(task),
        "expectedCloseDate": _first(r"(\d{4}-\d{2}-\d{2})", task),
    }
    exact = [a for a in existing["results"] if a["name"].casefold() == lead["company"].casefold()]
    if exact:
        args["accountId"] = exact[0]["id"]
    result = call("convert_lead", args)
    return (
        f"Converted {lead['id']} into account {result['convertedAccountId']}, contact "
        f"{result['convertedContactId']} and opportunity {result['convertedOpportunityId']}."
    )


def rehome_open_deals(task: str, call: Call) -> str:
    departed = _first(r"\((USR-\d+)\) has left", task)
    actor = _first(r"Acting as [^(]*\((USR-\d+)\)", task)
    successor = _first(r"over to [^(]*\((USR-\d+)\)", task)
    listing = call("list_opportunities", {"ownerId": departed, "status": "open", "limit": 500})
    moved = [
        call(
            "reassign_opportunity",
            {"actorId": actor, "opportunityId": opp["id"], "newOwnerId": successor},
        )["id"]
        for opp in listing["results"]
    ]
    return f"Reassigned {len(moved)} open opportunities to {successor}: {', '.join(moved)}."


def book_signed_win(task: str, call: Call) -> str:
    actor = _user_id(task)
    opp = call("get_opportunity", {"opportunityId": _first(r"(OPP-\d+)", task)})
    signed = _dollars(task)
    won = call(
        "close_opportunity_won",
        {"actorId": actor, "opportunityId": opp["id"], "finalAmount": signed},
    )
    call(
        "log_activity",
        {
            "actorId": actor,
            "type": "note",
            "subject": "Signed contract received",
            "notes": f"Signed at ${_number(signed)} (last quote ${_number(opp['amount'])}).",
            "relatedType": "opportunity",
            "relatedId": opp["id"],
        },
    )
    return f"{won['id']} is closed won at ${_number(won['amount'])}."


def weighted_pipeline(task: str, call: Call) -> str:
    total = call("pipeline_summary", {})["totals"]["weightedAmount"]
    return f"The weighted value of open pipeline is ${_number(total)}"


def stalled_leader(task: str, call: Call) -> str:
    days = int(_first(r"more than (\d+) days", task))
    report = call("stale_opportunities", {"thresholdDays": days})
    top = report["countByOwner"][0]
    return f"{top['ownerName']} owns the most stalled deals: {top['count']}."


def weakest_active_rep(task: str, call: Call) -> str:
    reps = call("rep_performance", {"activeOnly": True})["reps"]
    scored = [rep for rep in reps if rep["active"] and rep["attainmentPct"] is not None]
    weakest = min(scored, key=lambda rep: rep["attainmentPct"])
    return f"{weakest['name']} is furthest behind at {_number(weakest['attainmentPct'])}% of quota."


ROUTES: list[tuple[str, Callable[[str, Call], str]]] = [
    ("convert her lead", convert_lead),
    ("has left the company", rehome_open_deals),
    ("close the opportunity as won", book_signed_win),
    ("probability-weighted value", weighted_pipeline),
    ("stuck in their current stage", stalled_leader),
    ("furthest behind on quota", weakest_active_rep),
]


def agent(inp: Any) -> dict[str, str]:
    """Solve the task in ``inp`` and return the answer text."""
    task = inp.task
    for phrase, solve in ROUTES:
        if phrase.casefold() in task.casefold():
            return {"output": solve(task, _caller(inp))}
    raise SolverError("this solver does not recognise the task")
