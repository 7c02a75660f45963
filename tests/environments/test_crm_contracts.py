"""CRM contracts checked across every tool they apply to, with oracles that share no CRM code.

Each test states one rule from the tools' module docstrings and descriptions (audit rows, actor
and owner checks, date boundaries, cents, filters, orders, lifecycles) and checks it on every
tool or seed record it covers. Expected values are computed here from the raw ``data/*.json``
files or written out by hand, never with ``environments/crm/state.py``.
"""

from __future__ import annotations

import copy
import json
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

import pytest

Caller = Any  # the conftest fixture "crm": calls tools, .refused(tool, code, **args), .state

DATA = Path(__file__).resolve().parents[2] / "environments" / "crm" / "data"
TODAY = "2026-03-16"
M, GONE = "USR-001", "USR-004"
SEED = {name: json.loads((DATA / f"{name}.json").read_text()) for name in (
    "users", "accounts", "contacts", "leads", "opportunities", "activities", "stages")}  # fmt: skip
PROBABILITY = {s["id"]: s["probability"] for s in SEED["stages"]}
CLOSED = {s["id"] for s in SEED["stages"] if s["isClosed"]}
ACTIONS = {  # every audit action the tools document, by tool
    "create_account": "account.created", "update_account": "account.updated",
    "create_contact": "contact.created", "update_contact": "contact.updated",
    "link_contact_to_account": "contact.linked", "create_lead": "lead.created",
    "update_lead": "lead.updated", "qualify_lead": "lead.qualified",
    "disqualify_lead": "lead.disqualified", "convert_lead": "lead.converted",
    "create_opportunity": "opportunity.created", "update_opportunity": "opportunity.updated",
    "set_opportunity_stage": "opportunity.stage_changed",
    "advance_opportunity_stage": "opportunity.stage_changed",
    "close_opportunity_won": "opportunity.won", "close_opportunity_lost": "opportunity.lost",
    "reassign_opportunity": "opportunity.reassigned", "log_activity": "activity.logged",
    "schedule_followup": "activity.scheduled", "complete_activity": "activity.completed",
}  # fmt: skip
# one valid call per mutating tool, by a manager, and the (collection, id) it writes
CALLS: dict[str, tuple[dict[str, Any], str, str]] = {
    "create_account": ({"name": "Harbour Ltd"}, "accounts", "ACC-012"),
    "update_account": ({"accountId": "ACC-005", "city": "Bath"}, "accounts", "ACC-005"),
    "create_contact": ({"firstName": "A", "lastName": "B", "email": "a@b.example"}, "contacts", "CON-015"),
    "update_contact": ({"contactId": "CON-002", "title": "COO"}, "contacts", "CON-002"),
    "link_contact_to_account": ({"contactId": "CON-014", "accountId": "ACC-008"}, "contacts", "CON-014"),
    "create_lead": ({"firstName": "A", "lastName": "B", "company": "C", "email": "a@c.example", "source": "web"}, "leads", "LEAD-011"),
    "update_lead": ({"leadId": "LEAD-009", "phone": "1"}, "leads", "LEAD-009"),
    "qualify_lead": ({"leadId": "LEAD-002"}, "leads", "LEAD-002"),
    "disqualify_lead": ({"leadId": "LEAD-003", "reason": "No fit."}, "leads", "LEAD-003"),
    "convert_lead": ({"leadId": "LEAD-004", "amount": 10, "expectedCloseDate": TODAY}, "leads", "LEAD-004"),
    "create_opportunity": ({"accountId": "ACC-006", "name": "N", "amount": 5, "expectedCloseDate": TODAY}, "opportunities", "OPP-017"),
    "update_opportunity": ({"opportunityId": "OPP-008", "name": "New name"}, "opportunities", "OPP-008"),
    "set_opportunity_stage": ({"opportunityId": "OPP-004", "stageId": "STG-03"}, "opportunities", "OPP-004"),
    "advance_opportunity_stage": ({"opportunityId": "OPP-002"}, "opportunities", "OPP-002"),
    "close_opportunity_won": ({"opportunityId": "OPP-007"}, "opportunities", "OPP-007"),
    "close_opportunity_lost": ({"opportunityId": "OPP-006", "reason": "Budget."}, "opportunities", "OPP-006"),
    "reassign_opportunity": ({"opportunityId": "OPP-008", "newOwnerId": "USR-003"}, "opportunities", "OPP-008"),
    "log_activity": ({"type": "call", "subject": "S", "relatedType": "account", "relatedId": "ACC-001"}, "activities", "ACT-016"),
    "schedule_followup": ({"type": "task", "subject": "S", "relatedType": "account", "relatedId": "ACC-001", "dueDate": TODAY}, "activities", "ACT-016"),
    "complete_activity": ({"activityId": "ACT-002"}, "activities", "ACT-002"),
}  # fmt: skip


def _changed_fields(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    return {k: {"from": before.get(k), "to": after[k]} for k in after if before.get(k) != after[k]}


@pytest.mark.parametrize("tool", sorted(CALLS))
def test_each_write_appends_one_audit_row_naming_its_action_actor_and_record(
    crm: Caller, tool: str
) -> None:
    args, collection, record_id = CALLS[tool]
    before = copy.deepcopy(crm.state[collection].get(record_id, {}))
    crm(tool, actorId=M, **args)
    (row,) = crm.state["auditLog"]
    assert (row["id"], row["at"], row["actorId"]) == ("AUD-0001", TODAY, M)
    assert (row["action"], row["entityId"]) == (ACTIONS[tool], record_id)
    if tool.startswith("update_"):  # an update's details are exactly what changed, old -> new
        assert row["details"] == _changed_fields(before, crm.state[collection][record_id])


def test_audit_details_of_moves_links_and_completions_name_the_old_values(crm: Caller) -> None:
    crm("set_opportunity_stage", actorId=M, opportunityId="OPP-004", stageId="STG-03")
    crm("advance_opportunity_stage", actorId=M, opportunityId="OPP-004")
    crm("link_contact_to_account", actorId=M, contactId="CON-002", accountId="ACC-002")
    crm("complete_activity", actorId=M, activityId="ACT-002", completedOn="2026-03-10")
    crm("reassign_opportunity", actorId=M, opportunityId="OPP-001", newOwnerId="USR-006")
    details = [row["details"] for row in crm.state["auditLog"]]
    assert details == [
        {"fromStageId": "STG-01", "toStageId": "STG-03"},
        {"fromStageId": "STG-03", "toStageId": "STG-04"},
        {"fromAccountId": "ACC-001", "toAccountId": "ACC-002", "demoted": []},
        {"completedOn": "2026-03-10"},
        {"fromOwnerId": "USR-002", "toOwnerId": "USR-006"},
    ]
    assert crm("list_audit_log")["results"] == crm.state["auditLog"]  # oldest first


@pytest.mark.parametrize("tool", sorted(CALLS))
def test_a_deactivated_actor_is_refused_by_every_write(crm: Caller, tool: str) -> None:
    crm.refused(tool, "not_allowed", actorId=GONE, **CALLS[tool][0])


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("create_account", {"name": "Z Ltd", "ownerId": GONE}),
        ("update_account", {"accountId": "ACC-005", "ownerId": GONE}),
        ("create_lead", {**CALLS["create_lead"][0], "ownerId": GONE}),
        ("update_lead", {"leadId": "LEAD-009", "ownerId": GONE}),
        ("create_opportunity", {**CALLS["create_opportunity"][0], "ownerId": GONE}),
        ("reassign_opportunity", {"opportunityId": "OPP-008", "newOwnerId": GONE}),
        ("schedule_followup", {**CALLS["schedule_followup"][0], "ownerId": GONE}),
    ],
)
def test_a_deactivated_user_can_own_nothing(crm: Caller, tool: str, args: dict[str, Any]) -> None:
    crm.refused(tool, "not_allowed", actorId=M, **args)


def test_today_is_a_valid_due_close_and_completion_date(crm: Caller) -> None:
    made = crm("schedule_followup", actorId=M, **CALLS["schedule_followup"][0])
    assert (made["dueDate"], made["status"], made["isOverdue"]) == (TODAY, "open", False)
    done = crm("complete_activity", actorId=M, activityId=made["id"])  # created today, done today
    assert done["completedOn"] == TODAY and done["status"] == "done"
    opp = crm("update_opportunity", actorId=M, opportunityId="OPP-008", expectedCloseDate=TODAY)
    assert opp["expectedCloseDate"] == TODAY and opp["isPastDue"] is False
    crm.refused("update_opportunity", "invalid_input", actorId=M, opportunityId="OPP-008",
                expectedCloseDate="2026-03-15")  # fmt: skip
    on_creation_day = crm(
        "complete_activity", actorId=M, activityId="ACT-013", completedOn="2026-02-25"
    )
    assert on_creation_day["completedOn"] == "2026-02-25"  # fmt: skip


@pytest.mark.parametrize("raw", [1234.565, 1234.5649, 0.125, 99.999])
def test_every_amount_is_stored_rounded_to_cents(crm: Caller, raw: float) -> None:
    cents = round(raw, 2)  # Python's round, the rule the tools document
    crm("update_opportunity", actorId=M, opportunityId="OPP-008", amount=raw)
    made = crm("create_opportunity", actorId=M, **{**CALLS["create_opportunity"][0], "amount": raw})
    won = crm("close_opportunity_won", actorId=M, opportunityId="OPP-007", finalAmount=raw)
    stored = [crm.state["opportunities"][i]["amount"] for i in ("OPP-008", made["id"], won["id"])]
    assert stored == [cents, cents, cents]


def _weighted(opp: dict[str, Any]) -> float:
    exact = Decimal(str(opp["amount"])) * PROBABILITY[opp["stageId"]] / 100
    return float(exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))


def test_derived_figures_of_every_seed_deal_and_rep(crm: Caller) -> None:
    views = {v["id"]: v for v in crm("list_opportunities", limit=500)["results"]}
    for opp in SEED["opportunities"]:
        assert views[opp["id"]]["weightedAmount"] == _weighted(opp), opp["id"]
    users = {u["id"]: u for u in crm("list_users")["results"]}
    for user in SEED["users"]:
        won = sum(o["amount"] for o in SEED["opportunities"]
                  if o["ownerId"] == user["id"] and o["stageId"] == "STG-05")  # fmt: skip
        pct = None if not user["quota"] else float(
            (Decimal(won) * 100 / user["quota"]).quantize(Decimal("0.1"), rounding="ROUND_HALF_UP"))  # fmt: skip
        assert users[user["id"]]["quotaAttainmentPct"] == pct, user["id"]


def test_staleness_and_overdue_flags_at_their_exact_boundaries(crm: Caller) -> None:
    opp = crm.state["opportunities"]["OPP-008"]
    for entered, stale in (("2026-02-14", False), ("2026-02-13", True)):  # 30 and 31 days
        opp["stageEnteredOn"] = entered
        assert crm("get_opportunity", opportunityId="OPP-008")["isStale"] is stale
        ids = [v["id"] for v in crm("stale_opportunities")["results"]]
        assert ("OPP-008" in ids) is stale
    act = crm.state["activities"]["ACT-002"]
    for due, overdue in ((TODAY, False), ("2026-03-15", True)):
        act["dueDate"] = due
        assert crm("get_activity", activityId="ACT-002")["isOverdue"] is overdue


def test_the_default_page_is_fifty_rows(crm: Caller) -> None:
    for n in range(45):
        crm("log_activity", actorId=M, type="note", subject=f"n{n}", relatedType="account",
            relatedId="ACC-001")  # fmt: skip
    page = crm("list_activities")
    assert (page["total"], page["count"], len(page["results"])) == (60, 50, 50)
    assert crm("list_audit_log", limit=45)["count"] == 45


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("list_users", {"role": "manager"}, ["USR-001"]),
        ("list_users", {"role": "rep", "active": False}, ["USR-004"]),
        ("list_accounts", {"industry": "retail"}, ["ACC-005", "ACC-010"]),
        ("list_accounts", {"industry": "Retai"}, []),
        ("list_leads", {"source": "partner"}, ["LEAD-006", "LEAD-008"]),
        ("search_accounts", {"query": "rotterdam"}, ["ACC-001"]),
        ("search_contacts", {"query": "TAKEDA"}, ["CON-007"]),
        ("list_opportunities", {"status": "closed", "accountId": "ACC-009"}, ["OPP-015"]),
    ],
)
def test_filters_select_exactly_the_documented_rows(
    crm: Caller, tool: str, args: dict[str, Any], expected: list[str]
) -> None:
    assert [row["id"] for row in crm(tool, **args)["results"]] == expected


def test_get_opportunity_lists_its_activities_in_id_order(crm: Caller) -> None:
    for subject in ("b", "a"):
        crm("log_activity", actorId=M, type="call", subject=subject, relatedType="opportunity",
            relatedId="OPP-001")  # fmt: skip
    ids = [a["id"] for a in crm("get_opportunity", opportunityId="OPP-001")["activities"]]
    assert ids == ["ACT-001", "ACT-002", "ACT-016", "ACT-017"]


def test_lead_and_contact_rules(crm: Caller) -> None:
    crm.refused("qualify_lead", "invalid_state", actorId=M, leadId="LEAD-005")  # disqualified
    crm.refused("create_contact", "conflict", actorId=M, firstName="A", lastName="B",
                email="Anika.Rao@CalderHealth.example")  # fmt: skip
    crm.refused("update_contact", "conflict", actorId=M, contactId="CON-002",
                email="ANIKA.RAO@calderhealth.example")  # fmt: skip
    crm.refused("update_opportunity", "invalid_input", actorId=M, opportunityId="OPP-008",
                primaryContactId="CON-001")  # fmt: skip
    crm("qualify_lead", actorId=M, leadId="LEAD-008")  # owned by the deactivated USR-004
    converted = crm("convert_lead", actorId="USR-003", leadId="LEAD-008", amount=10,
                    expectedCloseDate=TODAY)  # fmt: skip
    deal = crm.state["opportunities"][converted["convertedOpportunityId"]]
    assert deal["ownerId"] == "USR-003"  # the lead's owner is gone: the actor owns the deal
    contact = crm.state["contacts"][converted["convertedContactId"]]
    assert contact["isPrimary"] is True  # a new account has no primary yet
    crm("qualify_lead", actorId=M, leadId="LEAD-007")
    onto = crm("convert_lead", actorId=M, leadId="LEAD-007", accountId="ACC-001",
               createOpportunity=False)  # fmt: skip
    assert crm.state["contacts"][onto["convertedContactId"]]["isPrimary"] is False
    assert crm.state["contacts"]["CON-001"]["isPrimary"] is True  # the old primary stays
