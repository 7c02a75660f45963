"""Verifiers for the six CRM tasks.

Contract: each check function grades ``(final, initial, context)`` by inspecting the worlds, not
the transcript. Expected answers are derived from the initial world with the same helpers the
tools use (``state.py``); facts the instruction states (ids, amounts, dates) come from the
task file's ``entities``. Required checks decide pass/fail; optional checks guard against
collateral damage (other deals touched, a report task that changed the world; on the write
tasks :func:`silo.grading.nothing_else_changed` reads the state diff for any row outside the
task's own).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from silo import Check, VerifierContext, check, define_verifier, optional
from silo.grading import (
    last_number_is,
    mentions,
    nothing_else_changed,
    plain,
    same,
    states_number,
    task_entities,
    touched_rows,
    world_unchanged,
)

from . import state as derived

World = Mapping[str, Any]
CRM_UNCHANGED = "The CRM was left exactly as it was"


def _open_deal_ids(world: World, owner_id: str) -> set[str]:
    return {
        opp["id"]
        for opp in derived.OPPORTUNITIES_BY_OWNER.rows(world, owner_id)
        if derived.opportunity_status(world, opp) == "open"
    }


def _deals_owned_at_start(
    final: World, initial: World, owner_id: str, touched: set[str]
) -> list[Mapping[str, Any]]:
    """The deals ``owner_id`` owned in the initial world: the ones the run left alone are his
    in the final world too, and the ones it touched are read from the initial world."""
    start = initial["opportunities"]
    kept = [i for i in derived.OPPORTUNITIES_BY_OWNER.keys(final, owner_id) if i not in touched]
    was_his = [i for i in touched if i in start and start[i]["ownerId"] == owner_id]
    return [start[i] for i in (*kept, *was_his)]


def _converted_lead(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    facts = task_entities(ctx)
    lead_id = facts.get("leadId", "")
    lead = final["leads"].get(lead_id) or {}
    before = initial["leads"].get(lead_id) or {}
    opp = final["opportunities"].get(lead.get("convertedOpportunityId") or "") or {}
    contact = final["contacts"].get(lead.get("convertedContactId") or "") or {}
    account_id = lead.get("convertedAccountId")
    return [
        check(
            "The lead is marked converted",
            lead.get("status") == "converted",
            f"status is {lead.get('status')!r}",
        ),
        check(
            "The conversion produced an opportunity",
            bool(opp),
            f"convertedOpportunityId is {lead.get('convertedOpportunityId')!r}",
        ),
        check(
            "The opportunity has the stated amount",
            abs(float(opp.get("amount") or 0) - float(facts.get("amount", -1))) <= 0.01,
            f"amount is {opp.get('amount')!r}",
        ),
        check(
            "The opportunity closes on the stated date",
            opp.get("expectedCloseDate") == facts.get("expectedCloseDate"),
            f"expectedCloseDate is {opp.get('expectedCloseDate')!r}",
        ),
        check(
            "The opportunity points back to the lead",
            opp.get("sourceLeadId") == lead_id,
            f"sourceLeadId is {opp.get('sourceLeadId')!r}",
        ),
        check(
            "The new contact sits on the converted account",
            bool(contact) and contact.get("accountId") == account_id,
            f"contact account is {contact.get('accountId')!r}, lead says {account_id!r}",
        ),
        check(
            "The opportunity is on the same account",
            bool(opp) and account_id is not None and opp.get("accountId") == account_id,
            f"opportunity account is {opp.get('accountId')!r}",
        ),
        optional(
            "A new account was created for the company",
            account_id is not None and account_id not in initial["accounts"],
            f"account {account_id!r}",
        ),
        optional(
            "The new opportunity is open",
            bool(opp) and derived.opportunity_status(final, opp) == "open",
        ),
        optional(
            "The lead's owner owns the new opportunity",
            bool(opp) and opp.get("ownerId") == before.get("ownerId"),
            f"owner {opp.get('ownerId')!r}, lead owner {before.get('ownerId')!r}",
        ),
        nothing_else_changed(
            ctx,
            {
                "leads": [lead_id],
                "accounts": [str(account_id)],
                "contacts": [str(lead.get("convertedContactId"))],
                "opportunities": [str(lead.get("convertedOpportunityId"))],
                "sequences": None,
            },
            appendable=["auditLog"],
            worlds=(final, initial),
        ),
    ]


def _rehomed_pipeline(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    facts = task_entities(ctx)
    departed, successor = facts.get("fromUserId", ""), facts.get("toUserId", "")
    # The state diff names the deals the run touched, so this costs what the run changed, not
    # the size of the pipeline; without a diff, every deal of both worlds is compared.
    touched = touched_rows(ctx, "opportunities")
    if touched is None:
        touched = set(initial["opportunities"])
        touched |= set(final["opportunities"])
    his = _deals_owned_at_start(final, initial, departed, touched)
    to_move = {opp["id"] for opp in his if derived.opportunity_status(initial, opp) == "open"}
    after = {i: final["opportunities"].get(i) or {} for i in to_move}
    moved = {i for i, opp in after.items() if opp.get("ownerId") == successor}
    still_open = {
        i for i, opp in after.items() if opp and derived.opportunity_status(final, opp) == "open"
    }
    closed_kept = all(
        (final["opportunities"].get(opp["id"]) or {}).get("ownerId") == departed
        for opp in his
        if derived.opportunity_status(initial, opp) != "open"
    )
    others_changed = sorted(
        i
        for i in touched
        if i in initial["opportunities"]
        and i not in to_move
        and not same(final["opportunities"].get(i), initial["opportunities"][i])
    )
    return [
        check(
            "Every open deal of the departed rep now belongs to the new owner",
            bool(to_move) and moved == to_move,
            f"moved {sorted(moved)} of {sorted(to_move)}",
        ),
        check(
            "The departed rep owns no open deal",
            not _open_deal_ids(final, departed),
            f"still owns {sorted(_open_deal_ids(final, departed))}",
        ),
        check(
            "The moved deals are still open",
            still_open == to_move,
            f"open after the move: {sorted(still_open)}",
        ),
        optional("His closed deals kept their owner", closed_kept),
        optional("No other deal was changed", not others_changed, f"changed: {others_changed}"),
        nothing_else_changed(
            ctx,
            {"opportunities": to_move, "sequences": None},
            appendable=["auditLog"],
            worlds=(final, initial),
        ),
    ]


def _booked_win(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    facts = task_entities(ctx)
    opp_id = facts.get("opportunityId", "")
    opp = final["opportunities"].get(opp_id) or {}
    stage = final["stages"].get(opp.get("stageId") or "") or {}
    notes = [
        act
        for act in final["activities"].values()
        if act["id"] not in initial["activities"]
        and act["relatedType"] == "opportunity"
        and act["relatedId"] == opp_id
        and act.get("completedOn") == final["now"]
    ]
    others = sorted(
        o["id"]
        for o in initial["opportunities"].values()
        if o["id"] != opp_id and plain(final["opportunities"].get(o["id"])) != plain(o)
    )
    quoted = (initial["opportunities"].get(opp_id) or {}).get("amount")
    return [
        check(
            "The deal sits in the closed-won stage",
            bool(stage) and stage.get("isClosed") is True and stage.get("isWon") is True,
            f"stage {opp.get('stageId')!r}",
        ),
        check(
            "The deal is booked at the signed amount",
            abs(float(opp.get("amount") or 0) - float(facts.get("signedAmount", -1))) <= 0.01,
            f"amount {opp.get('amount')!r}; last quote was {quoted!r}",
        ),
        check(
            "The deal is closed as of today",
            opp.get("closedDate") == final["now"],
            f"closedDate {opp.get('closedDate')!r}",
        ),
        check(
            "A completed note about the signing is on the deal",
            bool(notes),
            f"{len(notes)} new completed activities on {opp_id}",
        ),
        optional(
            "The note is a note-type activity by the acting user",
            any(a["type"] == "note" and a["ownerId"] == facts.get("actorId") for a in notes),
        ),
        optional("No other deal was changed", not others, f"changed: {others}"),
        nothing_else_changed(
            ctx,
            {"opportunities": [opp_id], "sequences": None},
            appendable=["activities", "auditLog"],
            worlds=(final, initial),
        ),
    ]


def _weighted_pipeline(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    expected = round(
        sum(
            derived.weighted_amount(initial, opp)
            for opp in initial["opportunities"].values()
            if derived.opportunity_status(initial, opp) == "open"
        ),
        2,
    )
    answer = ctx.agent_output
    return [
        check(
            "The answer states the weighted open pipeline",
            states_number(answer, expected),
            f"expected {expected:g}",
        ),
        optional("The weighted total is the last number given", last_number_is(answer, expected)),
        world_unchanged(final, initial, CRM_UNCHANGED),
    ]


def _stale_leader(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    counts = Counter(
        opp["ownerId"]
        for opp in initial["opportunities"].values()
        if derived.is_stale(initial, opp)
    )
    ranked = counts.most_common()
    leader_id, leader_count = ranked[0] if ranked else ("", 0)
    leader = initial["users"].get(leader_id) or {"name": "(nobody)"}
    answer = ctx.agent_output
    return [
        check(
            "The answer names the rep with the most stalled deals",
            bool(ranked) and mentions(answer, leader["name"]),
            f"expected {leader['name']}",
        ),
        check(
            "The answer states how many stalled deals that rep has",
            states_number(answer, leader_count),
            f"expected {leader_count}",
        ),
        optional(
            "The starting world has a single leader",
            len(ranked) < 2 or ranked[1][1] < leader_count,
            f"counts {dict(counts)}",
        ),
        world_unchanged(final, initial, CRM_UNCHANGED),
    ]


def _weakest_active_rep(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    reps = [u for u in initial["users"].values() if u["role"] == "rep"]
    scored = sorted(
        (derived.quota_attainment(initial, u), u["id"])
        for u in reps
        if u["active"] and derived.quota_attainment(initial, u) is not None
    )
    pct, weakest_id = scored[0] if scored else (0.0, "")
    weakest = initial["users"].get(weakest_id) or {"name": "(nobody)"}
    departed = [u["name"] for u in reps if not u["active"]]
    answer = ctx.agent_output
    named_departed = [
        name for name in departed if mentions(answer, name) or mentions(answer, name.split()[-1])
    ]
    return [
        check(
            "The answer names the weakest active rep",
            bool(scored) and mentions(answer, weakest["name"]),
            f"expected {weakest['name']}",
        ),
        check(
            "The answer states that rep's attainment",
            states_number(answer, pct, 0.1),
            f"expected {pct:g}%",
        ),
        check(
            "The answer does not name a deactivated rep",
            not named_departed,
            f"named {named_departed}" if named_departed else "no deactivated rep named",
        ),
        optional(
            "The starting world has a single weakest rep",
            len(scored) < 2 or scored[1][0] > pct,
            f"ranking {scored}",
        ),
        world_unchanged(final, initial, CRM_UNCHANGED),
    ]


VERIFIERS = [
    define_verifier(
        "VER-001",
        "Qualified lead converted into a new account, contact and deal",
        _converted_lead,
    ),
    define_verifier(
        "VER-002", "Departed rep's open deals moved to the new owner", _rehomed_pipeline
    ),
    define_verifier(
        "VER-003",
        "Signed deal booked as won at the signed amount with a note",
        _booked_win,
    ),
    define_verifier("VER-004", "Weighted value of open pipeline reported", _weighted_pipeline),
    define_verifier("VER-005", "Rep with the most stalled deals identified", _stale_leader),
    define_verifier("VER-006", "Weakest active rep against quota identified", _weakest_active_rep),
]
