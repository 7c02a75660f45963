"""A scripted probe of every CRM read tool: each filter, each paging edge, each refusal.

Contract: ``agent(inp)`` makes the fixed list of calls in :data:`CALLS` on an untouched world —
every read-only tool with no arguments, with each of its filters alone, with paging at its
edges (a short page, an offset past the end), with any-case text, with dates and thresholds
that equal a value in the seed (where ``<`` and ``<=`` part ways), and with the ids and inputs
each tool must refuse. It returns ``calls=<n> ok=<n> refused=<n>``. It changes nothing, so it
is pinned with its tool events (``baselines/crm/file``, see docs/baselines.md): every figure a
read tool derives is then a golden value, including on branches the solver never reaches.
Run it as ``agent=file agent.path=environments/crm/agents/probe_reads.py``.
"""

from __future__ import annotations

from typing import Any

from .probe_kit import run_calls

# (tool, input) in call order. Dates and thresholds on purpose sit on seed values: 2026-04-30
# is the expected close date of two open deals, 2026-02-03 a close date, 42 the days in stage
# of OPP-009, 2026-03-16 the world's today.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_current_date", {}),
    ("list_users", {}),
    ("list_users", {"role": "manager"}),
    ("list_users", {"role": "rep", "active": True}),
    ("list_users", {"active": False}),
    ("list_users", {"limit": 2, "offset": 1}),
    ("get_user", {"userId": "USR-001"}),
    ("get_user", {"userId": "USR-004"}),
    ("get_user", {"userId": "USR-099"}),
    ("list_accounts", {}),
    ("list_accounts", {"ownerId": "USR-004"}),
    ("list_accounts", {"tier": "smb"}),
    ("list_accounts", {"industry": "RETAIL"}),
    ("list_accounts", {"industry": "Retai"}),
    ("list_accounts", {"limit": 3, "offset": 9}),
    ("list_accounts", {"offset": 50}),
    ("search_accounts", {"query": "ROTTERDAM"}),
    ("search_accounts", {"query": "acc-01"}),
    ("search_accounts", {"query": "   "}),
    ("get_account", {"accountId": "ACC-010"}),
    ("get_account", {"accountId": "ACC-099"}),
    ("list_contacts", {}),
    ("list_contacts", {"accountId": "ACC-010"}),
    ("list_contacts", {"primaryOnly": True, "limit": 5}),
    ("list_contacts", {"primaryOnly": False, "offset": 12}),
    ("search_contacts", {"query": "TIDEWELL"}),
    ("search_contacts", {"query": "victor"}),
    ("get_contact", {"contactId": "CON-014"}),
    ("get_contact", {"contactId": "CON-099"}),
    ("list_leads", {}),
    *[("list_leads", {"status": s}) for s in ("new", "working", "qualified", "disqualified")],
    ("list_leads", {"status": "converted"}),
    ("list_leads", {"source": "web"}),
    ("list_leads", {"ownerId": "USR-005", "source": "partner"}),
    ("search_leads", {"query": "FJORD"}),
    ("search_leads", {"query": "lead-01"}),
    ("get_lead", {"leadId": "LEAD-006"}),
    ("get_lead", {"leadId": "LEAD-010"}),
    ("get_lead", {"leadId": "LEAD-099"}),
    ("list_stages", {}),
    ("list_stages", {"limit": 2, "offset": 4}),
    ("list_opportunities", {}),
    ("list_opportunities", {"ownerId": "USR-002"}),
    ("list_opportunities", {"accountId": "ACC-010"}),
    ("list_opportunities", {"stageId": "STG-03"}),
    *[("list_opportunities", {"status": s}) for s in ("open", "won", "lost", "closed")],
    ("list_opportunities", {"staleOnly": True}),
    ("list_opportunities", {"ownerId": "USR-004", "status": "won"}),
    ("list_opportunities", {"accountId": "ACC-002", "status": "closed", "limit": 1}),
    ("search_opportunities", {"query": "NORTHWIND"}),
    ("search_opportunities", {"query": "opp-01"}),
    ("get_opportunity", {"opportunityId": "OPP-001"}),
    ("get_opportunity", {"opportunityId": "OPP-009"}),
    ("get_opportunity", {"opportunityId": "OPP-099"}),
    ("list_activities", {}),
    ("list_activities", {"ownerId": "USR-002"}),
    ("list_activities", {"relatedType": "lead"}),
    ("list_activities", {"relatedId": "OPP-001"}),
    ("list_activities", {"type": "call"}),
    ("list_activities", {"status": "open"}),
    ("list_activities", {"status": "done", "limit": 4, "offset": 2}),
    ("get_activity", {"activityId": "ACT-002"}),
    ("get_activity", {"activityId": "ACT-004"}),
    ("get_activity", {"activityId": "ACT-099"}),
    ("pipeline_summary", {}),
    ("pipeline_summary", {"ownerId": "USR-005"}),
    ("forecast_report", {}),
    ("forecast_report", {"closingOnOrBefore": "2026-04-30"}),
    ("forecast_report", {"closingOnOrBefore": "2026-03-16", "ownerId": "USR-005"}),
    ("forecast_report", {"includeClosedWon": True}),
    ("forecast_report", {"includeClosedWon": True, "closingOnOrBefore": "2026-02-03"}),
    ("forecast_report", {"includeClosedWon": True, "ownerId": "USR-003"}),
    ("forecast_report", {"closingOnOrBefore": "2026-02-30"}),
    ("rep_performance", {}),
    ("rep_performance", {"activeOnly": True}),
    ("stale_opportunities", {}),
    ("stale_opportunities", {"thresholdDays": 0}),
    ("stale_opportunities", {"thresholdDays": 42}),
    ("stale_opportunities", {"thresholdDays": 41, "ownerId": "USR-006"}),
    ("list_audit_log", {}),
]


def agent(inp: Any) -> str:
    """Make every call of :data:`CALLS` and say how many were answered and refused."""
    return run_calls(inp, CALLS)
