"""CRM tools: schemas, seed facts, derived figures, every tool's happy path and refusals."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from silo import Tool, ToolError

PROJECT = Path(__file__).resolve().parents[2]
CRM_DIR = PROJECT / "environments" / "crm"
NOW = "2026-03-16"
MANAGER = "USR-001"
DEPARTED = "USR-004"
COLLECTIONS = ("users", "accounts", "contacts", "leads", "opportunities", "activities", "stages")

# One valid call per mutating tool, made by the manager (USR-001), and the record it touches.
MUTATIONS: dict[str, tuple[dict[str, Any], str]] = {
    "create_account": ({"name": "Harbour Lights Ltd", "industry": "Retail"}, "ACC-012"),
    "update_account": ({"accountId": "ACC-005", "tier": "mid-market"}, "ACC-005"),
    "create_contact": (
        {
            "firstName": "Mia",
            "lastName": "Stone",
            "email": "mia@stone.example",
            "accountId": "ACC-005",
        },
        "CON-015",
    ),
    "update_contact": ({"contactId": "CON-006", "title": "Head of E-commerce"}, "CON-006"),
    "link_contact_to_account": ({"contactId": "CON-014", "accountId": "ACC-008"}, "CON-014"),
    "create_lead": (
        {
            "firstName": "Ola",
            "lastName": "Berg",
            "company": "Nordlys AS",
            "email": "ola@nordlys.example",
            "source": "web",
        },
        "LEAD-011",
    ),
    "update_lead": ({"leadId": "LEAD-001", "markContacted": True}, "LEAD-001"),
    "qualify_lead": ({"leadId": "LEAD-002"}, "LEAD-002"),
    "disqualify_lead": ({"leadId": "LEAD-010", "reason": "Student project."}, "LEAD-010"),
    "convert_lead": (
        {"leadId": "LEAD-004", "amount": 140000, "expectedCloseDate": "2026-06-30"},
        "LEAD-004",
    ),
    "create_opportunity": (
        {
            "accountId": "ACC-005",
            "name": "Saltmarsh tills",
            "amount": 30000,
            "expectedCloseDate": "2026-09-30",
        },
        "OPP-017",
    ),
    "update_opportunity": ({"opportunityId": "OPP-008", "amount": 48000}, "OPP-008"),
    "set_opportunity_stage": ({"opportunityId": "OPP-008", "stageId": "STG-03"}, "OPP-008"),
    "advance_opportunity_stage": ({"opportunityId": "OPP-008"}, "OPP-008"),
    "close_opportunity_won": ({"opportunityId": "OPP-007", "finalAmount": 119500}, "OPP-007"),
    "close_opportunity_lost": ({"opportunityId": "OPP-008", "reason": "Chose a rival."}, "OPP-008"),
    "reassign_opportunity": ({"opportunityId": "OPP-005", "newOwnerId": "USR-003"}, "OPP-005"),
    "log_activity": (
        {"type": "call", "subject": "Check-in", "relatedType": "account", "relatedId": "ACC-005"},
        "ACT-016",
    ),
    "schedule_followup": (
        {
            "type": "task",
            "subject": "Send pricing",
            "relatedType": "lead",
            "relatedId": "LEAD-003",
            "dueDate": "2026-03-20",
        },
        "ACT-016",
    ),
    "complete_activity": ({"activityId": "ACT-002"}, "ACT-002"),
}

# One valid call per read-only tool.
READS: dict[str, dict[str, Any]] = {
    "get_current_date": {},
    "list_users": {"role": "rep"},
    "get_user": {"userId": "USR-002"},
    "list_accounts": {"tier": "enterprise"},
    "search_accounts": {"query": "tide"},
    "get_account": {"accountId": "ACC-003"},
    "list_contacts": {"accountId": "ACC-001"},
    "search_contacts": {"query": "webb"},
    "get_contact": {"contactId": "CON-014"},
    "list_leads": {"status": "qualified"},
    "search_leads": {"query": "fjord"},
    "get_lead": {"leadId": "LEAD-004"},
    "list_stages": {},
    "list_opportunities": {"status": "open"},
    "search_opportunities": {"query": "kestrel"},
    "get_opportunity": {"opportunityId": "OPP-007"},
    "list_activities": {"status": "open"},
    "get_activity": {"activityId": "ACT-004"},
    "pipeline_summary": {},
    "forecast_report": {"includeClosedWon": True},
    "rep_performance": {},
    "stale_opportunities": {},
    "list_audit_log": {},
}


# --- the environment's shape ------------------------------------------------------------------


def test_validation_counts(crm_env: Any, crm_tools: Any) -> None:
    assert len(list((CRM_DIR / "data").glob("*.json"))) == 9
    assert len(crm_env.tasks) == 9
    assert len(crm_tools) >= 42
    assert len(crm_env.verifiers) == 9
    assert set(crm_tools) == set(MUTATIONS) | set(READS)


def test_manifest() -> None:
    manifest = json.loads((CRM_DIR / "silo.environment.json").read_text())
    assert manifest == {
        "name": "crm",
        "template": "crm",
        "templateVersion": "0.1.0",
        "entrypoint": "./env.py",
        "tools": [],
    }


def _object_schemas(schema: Any, path: str = "$"):
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            yield path, schema
        for key, value in schema.items():
            yield from _object_schemas(value, f"{path}.{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from _object_schemas(value, f"{path}[{index}]")


@pytest.mark.parametrize("name", sorted(set(MUTATIONS) | set(READS)))
def test_schema_is_valid_and_strict(crm_tools: Any, name: str) -> None:
    tool = crm_tools[name]
    jsonschema.Draft202012Validator.check_schema(tool.input_schema)
    assert tool.description.strip()
    objects = list(_object_schemas(tool.input_schema))
    assert objects and objects[0][0] == "$"
    for path, schema in objects:
        assert schema["additionalProperties"] is False, path
        assert isinstance(schema["required"], list), path
        assert set(schema["required"]) <= set(schema["properties"]), path
        for prop, sub in schema["properties"].items():
            assert isinstance(sub.get("description"), str) and sub["description"].strip(), (
                f"{name}.{prop} has no description"
            )


def test_read_only_flags(crm_tools: Any) -> None:
    assert {n for n, t in crm_tools.items() if t.read_only} == set(READS)


def test_every_mutating_tool_takes_an_actor(crm_tools: Any) -> None:
    for name in MUTATIONS:
        assert "actorId" in crm_tools[name].input_schema["required"], name


# --- the seed world -----------------------------------------------------------------------------


def _plain_json_only(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_json_only(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain_json_only(v) for v in value)
    return value is None or type(value) in (str, int, float, bool)


def test_seed_world(world: Any) -> None:
    assert world["now"] == NOW
    assert _plain_json_only(world)
    assert world["auditLog"] == []
    assert world["sequences"] == {"ACC": 11, "CON": 14, "LEAD": 10, "OPP": 16, "ACT": 15, "AUD": 0}
    counts = {name: len(world[name]) for name in COLLECTIONS}
    assert counts == {
        "users": 6,
        "accounts": 11,
        "contacts": 14,
        "leads": 10,
        "opportunities": 16,
        "activities": 15,
        "stages": 6,
    }
    for name, prefix in (
        ("accounts", "ACC"),
        ("contacts", "CON"),
        ("leads", "LEAD"),
        ("opportunities", "OPP"),
        ("activities", "ACT"),
    ):
        assert max(int(i.split("-")[1]) for i in world[name]) == world["sequences"][prefix]
    users = world["users"]
    assert users["USR-001"]["role"] == "manager"
    assert [users[f"USR-00{i}"]["name"] for i in range(2, 7)] == [
        "Daniel Reyes",
        "Priya Nair",
        "Tomas Bergstrom",
        "Lena Fischer",
        "Kofi Mensah",
    ]
    assert [u["id"] for u in users.values() if not u["active"]] == [DEPARTED]
    assert all(u["quota"] > 0 for u in users.values() if u["role"] == "rep")
    stages = sorted(world["stages"].values(), key=lambda s: s["order"])
    assert [(s["name"], s["probability"], s["isClosed"]) for s in stages] == [
        ("Prospecting", 10, False),
        ("Discovery", 25, False),
        ("Proposal", 50, False),
        ("Negotiation", 75, False),
        ("Closed Won", 100, True),
        ("Closed Lost", 0, True),
    ]
    assert "Fjord" not in json.dumps(world["accounts"])
    assert world["leads"]["LEAD-004"]["status"] == "qualified"


def test_create_state_is_fresh_every_call(crm_env: Any) -> None:
    one, two = crm_env.create_state(), crm_env.create_state()
    one["opportunities"]["OPP-001"]["amount"] = 1
    one["auditLog"].append({"id": "AUD-0001"})
    assert two["opportunities"]["OPP-001"]["amount"] == 120000
    assert two["auditLog"] == [] and crm_env.create_state()["auditLog"] == []


# --- derived figures ----------------------------------------------------------------------------


def test_weighted_open_pipeline_is_507500(crm: Any) -> None:
    summary = crm("pipeline_summary")
    assert summary["totals"] == {"count": 9, "amount": 1061000, "weightedAmount": 507500}
    assert [s["stageName"] for s in summary["stages"]] == [
        "Prospecting",
        "Discovery",
        "Proposal",
        "Negotiation",
    ]
    assert sum(s["weightedAmount"] for s in summary["stages"]) == 507500
    assert crm("forecast_report")["openWeighted"] == 507500
    listed = crm("list_opportunities", status="open")["results"]
    assert sum(o["weightedAmount"] for o in listed) == 507500
    assert crm("pipeline_summary", ownerId="USR-004")["totals"]["weightedAmount"] == 112500


def test_opportunity_derived_fields(crm: Any) -> None:
    opp = crm("get_opportunity", opportunityId="OPP-005")
    assert opp["status"] == "open" and opp["stageName"] == "Proposal"
    assert opp["probability"] == 50 and opp["weightedAmount"] == 90000
    assert opp["daysInStage"] == 63 and opp["isStale"] and opp["isPastDue"]
    assert [a["id"] for a in opp["activities"]] == ["ACT-004"]
    fresh = crm("get_opportunity", opportunityId="OPP-007")
    assert fresh["daysInStage"] == 24 and not fresh["isStale"] and not fresh["isPastDue"]
    won = crm("get_opportunity", opportunityId="OPP-010")
    assert won["status"] == "won" and won["weightedAmount"] == 90000 and not won["isStale"]
    assert "status" not in crm.state["opportunities"]["OPP-005"]  # derived, never stored


def test_stale_opportunities(crm: Any) -> None:
    report = crm("stale_opportunities")
    assert [o["id"] for o in report["results"]] == ["OPP-005", "OPP-006", "OPP-009"]
    assert report["countByOwner"] == [
        {"ownerId": "USR-004", "ownerName": "Tomas Bergstrom", "count": 2},
        {"ownerId": "USR-006", "ownerName": "Kofi Mensah", "count": 1},
    ]
    assert crm("stale_opportunities", thresholdDays=45)["total"] == 2
    assert crm("stale_opportunities", thresholdDays=0, ownerId="USR-005")["total"] == 2
    stale = crm("list_opportunities", staleOnly=True)
    assert [o["id"] for o in stale["results"]] == ["OPP-005", "OPP-006", "OPP-009"]
    assert crm("list_opportunities", ownerId="USR-004", status="open")["total"] == 2


def test_rep_performance_and_attainment(crm: Any) -> None:
    reps = {r["name"]: r for r in crm("rep_performance")["reps"]}
    assert {n: r["attainmentPct"] for n, r in reps.items()} == {
        "Daniel Reyes": 36.0,
        "Priya Nair": 70.0,
        "Tomas Bergstrom": 25.0,
        "Lena Fischer": 52.8,
        "Kofi Mensah": 60.0,
    }
    assert reps["Tomas Bergstrom"]["active"] is False and reps["Tomas Bergstrom"]["staleDeals"] == 2
    active = crm("rep_performance", activeOnly=True)["reps"]
    assert "Tomas Bergstrom" not in {r["name"] for r in active}
    assert min(active, key=lambda r: r["attainmentPct"])["name"] == "Daniel Reyes"
    user = crm("get_user", userId="USR-002")
    assert user["closedWon"] == 90000 and user["quotaAttainmentPct"] == 36.0
    assert user["openPipeline"] == {"count": 2, "amount": 200000, "weightedAmount": 110000}
    assert crm("get_user", userId=MANAGER)["quotaAttainmentPct"] is None


def test_forecast_report_filters(crm: Any) -> None:
    april = crm("forecast_report", closingOnOrBefore="2026-04-15")
    assert {d["id"] for d in april["deals"]} == {"OPP-001", "OPP-005", "OPP-007"}
    assert april["openWeighted"] == 90000 + 90000 + 94500
    with_won = crm("forecast_report", ownerId="USR-002", includeClosedWon=True)
    assert with_won["closedWon"] == 90000 and with_won["forecast"] == 110000 + 90000
    crm.refused("forecast_report", "invalid_input", closingOnOrBefore="2026-02-30")


def test_clock(crm: Any) -> None:
    assert crm("get_current_date") == {"today": NOW}


# --- pagination and search ----------------------------------------------------------------------


def test_pagination(crm: Any) -> None:
    full = crm("list_opportunities")
    assert (full["total"], full["count"], full["offset"]) == (16, 16, 0)
    window = crm("list_opportunities", limit=5, offset=10)
    assert window["total"] == 16 and window["count"] == 5 and window["offset"] == 10
    assert [o["id"] for o in window["results"]] == [f"OPP-0{i}" for i in range(11, 16)]
    beyond = crm("list_opportunities", offset=40)
    assert beyond["count"] == 0 and beyond["results"] == [] and beyond["total"] == 16
    assert crm("list_stages", limit=2)["count"] == 2


@pytest.mark.parametrize(
    "name", sorted(n for n, a in READS.items() if n.startswith(("list_", "search_")))
)
def test_paging_bounds_are_in_the_schema(crm: Any, name: str) -> None:
    base = {"query": "a"} if name.startswith("search_") else {}
    assert crm.schema_accepts(name, {**base, "limit": 1, "offset": 0})
    assert crm.schema_accepts(name, {**base, "limit": 500})
    for bad in ({"limit": 0}, {"limit": 501}, {"offset": -1}, {"limit": 2.5}, {"bogus": 1}):
        assert not crm.schema_accepts(name, {**base, **bad}), bad


def test_search_is_case_insensitive_substring(crm: Any) -> None:
    assert [a["id"] for a in crm("search_accounts", query="PEAK")["results"]] == ["ACC-011"]
    assert [c["id"] for c in crm("search_contacts", query="marcus web")["results"]] == ["CON-001"]
    assert [lead["id"] for lead in crm("search_leads", query="MaRiTiMe")["results"]] == ["LEAD-004"]
    assert [o["id"] for o in crm("search_opportunities", query="tidewell")["results"]] == [
        "OPP-007",
        "OPP-013",
    ]
    assert crm("search_accounts", query="no such company")["total"] == 0
    crm.refused("search_leads", "invalid_input", query="   ")


def test_list_filters(crm: Any) -> None:
    assert crm("list_users", active=False)["total"] == 1
    assert crm("list_users", role="manager")["results"][0]["id"] == MANAGER
    assert crm("list_accounts", industry="retail")["total"] == 2
    assert crm("list_accounts", ownerId="USR-004")["total"] == 2
    assert crm("list_contacts", primaryOnly=True)["total"] == 11
    assert crm("list_leads", ownerId="USR-004")["total"] == 2
    assert crm("list_leads", source="web")["total"] == 3
    assert crm("list_opportunities", status="closed")["total"] == 7
    assert crm("list_opportunities", status="lost")["total"] == 2
    assert crm("list_opportunities", stageId="STG-03")["total"] == 3
    assert crm("list_activities", relatedId="OPP-007")["total"] == 2
    overdue = [a["id"] for a in crm("list_activities", status="open")["results"] if a["isOverdue"]]
    assert overdue == ["ACT-004", "ACT-009"]


@pytest.mark.parametrize(
    "name,args",
    [
        ("get_user", {"userId": "USR-099"}),
        ("get_account", {"accountId": "ACC-099"}),
        ("get_contact", {"contactId": "CON-099"}),
        ("get_lead", {"leadId": "LEAD-099"}),
        ("get_opportunity", {"opportunityId": "OPP-099"}),
        ("get_activity", {"activityId": "ACT-099"}),
    ],
)
def test_unknown_ids_are_not_found(crm: Any, name: str, args: dict[str, Any]) -> None:
    crm.refused(name, "not_found", **args)


@pytest.mark.parametrize("name", sorted(READS))
def test_read_only_tools_leave_the_world_alone(crm: Any, name: str) -> None:
    before = copy.deepcopy(crm.state)
    crm(name, **READS[name])
    assert crm.state == before


def _containers(value: Any) -> list[Any]:
    """Every dict and list inside ``value`` (itself included)."""
    found: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            found.append(item)
            stack.extend(item)
    return found


@pytest.mark.parametrize("name", sorted(set(MUTATIONS) | set(READS)))
def test_outputs_are_detached_from_the_world(crm_tools: Any, world: Any, name: str) -> None:
    args = {"actorId": MANAGER, **MUTATIONS[name][0]} if name in MUTATIONS else READS[name]
    output = crm_tools[name].run(world, copy.deepcopy(args))
    live = {id(item) for item in _containers(world)}
    assert not [item for item in _containers(output) if id(item) in live]


# --- every mutation: audit, actor checks --------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_mutation_appends_exactly_one_audit_row(crm: Any, name: str) -> None:
    args, entity = MUTATIONS[name]
    crm(name, actorId=MANAGER, **args)
    assert crm.state["sequences"]["AUD"] == 1
    (row,) = crm.state["auditLog"]
    assert row["id"] == "AUD-0001" and row["at"] == NOW and row["actorId"] == MANAGER
    assert row["entityId"] == entity and row["action"]
    assert crm("list_audit_log", entityId=entity)["results"] == [row]


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_deactivated_actor_is_refused(crm: Any, name: str) -> None:
    crm.refused(name, "not_allowed", actorId=DEPARTED, **MUTATIONS[name][0])


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_unknown_actor_is_refused(crm: Any, name: str) -> None:
    crm.refused(name, "not_found", actorId="USR-099", **MUTATIONS[name][0])


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_actor_is_required_by_the_schema(crm: Any, name: str) -> None:
    assert not crm.schema_accepts(name, MUTATIONS[name][0])
    assert crm.schema_accepts(name, {"actorId": MANAGER, **MUTATIONS[name][0]})


def test_audit_ids_count_up(crm: Any) -> None:
    crm("qualify_lead", actorId="USR-003", leadId="LEAD-002")
    crm(
        "log_activity",
        actorId="USR-003",
        type="note",
        subject="Qualified",
        relatedType="lead",
        relatedId="LEAD-002",
    )
    assert [r["id"] for r in crm.state["auditLog"]] == ["AUD-0001", "AUD-0002"]
    assert crm("list_audit_log", actorId="USR-003", limit=1)["total"] == 2


# --- accounts -----------------------------------------------------------------------------------


def test_accounts(crm: Any) -> None:
    made = crm("create_account", actorId="USR-006", name="Ironbridge Metals", tier="smb")
    assert made["id"] == "ACC-012" and made["ownerId"] == "USR-006" and made["createdOn"] == NOW
    crm.refused("create_account", "conflict", actorId="USR-006", name="  ironbridge METALS ")
    crm.refused("create_account", "not_allowed", actorId=MANAGER, name="X Co", ownerId=DEPARTED)
    crm.refused("create_account", "not_found", actorId=MANAGER, name="X Co", ownerId="USR-042")
    crm.refused("create_account", "invalid_input", actorId=MANAGER, name="   ")
    changed = crm("update_account", actorId=MANAGER, accountId="ACC-003", ownerId="USR-003")
    assert changed["ownerId"] == "USR-003"
    assert crm.state["auditLog"][-1]["details"] == {"ownerId": {"from": "USR-004", "to": "USR-003"}}
    crm.refused("update_account", "invalid_input", actorId=MANAGER, accountId="ACC-003")
    crm.refused(
        "update_account", "conflict", actorId=MANAGER, accountId="ACC-003", ownerId="USR-003"
    )
    crm.refused("update_account", "not_found", actorId=MANAGER, accountId="ACC-404", tier="smb")
    detail = crm("get_account", accountId="ACC-010")
    assert [c["id"] for c in detail["contacts"]] == ["CON-011", "CON-012"]
    assert [o["id"] for o in detail["opportunities"]] == ["OPP-007", "OPP-013"]


# --- contacts -----------------------------------------------------------------------------------


def test_contacts(crm: Any) -> None:
    made = crm(
        "create_contact",
        actorId="USR-005",
        firstName="Ana",
        lastName="Lis",
        email="ana@tidewellgrocers.example",
        accountId="ACC-010",
        isPrimary=True,
    )
    assert made["isPrimary"] and made["accountName"] == "Tidewell Grocers"
    assert crm.state["contacts"]["CON-011"]["isPrimary"] is False
    assert len(crm.state["auditLog"]) == 1
    crm.refused(
        "create_contact",
        "conflict",
        actorId="USR-005",
        firstName="A",
        lastName="B",
        email="ANA@tidewellgrocers.example",
    )
    crm.refused(
        "create_contact",
        "invalid_input",
        actorId="USR-005",
        firstName="A",
        lastName="B",
        email="ab@x.example",
        isPrimary=True,
    )
    crm.refused(
        "create_contact",
        "not_found",
        actorId="USR-005",
        firstName="A",
        lastName="B",
        email="ab@x.example",
        accountId="ACC-077",
    )
    assert not crm.schema_accepts(
        "create_contact",
        {"actorId": MANAGER, "firstName": "A", "lastName": "B", "email": "not-an-email"},
    )
    crm.refused(
        "update_contact",
        "conflict",
        actorId=MANAGER,
        contactId="CON-002",
        email="m.webb@northwindfreight.example",
    )
    assert (
        crm("update_contact", actorId=MANAGER, contactId="CON-002", phone="+31 10 555 0000")[
            "phone"
        ]
        == "+31 10 555 0000"
    )
    crm.refused("update_contact", "invalid_input", actorId=MANAGER, contactId="CON-002")


def test_link_contact_to_account(crm: Any) -> None:
    linked = crm(
        "link_contact_to_account",
        actorId="USR-006",
        contactId="CON-014",
        accountId="ACC-008",
        makePrimary=True,
    )
    assert linked["accountId"] == "ACC-008" and linked["isPrimary"]
    assert crm.state["contacts"]["CON-009"]["isPrimary"] is False
    crm.refused(
        "link_contact_to_account",
        "conflict",
        actorId="USR-006",
        contactId="CON-014",
        accountId="ACC-008",
    )
    moved = crm(
        "link_contact_to_account", actorId="USR-006", contactId="CON-014", accountId="ACC-006"
    )
    assert moved["accountId"] == "ACC-006" and moved["isPrimary"] is False
    crm.refused(
        "link_contact_to_account",
        "not_found",
        actorId="USR-006",
        contactId="CON-014",
        accountId="ACC-066",
    )


# --- leads --------------------------------------------------------------------------------------


def test_lead_lifecycle(crm: Any) -> None:
    lead = crm(
        "create_lead",
        actorId="USR-003",
        firstName="Ola",
        lastName="Berg",
        company="Nordlys AS",
        email="ola@nordlys.example",
        source="event",
    )
    assert lead["id"] == "LEAD-011" and lead["status"] == "new" and lead["ownerId"] == "USR-003"
    touched = crm("update_lead", actorId="USR-003", leadId="LEAD-011", markContacted=True)
    assert touched["status"] == "working" and touched["lastContactedOn"] == NOW
    assert crm("qualify_lead", actorId="USR-003", leadId="LEAD-011")["status"] == "qualified"
    crm.refused("qualify_lead", "invalid_state", actorId="USR-003", leadId="LEAD-011")
    gone = crm("disqualify_lead", actorId="USR-003", leadId="LEAD-011", reason="No budget")
    assert gone["status"] == "disqualified" and gone["disqualifyReason"] == "No budget"
    crm.refused(
        "disqualify_lead", "invalid_state", actorId="USR-003", leadId="LEAD-011", reason="again"
    )
    crm.refused(
        "disqualify_lead",
        "invalid_state",
        actorId="USR-003",
        leadId="LEAD-006",
        reason="converted already",
    )
    crm.refused("update_lead", "invalid_state", actorId="USR-003", leadId="LEAD-006", notes="x")
    crm.refused("update_lead", "invalid_input", actorId="USR-003", leadId="LEAD-001")
    crm.refused(
        "update_lead", "not_allowed", actorId="USR-003", leadId="LEAD-008", ownerId=DEPARTED
    )
    crm.refused(
        "create_lead",
        "not_allowed",
        actorId="USR-003",
        firstName="A",
        lastName="B",
        company="C",
        email="a@c.example",
        source="web",
        ownerId=DEPARTED,
    )
    assert not crm.schema_accepts(
        "create_lead",
        {
            "actorId": "USR-003",
            "firstName": "A",
            "lastName": "B",
            "company": "C",
            "email": "a@c.example",
            "source": "tv",
        },
    )
    assert crm("get_lead", leadId="LEAD-004")["ageDays"] == 35


def test_convert_lead_to_new_account(crm: Any) -> None:
    out = crm(
        "convert_lead",
        actorId="USR-002",
        leadId="LEAD-004",
        amount=140000,
        expectedCloseDate="2026-06-30",
    )
    assert out == {
        "lead": out["lead"],
        "convertedAccountId": "ACC-012",
        "convertedContactId": "CON-015",
        "convertedOpportunityId": "OPP-017",
    }
    state = crm.state
    account = state["accounts"]["ACC-012"]
    contact = state["contacts"]["CON-015"]
    opp = state["opportunities"]["OPP-017"]
    assert account["name"] == "Fjord Maritime Group" and account["ownerId"] == "USR-002"
    assert contact["accountId"] == "ACC-012" and contact["isPrimary"]
    assert (contact["firstName"], contact["lastName"]) == ("Ingrid", "Halvorsen")
    assert opp["accountId"] == "ACC-012" and opp["sourceLeadId"] == "LEAD-004"
    assert opp["amount"] == 140000 and opp["expectedCloseDate"] == "2026-06-30"
    assert opp["stageId"] == "STG-01" and opp["primaryContactId"] == "CON-015"
    assert state["leads"]["LEAD-004"]["status"] == "converted"
    assert len(state["auditLog"]) == 1 and state["auditLog"][0]["action"] == "lead.converted"
    crm.refused(
        "convert_lead",
        "invalid_state",
        actorId="USR-002",
        leadId="LEAD-004",
        amount=1,
        expectedCloseDate="2026-06-30",
    )


def test_convert_lead_refusals_and_variants(crm: Any) -> None:
    crm.refused(
        "convert_lead",
        "invalid_state",
        actorId="USR-002",
        leadId="LEAD-007",
        amount=1,
        expectedCloseDate="2026-06-30",
    )
    crm("qualify_lead", actorId="USR-002", leadId="LEAD-007")
    # Northwind is already a customer: converting without accountId would duplicate it.
    crm.refused(
        "convert_lead", "conflict", actorId="USR-002", leadId="LEAD-007", createOpportunity=False
    )
    crm.refused("convert_lead", "invalid_input", actorId="USR-002", leadId="LEAD-004")
    crm.refused(
        "convert_lead",
        "invalid_input",
        actorId="USR-002",
        leadId="LEAD-004",
        amount=5,
        expectedCloseDate="2026-01-01",
    )
    crm.refused(
        "convert_lead",
        "not_found",
        actorId="USR-002",
        leadId="LEAD-004",
        accountId="ACC-321",
        createOpportunity=False,
    )
    out = crm(
        "convert_lead",
        actorId="USR-002",
        leadId="LEAD-007",
        accountId="ACC-001",
        createOpportunity=False,
    )
    assert out["convertedAccountId"] == "ACC-001" and out["convertedOpportunityId"] is None
    contact = crm.state["contacts"][out["convertedContactId"]]
    assert contact["accountId"] == "ACC-001" and contact["isPrimary"] is False
    assert len(crm.state["accounts"]) == 11


# --- opportunities ------------------------------------------------------------------------------


def test_create_and_update_opportunity(crm: Any) -> None:
    made = crm(
        "create_opportunity",
        actorId="USR-005",
        accountId="ACC-005",
        name="Tills",
        amount=30000,
        expectedCloseDate="2026-09-30",
        stageId="STG-02",
        primaryContactId="CON-006",
    )
    assert made["id"] == "OPP-017" and made["stageName"] == "Discovery"
    assert made["ownerId"] == "USR-005" and made["daysInStage"] == 0
    base = {"actorId": "USR-005", "accountId": "ACC-005", "name": "X", "amount": 1}
    crm.refused("create_opportunity", "invalid_input", **base, expectedCloseDate="2026-03-15")
    crm.refused("create_opportunity", "invalid_input", **base, expectedCloseDate="2026-13-01")
    crm.refused(
        "create_opportunity",
        "invalid_input",
        **base,
        expectedCloseDate="2026-09-30",
        stageId="STG-05",
    )
    crm.refused(
        "create_opportunity", "not_found", **base, expectedCloseDate="2026-09-30", stageId="STG-09"
    )
    crm.refused(
        "create_opportunity",
        "invalid_input",
        **base,
        expectedCloseDate="2026-09-30",
        primaryContactId="CON-001",
    )
    crm.refused(
        "create_opportunity",
        "not_allowed",
        **base,
        expectedCloseDate="2026-09-30",
        ownerId=DEPARTED,
    )
    assert not crm.schema_accepts(
        "create_opportunity", {**base, "amount": 0, "expectedCloseDate": "2026-09-30"}
    )
    updated = crm(
        "update_opportunity",
        actorId="USR-005",
        opportunityId="OPP-017",
        amount=32000,
        expectedCloseDate="2026-10-15",
    )
    assert updated["amount"] == 32000 and updated["expectedCloseDate"] == "2026-10-15"
    crm.refused(
        "update_opportunity", "invalid_state", actorId="USR-005", opportunityId="OPP-013", amount=1
    )
    crm.refused("update_opportunity", "invalid_input", actorId="USR-005", opportunityId="OPP-017")
    crm.refused(
        "update_opportunity", "conflict", actorId="USR-005", opportunityId="OPP-017", amount=32000
    )


def test_stage_moves(crm: Any) -> None:
    moved = crm(
        "set_opportunity_stage", actorId="USR-006", opportunityId="OPP-009", stageId="STG-04"
    )
    assert moved["stageName"] == "Negotiation" and moved["daysInStage"] == 0
    assert not moved["isStale"]
    crm.refused(
        "set_opportunity_stage",
        "conflict",
        actorId="USR-006",
        opportunityId="OPP-009",
        stageId="STG-04",
    )
    crm.refused(
        "set_opportunity_stage",
        "invalid_input",
        actorId="USR-006",
        opportunityId="OPP-009",
        stageId="STG-05",
    )
    crm.refused(
        "set_opportunity_stage",
        "invalid_state",
        actorId="USR-006",
        opportunityId="OPP-014",
        stageId="STG-02",
    )
    crm.refused(
        "advance_opportunity_stage", "invalid_state", actorId="USR-006", opportunityId="OPP-009"
    )
    back = crm(
        "set_opportunity_stage", actorId="USR-006", opportunityId="OPP-009", stageId="STG-01"
    )
    assert back["stageName"] == "Prospecting"
    names = [
        crm("advance_opportunity_stage", actorId="USR-006", opportunityId="OPP-009")["stageName"]
        for _ in range(3)
    ]
    assert names == ["Discovery", "Proposal", "Negotiation"]
    assert len(crm.state["auditLog"]) == 5


def test_close_won_and_lost(crm: Any) -> None:
    won = crm(
        "close_opportunity_won", actorId="USR-005", opportunityId="OPP-007", finalAmount=119500
    )
    assert won["status"] == "won" and won["amount"] == 119500 and won["closedDate"] == NOW
    assert crm.state["auditLog"][-1]["details"]["amount"] == {"from": 126000, "to": 119500}
    crm.refused(
        "close_opportunity_won", "invalid_state", actorId="USR-005", opportunityId="OPP-007"
    )
    crm.refused(
        "close_opportunity_lost",
        "invalid_state",
        actorId="USR-005",
        opportunityId="OPP-007",
        reason="changed our mind",
    )
    kept = crm("close_opportunity_won", actorId="USR-002", opportunityId="OPP-001")
    assert kept["amount"] == 120000
    lost = crm(
        "close_opportunity_lost",
        actorId="USR-005",
        opportunityId="OPP-008",
        reason="Went with a rival",
    )
    assert lost["status"] == "lost" and lost["lossReason"] == "Went with a rival"
    assert lost["weightedAmount"] == 0
    assert not crm.schema_accepts(
        "close_opportunity_lost", {"actorId": "USR-005", "opportunityId": "OPP-002"}
    )
    crm.refused(
        "close_opportunity_lost",
        "invalid_input",
        actorId="USR-002",
        opportunityId="OPP-002",
        reason="    ",
    )
    assert crm("get_user", userId="USR-005")["closedWon"] == 132000 + 119500


def test_reassign_opportunity(crm: Any) -> None:
    before = copy.deepcopy(crm.state)
    moved = crm(
        "reassign_opportunity", actorId=MANAGER, opportunityId="OPP-005", newOwnerId="USR-003"
    )
    assert moved["ownerId"] == "USR-003" and moved["ownerName"] == "Priya Nair"
    after = crm.state
    changed = {key for key in after if after[key] != before[key]}
    assert changed == {"opportunities", "auditLog", "sequences"}
    assert {
        k for k in after["opportunities"] if after["opportunities"][k] != before["opportunities"][k]
    } == {"OPP-005"}
    assert after["opportunities"]["OPP-005"]["stageEnteredOn"] == "2026-01-12"
    assert after["auditLog"][0]["details"] == {"fromOwnerId": "USR-004", "toOwnerId": "USR-003"}
    crm.refused(
        "reassign_opportunity",
        "conflict",
        actorId=MANAGER,
        opportunityId="OPP-005",
        newOwnerId="USR-003",
    )
    crm.refused(
        "reassign_opportunity",
        "not_allowed",
        actorId=MANAGER,
        opportunityId="OPP-006",
        newOwnerId=DEPARTED,
    )
    crm.refused(
        "reassign_opportunity",
        "not_found",
        actorId=MANAGER,
        opportunityId="OPP-006",
        newOwnerId="USR-077",
    )
    crm.refused(
        "reassign_opportunity",
        "invalid_state",
        actorId=MANAGER,
        opportunityId="OPP-012",
        newOwnerId="USR-003",
    )
    crm.refused(
        "reassign_opportunity",
        "not_allowed",
        actorId="USR-002",
        opportunityId="OPP-006",
        newOwnerId="USR-002",
    )
    own = crm(
        "reassign_opportunity", actorId="USR-002", opportunityId="OPP-002", newOwnerId="USR-005"
    )
    assert own["ownerId"] == "USR-005"


# --- activities ---------------------------------------------------------------------------------


def test_activities(crm: Any) -> None:
    logged = crm(
        "log_activity",
        actorId="USR-005",
        type="note",
        subject="Contract signed",
        relatedType="opportunity",
        relatedId="OPP-007",
    )
    assert logged["id"] == "ACT-016" and logged["status"] == "done"
    assert logged["completedOn"] == NOW == logged["dueDate"] and logged["ownerId"] == "USR-005"
    planned = crm(
        "schedule_followup",
        actorId=MANAGER,
        type="call",
        subject="Kick-off",
        relatedType="account",
        relatedId="ACC-003",
        dueDate="2026-03-18",
        ownerId="USR-003",
    )
    assert planned["status"] == "open" and planned["ownerId"] == "USR-003"
    assert not planned["isOverdue"]
    crm.refused(
        "schedule_followup",
        "invalid_input",
        actorId=MANAGER,
        type="call",
        subject="Late",
        relatedType="account",
        relatedId="ACC-003",
        dueDate="2026-03-01",
    )
    crm.refused(
        "schedule_followup",
        "not_allowed",
        actorId=MANAGER,
        type="call",
        subject="X",
        relatedType="account",
        relatedId="ACC-003",
        dueDate="2026-03-18",
        ownerId=DEPARTED,
    )
    crm.refused(
        "log_activity",
        "not_found",
        actorId=MANAGER,
        type="call",
        subject="X",
        relatedType="lead",
        relatedId="OPP-001",
    )
    crm.refused(
        "log_activity",
        "invalid_input",
        actorId=MANAGER,
        type="call",
        subject="  ",
        relatedType="lead",
        relatedId="LEAD-001",
    )
    done = crm(
        "complete_activity",
        actorId=MANAGER,
        activityId="ACT-004",
        completedOn="2026-03-10",
        outcome="Handed over to Priya.",
    )
    assert done["status"] == "done" and done["completedOn"] == "2026-03-10"
    assert done["notes"].endswith("Handed over to Priya.")
    crm.refused("complete_activity", "invalid_state", actorId=MANAGER, activityId="ACT-004")
    crm.refused(
        "complete_activity",
        "invalid_input",
        actorId=MANAGER,
        activityId="ACT-009",
        completedOn="2026-03-17",
    )
    crm.refused(
        "complete_activity",
        "invalid_input",
        actorId=MANAGER,
        activityId="ACT-009",
        completedOn="2026-02-01",
    )
    crm.refused(
        "complete_activity",
        "invalid_input",
        actorId=MANAGER,
        activityId="ACT-009",
        completedOn="2026-02-31",
    )
    assert len(crm.state["auditLog"]) == 3


# --- fuzzing: no schema-valid input may crash a tool --------------------------------------------


def _value(schema: dict[str, Any], rng: random.Random, ids: list[str]) -> Any:
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema["type"]
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "integer":
        return rng.randint(schema["minimum"], min(schema["maximum"], schema["minimum"] + 600))
    if kind == "number":
        return rng.choice([0.01, 1, 119500, 1e9, rng.uniform(0, 1e6) + 0.005])
    pattern = schema.get("pattern", "")
    if pattern.startswith("^\\d{4}"):
        return f"{rng.randint(1, 9999):04d}-{rng.randint(0, 19):02d}-{rng.randint(0, 39):02d}"
    if "@" in pattern:
        return rng.choice(["a@b.co", "C.Reid@TidewellGrocers.example", "x y@z.q"]).replace(" ", "")
    prefix = re.match(r"\^([A-Z]+)-", pattern)
    if prefix:
        matching = [i for i in ids if i.startswith(prefix.group(1) + "-")]
        if matching and rng.random() < 0.7:
            return rng.choice(matching)
        return f"{prefix.group(1)}-{rng.randint(0, 999999):0{rng.randint(2, 6)}d}"
    low, high = schema.get("minLength", 0), min(schema.get("maxLength", 40), 40)
    alphabet = "ab Z-é😀\t0" if rng.random() < 0.3 else "abcdef"
    text = "".join(rng.choice(alphabet) for _ in range(rng.randint(low, max(low, high))))
    return rng.choice([text, rng.choice(ids) if ids else text])[: schema.get("maxLength", 40)]


def _arguments(schema: dict[str, Any], rng: random.Random, ids: list[str]) -> dict[str, Any]:
    props = schema["properties"]
    chosen = [n for n in props if n in schema["required"] or rng.random() < 0.5]
    return {name: _value(props[name], rng, ids) for name in chosen}


def test_fuzz_no_tool_crashes(crm_env: Any, crm_tools: Any) -> None:
    for seed in range(200):
        rng = random.Random(seed)
        state = crm_env.create_state()
        ids = [
            *(key for name in COLLECTIONS for key in state[name]),
            "USR-001",
        ]
        for name in rng.sample(sorted(crm_tools), len(crm_tools)):
            tool: Tool = crm_tools[name]
            args = _arguments(tool.input_schema, rng, ids)
            validator = jsonschema.Draft202012Validator(tool.input_schema)
            if not validator.is_valid(args):
                continue
            audit_before = len(state["auditLog"])
            try:
                out = tool.run(state, args)
            except ToolError:
                assert len(state["auditLog"]) == audit_before, name
                continue
            json.dumps(out, allow_nan=False)
            grew = len(state["auditLog"]) - audit_before
            assert grew == (0 if tool.read_only else 1), (name, args)
