"""Activity tools: calls, emails, meetings, tasks and notes on CRM records.

Contract: list (filter by owner, related record, type, open or done), get, log (a completed
activity dated today), schedule a follow-up (an open activity due today or later) and complete
(stamped today or an earlier date, never before it was created; completing twice is refused).
Every activity points at an existing account, contact, lead or opportunity. Each mutation
appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import non_blank
from silo.toolkit.results import sorted_by_id
from silo.toolkit.schema import choice, day, obj, text

from ..state import days_between, mint_id
from .common import WRITES, assignable_user, fetch, future_day, page, past_day
from .schema import ACTIVITY_TYPES, RELATED_TYPES, listing, long_text, record_id
from .views import activity_view

State = dict[str, Any]
Args = dict[str, Any]

COLLECTION_OF = {
    "account": "accounts",
    "contact": "contacts",
    "lead": "leads",
    "opportunity": "opportunities",
}
STATUSES = ("open", "done")


def _new_activity(state: State, args: Args, owner_id: str, due: str, done: str | None) -> Args:
    """Validate the related record, then store and audit a new activity."""
    fetch(state, COLLECTION_OF[args["relatedType"]], args["relatedId"])
    subject = non_blank(args["subject"], "subject")
    activity = {
        "id": mint_id(state, "ACT"),
        "type": args["type"],
        "subject": subject,
        "notes": args.get("notes", ""),
        "ownerId": owner_id,
        "relatedType": args["relatedType"],
        "relatedId": args["relatedId"],
        "createdOn": state["now"],
        "dueDate": due,
        "completedOn": done,
    }
    state["activities"][activity["id"]] = activity
    action = "activity.logged" if done else "activity.scheduled"
    WRITES.audit(
        state,
        args,
        action,
        "activity",
        activity["id"],
        {"relatedType": args["relatedType"], "relatedId": args["relatedId"]},
    )
    return activity_view(state, activity)


def _list_activities(state: State, args: Args) -> dict[str, Any]:
    keys = ("ownerId", "relatedType", "relatedId", "type")
    rows = [
        view
        for view in (activity_view(state, a) for a in sorted_by_id(state["activities"].values()))
        if all(view[key] == args[key] for key in keys if key in args)
        and ("status" not in args or view["status"] == args["status"])
    ]
    return page(rows, args)


def _get_activity(state: State, args: Args) -> dict[str, Any]:
    return activity_view(state, fetch(state, "activities", args["activityId"]))


def _log_activity(state: State, args: Args) -> dict[str, Any]:
    return _new_activity(state, args, args["actorId"], state["now"], state["now"])


def _schedule_followup(state: State, args: Args) -> dict[str, Any]:
    owner = assignable_user(state, args.get("ownerId", args["actorId"]))
    due = future_day(state, args["dueDate"], "dueDate")
    return _new_activity(state, args, owner["id"], due, None)


def _complete_activity(state: State, args: Args) -> dict[str, Any]:
    activity = fetch(state, "activities", args["activityId"])
    if activity["completedOn"] is not None:
        raise ToolError(
            "invalid_state",
            f"{activity['id']} was already completed on {activity['completedOn']}",
        )
    done = past_day(state, args.get("completedOn", state["now"]), "completedOn")
    if days_between(activity["createdOn"], done) < 0:
        raise ToolError(
            "invalid_input",
            f"completedOn {done} is before the activity was created ({activity['createdOn']})",
        )
    activity["completedOn"] = done
    if args.get("outcome", "").strip():
        activity["notes"] = " ".join(filter(None, (activity["notes"], args["outcome"].strip())))
    WRITES.audit(
        state,
        args,
        "activity.completed",
        "activity",
        activity["id"],
        {"completedOn": done},
    )
    return activity_view(state, activity)


def _activity_fields() -> dict[str, Any]:
    """What every new activity needs: its kind, subject, notes and the record it concerns."""
    return {
        "type": choice(ACTIVITY_TYPES, "Kind of activity."),
        "subject": text("One-line summary of the activity."),
        "notes": long_text("Longer free-text notes."),
        "relatedType": choice(RELATED_TYPES, "Kind of record the activity concerns."),
        "relatedId": text(
            "Id of that record, e.g. OPP-007, ACC-003, CON-011 or LEAD-004.", max_length=20
        ),
    }


_NEW_REQUIRED = ("type", "subject", "relatedType", "relatedId")

TOOLS: list[Tool] = [
    define_tool(
        "list_activities",
        "List activities, optionally filtered by owner, related record, type, or status (open "
        "or done). Open activities past their due date are flagged isOverdue.",
        listing(
            {
                "ownerId": record_id("user", "Only activities owned by this user."),
                "relatedType": choice(RELATED_TYPES, "Only activities on this kind of record."),
                "relatedId": text("Only activities on this record id.", max_length=20),
                "type": choice(ACTIVITY_TYPES, "Only activities of this kind."),
                "status": choice(STATUSES, "open (not completed) or done."),
            }
        ),
        _list_activities,
        read_only=True,
    ),
    define_tool(
        "get_activity",
        "One activity with its status and overdue flag.",
        obj(
            {"activityId": record_id("activity", "Id of the activity, e.g. ACT-004.")},
            ["activityId"],
        ),
        _get_activity,
        read_only=True,
    ),
    WRITES.tool(
        "log_activity",
        "Record something that already happened today (a call, email, meeting, task or note) "
        "against an account, contact, lead or opportunity. It is stored as completed today "
        "and owned by the acting user.",
        WRITES.input(_activity_fields(), _NEW_REQUIRED),
        _log_activity,
    ),
    WRITES.tool(
        "schedule_followup",
        "Schedule an open activity due today or later against an account, contact, lead or "
        "opportunity. The owner defaults to the acting user and must be active.",
        WRITES.input(
            {
                **_activity_fields(),
                "dueDate": day("Date it is due (YYYY-MM-DD, today or later)."),
                "ownerId": record_id("user", "Active user who should do it."),
            },
            [*_NEW_REQUIRED, "dueDate"],
        ),
        _schedule_followup,
    ),
    WRITES.tool(
        "complete_activity",
        "Mark an open activity as done, today by default, optionally adding an outcome to its "
        "notes.",
        WRITES.input(
            {
                "activityId": record_id("activity", "Id of the open activity."),
                "completedOn": day("Date it was done (YYYY-MM-DD, not in the future)."),
                "outcome": long_text("What came of it; appended to the notes."),
            },
            ["activityId"],
        ),
        _complete_activity,
    ),
]
