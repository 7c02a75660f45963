"""Scripted reference solver for the nine CRM tasks.

Contract: ``agent(inp)`` reads the instruction, recognises which task it is by its wording and
solves it through the tools alone: every id it uses is either stated in the instruction or read
from a tool result. In the three conversational tasks (``inp.user`` set, ``inp.task`` the
customer's opening) every fact comes from the customer: it asks which company and deal they
mean and for the new figure, finds the deal by the words of their answer, acts as the deal's
owner and tells them it is done. It returns ``{"output": <answer text>}``. A tool refusal raises
:class:`SolverError`, because the reference solution must never need a retry. The solver uses
only the standard library and :mod:`silo.toolkit` (its strict caller and instruction reading),
so it loads as a standalone file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from silo.toolkit.solving import Call, SolverError, first_match, strict_caller


def _user_id(text: str) -> str:
    """The first user id in ``text``."""
    return first_match(r"(USR-\d+)", text)


def _dollars(text: str) -> float:
    return float(first_match(r"\$([\d,]+(?:\.\d+)?)", text).replace(",", ""))


def _number(value: float) -> str:
    """``507500`` for whole values, ``36.5`` otherwise."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:g}"


def convert_lead(task: str, call: Call) -> str:
    actor = _user_id(task)
    lead = call("get_lead", {"leadId": first_match(r"(LEAD-\d+)", task)})
    existing = call("search_accounts", {"query": lead["company"]})
    args: dict[str, Any] = {
        "actorId": actor,
        "leadId": lead["id"],
        "amount": _dollars(task),
        "expectedCloseDate": first_match(r"(\d{4}-\d{2}-\d{2})", task),
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
    departed = first_match(r"\((USR-\d+)\) has left", task)
    actor = first_match(r"Acting as [^(]*\((USR-\d+)\)", task)
    successor = first_match(r"over to [^(]*\((USR-\d+)\)", task)
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
    opp = call("get_opportunity", {"opportunityId": first_match(r"(OPP-\d+)", task)})
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
    days = int(first_match(r"more than (\d+) days", task))
    report = call("stale_opportunities", {"thresholdDays": days})
    top = report["countByOwner"][0]
    return f"{top['ownerName']} owns the most stalled deals: {top['count']}."


def weakest_active_rep(task: str, call: Call) -> str:
    reps = call("rep_performance", {"activeOnly": True})["reps"]
    scored = [rep for rep in reps if rep["active"] and rep["attainmentPct"] is not None]
    weakest = min(scored, key=lambda rep: rep["attainmentPct"])
    return f"{weakest['name']} is furthest behind at {_number(weakest['attainmentPct'])}% of quota."


_DATE = r"(\d{4}-\d{2}-\d{2})"


def _ask(inp: Any, message: str) -> str:
    """Send the customer one message and return their reply's text."""
    reply = inp.user.send(message)
    if reply["isError"]:
        raise SolverError(f"the message {message!r} was not delivered: {reply['text']}")
    return str(reply["text"])


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.casefold()) if len(w) > 3}


def _named_deal(inp: Any, call: Call) -> dict[str, Any]:
    """The deal the customer means: their company's deal whose name best matches their words."""
    said = _ask(inp, "Which company are you with, and which deal do you mean?")
    company = re.sub(r"^(i'm with|i am with)\s+", "", said.split(".")[0].strip(), flags=re.I)
    accounts = call("search_accounts", {"query": company})["results"]
    if not accounts:
        raise SolverError(f"no account matches {company!r}")
    deals = call("list_opportunities", {"accountId": accounts[0]["id"], "limit": 500})["results"]
    heard = _words(said)
    return max(
        deals, key=lambda deal: (len(_words(deal["name"]) & heard), deal["status"] == "open")
    )


def _change_named_deal(
    inp: Any, call: Call, question: str, field: str, read: Callable[[str], Any], done: str
) -> str:
    """Ask which deal and the new ``field`` value, update it as the deal's owner, say so."""
    deal = _named_deal(inp, call)
    value = read(_ask(inp, question))
    call(
        "update_opportunity",
        {"actorId": deal["ownerId"], "opportunityId": deal["id"], field: value},
    )
    shown = f"${_number(value)}" if isinstance(value, float) else value
    _ask(inp, done.format(deal=f"{deal['name']} ({deal['id']})", value=shown))
    return f"{deal['id']}: {field} is now {shown}."


def new_amount(inp: Any, call: Call) -> str:
    return _change_named_deal(
        inp, call, "What new amount did you agree?", "amount", _dollars,
        "I have updated {deal} to {value}.",
    )  # fmt: skip


def new_close_date(inp: Any, call: Call) -> str:
    return _change_named_deal(
        inp, call, "What is the new date it should close by?", "expectedCloseDate",
        lambda text: first_match(_DATE, text), "The expected close of {deal} has been moved to {value}.",
    )  # fmt: skip


def value_on_file(inp: Any, call: Call) -> str:
    deal = call("get_opportunity", {"opportunityId": _named_deal(inp, call)["id"]})
    told = f"The value on file for {deal['name']} ({deal['id']}) is ${_number(deal['amount'])}."
    _ask(inp, told)
    return told


CONVERSATIONS: list[tuple[str, Callable[[Any, Call], str]]] = [
    ("agreed new numbers", new_amount),
    ("push the expected close date", new_close_date),
    ("what value do you have on file", value_on_file),
]

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
    if getattr(inp, "user", None) is not None:
        for phrase, talk in CONVERSATIONS:
            if phrase.casefold() in task.casefold():
                return {"output": talk(inp, strict_caller(inp))}
    for phrase, solve in ROUTES:
        if phrase.casefold() in task.casefold():
            return {"output": solve(task, strict_caller(inp))}
    raise SolverError("this solver does not recognise the task")
