"""A scripted probe of every CRM write tool: each happy path with its options, each refusal.

Contract: ``agent(inp)`` makes the fixed list of calls in :data:`CALLS` in order on one world:
for every mutating tool a minimal call, a call with every option, calls on the boundaries its
contract names (today's date, a same-day completion, the last open stage, cents in amounts),
and one call per refusal it documents (unknown id, deactivated actor or owner, wrong status,
blank text, nothing to change, a conflict). Later calls act on what earlier ones made, and the
read tools are called again at the end so the reports see the changed world (audit log, stage
moves, wins). It returns ``calls=<n> ok=<n> refused=<n>``. Pinned with its tool events and
state changes (``baselines/crm/file``, see docs/baselines.md), every value these tools write
or return is a golden value. Run it as
``agent=file agent.path=environments/crm/agents/probe_writes.py``.
"""

from __future__ import annotations

from typing import Any

from .probe_kit import run_calls

TODAY = "2026-03-16"
M, REP2, REP3, GONE, REP5, REP6 = "USR-001", "USR-002", "USR-003", "USR-004", "USR-005", "USR-006"


def _as(actor: str, **args: Any) -> dict[str, Any]:
    return {"actorId": actor, **args}


ACCOUNTS = [
    ("create_account", _as(REP2, name="Harbour Lights Ltd")),
    ("create_account", _as(M, name="  Quayside Tools  ", industry="Retail", tier="enterprise",
                           website="quayside.example", city="Cork", notes="Met at expo.",
                           ownerId=REP3)),
    ("create_account", _as(REP2, name="northwind freight co.")),
    ("create_account", _as(GONE, name="Gone Ltd")),
    ("create_account", _as("USR-099", name="Nobody Ltd")),
    ("create_account", _as(M, name="Orphan Ltd", ownerId=GONE)),
    ("create_account", _as(M, name="   ")),
    ("update_account", _as(REP5, accountId="ACC-005", tier="mid-market", city="Bath")),
    ("update_account", _as(REP5, accountId="ACC-005", tier="mid-market")),
    ("update_account", _as(M, accountId="ACC-005", ownerId=GONE)),
    ("update_account", _as(M, accountId="ACC-005")),
    ("update_account", _as(M, accountId="ACC-004", ownerId=REP6, notes="Taken over.")),
    ("update_account", _as(M, accountId="ACC-099", city="Nowhere")),
]  # fmt: skip

CONTACTS = [
    ("create_contact", _as(REP5, firstName="Mia", lastName="Stone", email="mia@stone.example",
                           accountId="ACC-005", isPrimary=True, phone="+44 1", title="Buyer")),
    ("create_contact", _as(REP5, firstName="Ned", lastName="Loose", email="ned@loose.example",
                           isPrimary=True)),
    ("create_contact", _as(REP5, firstName="Dup", lastName="Mail",
                           email="M.WEBB@northwindfreight.example")),
    ("create_contact", _as(REP5, firstName="Ann", lastName="Free", email="ann@free.example")),
    ("create_contact", _as(REP5, firstName="  ", lastName="Blank", email="b@blank.example")),
    ("create_contact", _as(REP5, firstName="No", lastName="Acc", email="n@acc.example",
                           accountId="ACC-099")),
    ("update_contact", _as(REP2, contactId="CON-002", title="COO", email="janelle@nw.example")),
    ("update_contact", _as(REP2, contactId="CON-002", email="ANIKA.RAO@calderhealth.example")),
    ("update_contact", _as(REP2, contactId="CON-002", firstName="  ")),
    ("update_contact", _as(REP2, contactId="CON-002", lastName=" Ortiz-Lee ")),
    ("update_contact", _as(REP2, contactId="CON-002")),
    ("link_contact_to_account", _as(REP6, contactId="CON-014", accountId="ACC-008")),
    ("link_contact_to_account", _as(REP6, contactId="CON-014", accountId="ACC-008")),
    ("link_contact_to_account", _as(REP6, contactId="CON-014", accountId="ACC-008",
                                    makePrimary=True)),
    ("link_contact_to_account", _as(REP2, contactId="CON-002", accountId="ACC-002")),
    ("link_contact_to_account", _as(GONE, contactId="CON-002", accountId="ACC-001")),
]  # fmt: skip

LEADS = [
    ("create_lead", _as(REP3, firstName="Ola", lastName="Berg", company="Nordlys AS",
                        email="ola@nordlys.example", source="web")),
    ("create_lead", _as(M, firstName="Eve", lastName="Moss", company="Moss & Co",
                        email="eve@moss.example", source="referral", phone="1", title="CEO",
                        industry="Legal", ownerId=REP6, notes="Warm intro.")),
    ("create_lead", _as(M, firstName="X", lastName="Y", company="Z Ltd", email="x@z.example",
                        source="event", ownerId=GONE)),
    ("update_lead", _as(REP5, leadId="LEAD-001", markContacted=True)),
    ("update_lead", _as(REP3, leadId="LEAD-002", markContacted=True, phone="+1 555")),
    ("update_lead", _as(REP5, leadId="LEAD-006", notes="Again?")),
    ("update_lead", _as(REP5, leadId="LEAD-009")),
    ("update_lead", _as(REP5, leadId="LEAD-009", company="   ")),
    ("update_lead", _as(REP5, leadId="LEAD-009", ownerId=GONE)),
    ("update_lead", _as(REP5, leadId="LEAD-009", ownerId=REP3, company=" Halcyon Group ")),
    ("qualify_lead", _as(REP5, leadId="LEAD-001")),
    ("qualify_lead", _as(REP5, leadId="LEAD-005")),
    ("qualify_lead", _as(REP5, leadId="LEAD-004")),
    ("qualify_lead", _as(REP2, leadId="LEAD-007")),
    ("qualify_lead", _as(M, leadId="LEAD-008")),
    ("disqualify_lead", _as(REP6, leadId="LEAD-010", reason="  Student project. ")),
    ("disqualify_lead", _as(REP5, leadId="LEAD-006", reason="Too late.")),
    ("disqualify_lead", _as(REP6, leadId="LEAD-003", reason="   ")),
    ("disqualify_lead", _as(GONE, leadId="LEAD-003", reason="Gone.")),
]  # fmt: skip

CONVERSIONS = [
    ("convert_lead", _as(REP2, leadId="LEAD-004")),
    ("convert_lead", _as(REP2, leadId="LEAD-004", amount=1000, expectedCloseDate="2026-03-15")),
    ("convert_lead", _as(REP2, leadId="LEAD-004", amount=140000.555, expectedCloseDate=TODAY,
                         accountTier="enterprise")),
    ("convert_lead", _as(REP5, leadId="LEAD-001", createOpportunity=False)),
    ("convert_lead", _as(REP2, leadId="LEAD-007", amount=5000, expectedCloseDate="2026-05-01")),
    ("convert_lead", _as(REP2, leadId="LEAD-007", accountId="ACC-001", amount=5000.1,
                         expectedCloseDate="2026-05-01", opportunityName="Northwind add-on")),
    ("convert_lead", _as(REP3, leadId="LEAD-008", amount=7000, expectedCloseDate="2026-06-01")),
    ("convert_lead", _as(REP3, leadId="LEAD-002", amount=100, expectedCloseDate=TODAY)),
]  # fmt: skip

OPPORTUNITIES = [
    ("create_opportunity", _as(REP6, accountId="ACC-006", name="Orbital presses",
                               amount=1234.567, expectedCloseDate=TODAY, stageId="STG-02",
                               ownerId=REP3, primaryContactId="CON-007")),
    ("create_opportunity", _as(REP6, accountId="ACC-006", name="Orbital inks", amount=10,
                               expectedCloseDate="2026-09-30")),
    ("create_opportunity", _as(REP6, accountId="ACC-006", name="Won already", amount=10,
                               expectedCloseDate="2026-09-30", stageId="STG-05")),
    ("create_opportunity", _as(REP6, accountId="ACC-006", name="Wrong contact", amount=10,
                               expectedCloseDate="2026-09-30", primaryContactId="CON-001")),
    ("create_opportunity", _as(REP6, accountId="ACC-006", name="Late", amount=10,
                               expectedCloseDate="2026-03-15")),
    ("create_opportunity", _as(REP6, accountId="ACC-006", name="  ", amount=10,
                               expectedCloseDate="2026-09-30")),
    ("create_opportunity", _as(REP6, accountId="ACC-006", name="Gone owner", amount=10,
                               expectedCloseDate="2026-09-30", ownerId=GONE)),
    ("update_opportunity", _as(REP5, opportunityId="OPP-008", amount=45000.125, name="Tills v2",
                               expectedCloseDate=TODAY, primaryContactId="CON-006")),
    ("update_opportunity", _as(REP5, opportunityId="OPP-008", primaryContactId="CON-001")),
    ("update_opportunity", _as(REP5, opportunityId="OPP-008", expectedCloseDate="2026-03-01")),
    ("update_opportunity", _as(REP5, opportunityId="OPP-008", amount=45000.13)),
    ("update_opportunity", _as(REP2, opportunityId="OPP-010", name="Reopened?")),
    ("update_opportunity", _as(REP5, opportunityId="OPP-008")),
]  # fmt: skip

DEAL_FLOW = [
    ("set_opportunity_stage", _as(REP3, opportunityId="OPP-004", stageId="STG-03")),
    ("set_opportunity_stage", _as(REP3, opportunityId="OPP-004", stageId="STG-03")),
    ("set_opportunity_stage", _as(REP3, opportunityId="OPP-004", stageId="STG-05")),
    ("set_opportunity_stage", _as(REP2, opportunityId="OPP-010", stageId="STG-01")),
    ("set_opportunity_stage", _as(GONE, opportunityId="OPP-005", stageId="STG-01")),
    ("advance_opportunity_stage", _as(REP2, opportunityId="OPP-002")),
    ("advance_opportunity_stage", _as(REP3, opportunityId="OPP-003")),
    ("advance_opportunity_stage", _as(REP2, opportunityId="OPP-001")),
    ("advance_opportunity_stage", _as(GONE, opportunityId="OPP-006")),
    ("close_opportunity_won", _as(REP5, opportunityId="OPP-007", finalAmount=125999.999)),
    ("close_opportunity_won", _as(REP3, opportunityId="OPP-003")),
    ("close_opportunity_won", _as(REP3, opportunityId="OPP-003")),
    ("close_opportunity_lost", _as(M, opportunityId="OPP-006", reason="  Budget cut.  ")),
    ("close_opportunity_lost", _as(M, opportunityId="OPP-005", reason="   ")),
    ("close_opportunity_lost", _as(GONE, opportunityId="OPP-005", reason="Gone.")),
    ("reassign_opportunity", _as(REP6, opportunityId="OPP-009", newOwnerId=REP2)),
    ("reassign_opportunity", _as(REP3, opportunityId="OPP-008", newOwnerId=REP3)),
    ("reassign_opportunity", _as(M, opportunityId="OPP-008", newOwnerId=REP3)),
    ("reassign_opportunity", _as(M, opportunityId="OPP-008", newOwnerId=GONE)),
    ("reassign_opportunity", _as(M, opportunityId="OPP-008", newOwnerId=REP3)),
    ("reassign_opportunity", _as(GONE, opportunityId="OPP-005", newOwnerId=REP2)),
    ("reassign_opportunity", _as(M, opportunityId="OPP-011", newOwnerId=REP2)),
]  # fmt: skip

ACTIVITIES = [
    ("log_activity", _as(REP2, type="call", subject=" Check-in ", relatedType="opportunity",
                         relatedId="OPP-001", notes="Went well.")),
    ("log_activity", _as(REP2, type="note", subject="Lost", relatedType="lead",
                         relatedId="LEAD-099")),
    ("log_activity", _as(REP2, type="note", subject="   ", relatedType="account",
                         relatedId="ACC-001")),
    ("log_activity", _as(GONE, type="note", subject="Ghost", relatedType="account",
                         relatedId="ACC-001")),
    ("schedule_followup", _as(M, type="meeting", subject="Kick-off", relatedType="contact",
                              relatedId="CON-003", dueDate=TODAY, ownerId=REP3)),
    ("schedule_followup", _as(REP2, type="task", subject="Send deck", relatedType="account",
                              relatedId="ACC-009", dueDate="2026-03-20")),
    ("schedule_followup", _as(REP2, type="task", subject="Too late", relatedType="account",
                              relatedId="ACC-009", dueDate="2026-03-15")),
    ("schedule_followup", _as(M, type="task", subject="Ghost", relatedType="account",
                              relatedId="ACC-009", dueDate=TODAY, ownerId=GONE)),
    ("complete_activity", _as(REP2, activityId="ACT-002", completedOn="2026-03-10",
                              outcome="  Signed NDA. ")),
    ("complete_activity", _as(REP3, activityId="ACT-017")),
    ("complete_activity", _as(REP2, activityId="ACT-013", completedOn="2026-02-24")),
    ("complete_activity", _as(REP2, activityId="ACT-013", completedOn="2026-03-17")),
    ("complete_activity", _as(REP2, activityId="ACT-013", completedOn="2026-02-25", outcome=" ")),
    ("complete_activity", _as(REP2, activityId="ACT-013")),
    ("complete_activity", _as(REP2, activityId="ACT-099")),
]  # fmt: skip

AFTERWARDS: list[tuple[str, dict[str, Any]]] = [
    ("list_audit_log", {}),
    ("list_audit_log", {"entityType": "opportunity", "limit": 5, "offset": 2}),
    ("list_audit_log", {"actorId": M}),
    ("list_audit_log", {"entityId": "LEAD-004"}),
    ("pipeline_summary", {}),
    ("forecast_report", {"includeClosedWon": True, "closingOnOrBefore": TODAY}),
    ("rep_performance", {}),
    ("stale_opportunities", {"thresholdDays": 0}),
    ("get_user", {"userId": REP5}),
    ("list_opportunities", {"status": "closed"}),
    ("get_opportunity", {"opportunityId": "OPP-001"}),
    ("list_activities", {"status": "open"}),
    ("get_lead", {"leadId": "LEAD-004"}),
    ("get_account", {"accountId": "ACC-012"}),
    ("list_contacts", {"primaryOnly": True}),
]

CALLS: list[tuple[str, dict[str, Any]]] = [
    *ACCOUNTS,
    *CONTACTS,
    *LEADS,
    *CONVERSIONS,
    *OPPORTUNITIES,
    *DEAL_FLOW,
    *ACTIVITIES,
    *AFTERWARDS,
]


def agent(inp: Any) -> str:
    """Make every call of :data:`CALLS` and say how many were answered and refused."""
    return run_calls(inp, CALLS)
