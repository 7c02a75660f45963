"""Shared tables for the project-tracking tests: one valid call per tool.

``MUTATIONS`` maps every mutating tool to ``(args, touched)``: a call that succeeds on the seed
world when made by ``ACTOR`` (or the ``actorId`` the args carry) and the id of the record it
creates or changes; ``touched`` is None for tools whose seed call is refused by a rule (their
happy path needs set-up and is tested on its own). ``READS`` holds one valid call per read-only
tool.
"""

from __future__ import annotations

from typing import Any

NOW = "2026-03-16"
ACTOR = "MEM-007"  # Grace Kim, the manager: active, on no team
DEPARTED = "MEM-004"  # Devon Ito, deactivated
DONE = "WS-06"

MUTATIONS: dict[str, tuple[dict[str, Any], str | None]] = {
    "create_member": (
        {
            "name": "Ivy Park",
            "email": "ivy.park@silo-works.example",
            "role": "engineer",
            "teamId": "TEAM-002",
            "weeklyCapacity": 20,
        },
        "MEM-009",
    ),
    "update_member": ({"memberId": "MEM-008", "weeklyCapacity": 30}, "MEM-008"),
    "deactivate_member": ({"memberId": "MEM-008"}, "MEM-008"),
    "reactivate_member": ({"memberId": "MEM-004"}, "MEM-004"),
    "create_team": ({"name": "Data", "leadId": "MEM-007"}, "TEAM-003"),
    "reassign_team_lead": ({"teamId": "TEAM-001", "newLeadId": "MEM-002"}, "TEAM-001"),
    "create_project": ({"name": "Payments Gateway", "key": "pay", "leadId": "MEM-002"}, "PROJ-004"),
    "update_project": ({"projectId": "PROJ-002", "status": "on_hold"}, "PROJ-002"),
    "close_project": ({"projectId": "PROJ-003"}, None),
    "reassign_project_lead": ({"projectId": "PROJ-003", "newLeadId": "MEM-001"}, "PROJ-003"),
    "create_sprint": (
        {
            "projectId": "PROJ-002",
            "name": "Nimbus Sprint 6",
            "startDate": "2026-03-23",
            "endDate": "2026-04-05",
        },
        "SPR-006",
    ),
    "start_sprint": ({"sprintId": "SPR-003"}, None),
    "complete_sprint": ({"sprintId": "SPR-002"}, "SPR-002"),
    "create_work_item": (
        {
            "projectId": "PROJ-001",
            "title": "Invoice search",
            "type": "story",
            "estimate": 3,
            "assigneeId": "MEM-008",
            "sprintId": "SPR-003",
            "dueDate": "2026-03-27",
        },
        "WI-025",
    ),
    "update_work_item": ({"workItemId": "WI-009", "priority": "high", "estimate": 5}, "WI-009"),
    "assign_work_item": ({"workItemId": "WI-009", "assigneeId": "MEM-008"}, "WI-009"),
    "unassign_work_item": ({"workItemId": "WI-010"}, "WI-010"),
    "set_work_item_status": ({"workItemId": "WI-003", "statusId": DONE}, "WI-003"),
    "add_work_item_dependency": ({"workItemId": "WI-009", "dependsOnId": "WI-008"}, "WI-009"),
    "remove_work_item_dependency": ({"workItemId": "WI-004", "dependsOnId": "WI-005"}, "WI-004"),
    "add_comment": ({"workItemId": "WI-006", "body": "Blocked by WI-007."}, "WI-006"),
    "move_work_item_to_sprint": ({"workItemId": "WI-008", "sprintId": "SPR-003"}, "WI-008"),
    "remove_work_item_from_sprint": ({"workItemId": "WI-012"}, "WI-012"),
    "set_work_item_due_date": ({"workItemId": "WI-008", "dueDate": "2026-04-01"}, "WI-008"),
    "log_time": ({"workItemId": "WI-007", "hours": 1.5, "note": "Review."}, "TL-020"),
    "update_time_log": ({"timeLogId": "TL-005", "hours": 4, "actorId": "MEM-001"}, "TL-005"),
}

READS: dict[str, dict[str, Any]] = {
    "get_current_date": {},
    "list_members": {"teamId": "TEAM-001"},
    "search_members": {"query": "osei"},
    "get_member": {"memberId": "MEM-003"},
    "list_teams": {},
    "get_team": {"teamId": "TEAM-001"},
    "list_projects": {"status": "active"},
    "search_projects": {"query": "atl"},
    "get_project": {"projectId": "PROJ-001"},
    "get_project_lead": {"projectId": "PROJ-002"},
    "list_sprints": {"projectId": "PROJ-001"},
    "get_sprint": {"sprintId": "SPR-002"},
    "list_workflow_states": {},
    "list_work_items": {"projectId": "PROJ-001", "open": True},
    "search_work_items": {"query": "email"},
    "get_work_item": {"workItemId": "WI-004"},
    "list_comments": {"workItemId": "WI-006"},
    "list_time_logs": {"projectId": "PROJ-001"},
    "member_time_summary": {"memberId": "MEM-003"},
    "work_item_time_summary": {"workItemId": "WI-003"},
    "sprint_burndown": {"sprintId": "SPR-002"},
    "member_load": {},
    "blocked_items": {},
    "overdue_items": {},
    "velocity_report": {},
    "project_time_report": {"projectId": "PROJ-001"},
    "workload_forecast": {},
    "member_capacity_check": {"memberId": "MEM-002", "workItemId": "WI-008"},
}

COLLECTION_OF = {
    "MEM": "members",
    "TEAM": "teams",
    "PROJ": "projects",
    "SPR": "sprints",
    "WI": "workItems",
    "TL": "timeLogs",
}


def collection_of(record_id: str) -> str:
    """The state collection a record id lives in (``WI-004`` -> ``workItems``)."""
    return COLLECTION_OF[record_id.split("-")[0]]
