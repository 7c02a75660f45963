"""Time tools: hours members log against work items.

Contract: ``log_time`` records 0.1-24 hours by the acting member on an unfinished item, dated
today or earlier; ``list_time_logs`` filters by item, member, project and date range and adds
``totalHours`` over every match (not just the page); ``update_time_log`` lets the author correct
hours, date or note; ``member_time_summary`` totals one member's hours by project and item;
``work_item_time_summary`` totals one item's hours by member against its estimate. Hours are
rounded to one decimal. Each mutation appends one audit row.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Annotated, Any

from pydantic import Field

from silo import Tool, ToolError, define_tool, tool
from silo.toolkit.guards import apply_changes, changes, parse_day
from silo.toolkit.results import sorted_by_id
from silo.toolkit.schema import day, obj, text

from .. import state as derived
from ..state import mint_id, round_half_up
from .common import WRITES, candidates, fetch, matches, not_future, page, unfinished_item
from .schema import actor, change, listing, number, ref
from .views import log_view

State = dict[str, Any]
Args = dict[str, Any]

MIN_HOURS, MAX_HOURS = 0.1, 24


def _hours(value: float) -> float:
    hours = round_half_up(float(value))
    if not MIN_HOURS <= hours <= MAX_HOURS:
        raise ToolError("invalid_input", f"hours must be between {MIN_HOURS} and {MAX_HOURS}")
    return hours


def _in_range(log: Mapping[str, Any], args: Args) -> bool:
    day: str = log["date"]
    return str(args.get("fromDate", day)) <= day <= str(args.get("toDate", day))


def _grouped(logs: Iterable[Mapping[str, Any]], key: str) -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for log in logs:
        totals[log[key]] += float(log["hours"])
    return {name: round_half_up(hours) for name, hours in sorted(totals.items())}


def _log_time(state: State, args: Args) -> dict[str, Any]:
    member = WRITES.actor_of(state, args)
    item = unfinished_item(state, args["workItemId"], "log time on it")
    worked_on = not_future(state, str(args.get("date", state["now"])), "date")
    hours = _hours(args["hours"])
    log = {
        "id": mint_id(state, "TL"),
        "workItemId": item["id"],
        "memberId": member["id"],
        "date": worked_on,
        "hours": hours,
        "note": args.get("note", ""),
    }
    state["timeLogs"][log["id"]] = log
    WRITES.audit(state, args, "time.logged", "time_log", log["id"], {"hours": log["hours"]})
    return log_view(state, log)


def _list_time_logs(state: State, args: Args) -> dict[str, Any]:
    for field in ("fromDate", "toDate"):
        if field in args:
            parse_day(args[field], field)
    indexes = {"workItemId": derived.LOGS_BY_ITEM, "memberId": derived.LOGS_BY_MEMBER}
    rows = candidates(state, args, "timeLogs", indexes)
    items = state["workItems"]
    found = [
        log
        for log in sorted_by_id(rows)
        if matches(log, args, ("workItemId", "memberId"))
        and ("projectId" not in args or items[log["workItemId"]]["projectId"] == args["projectId"])
        and _in_range(log, args)
    ]
    return {
        **page(found, args, lambda log: log_view(state, log)),
        "totalHours": derived.hours_of(found),
    }


def _update_time_log(state: State, args: Args) -> dict[str, Any]:
    member = WRITES.actor_of(state, args)
    log = fetch(state, "timeLogs", args["timeLogId"])
    if log["memberId"] != member["id"]:
        raise ToolError(
            "not_allowed", f"{log['id']} was logged by {log['memberId']}; only they can edit it"
        )
    updates = changes(args, ("hours", "date", "note"))
    if "hours" in updates:
        updates["hours"] = _hours(updates["hours"])
    if "date" in updates:
        not_future(state, updates["date"], "date")
    diff = apply_changes(log, updates)
    WRITES.audit(state, args, "time.updated", "time_log", log["id"], diff)
    return log_view(state, log)


def _member_time_summary(state: State, args: Args) -> dict[str, Any]:
    member = fetch(state, "members", args["memberId"])
    logs = [log for log in derived.LOGS_BY_MEMBER.rows(state, member["id"]) if _in_range(log, args)]
    items = state["workItems"]
    with_project = [{**log, "projectId": items[log["workItemId"]]["projectId"]} for log in logs]
    return {
        "memberId": member["id"],
        "name": member["name"],
        "totalHours": derived.hours_of(logs),
        "byProject": _grouped(with_project, "projectId"),
        "byWorkItem": _grouped(logs, "workItemId"),
    }


@tool(read_only=True)
def work_item_time_summary(
    state: dict[str, Any],
    workItemId: Annotated[str, Field(pattern=r"^WI-\d{2,6}$")],
) -> dict[str, Any]:
    """Hours logged on one work item, in total and by member, beside its estimate.

    Args:
        state: The world; Silo passes it, the agent never does.
        workItemId: Id of the work item, e.g. WI-003.
    """
    item = fetch(state, "workItems", workItemId)
    logs = derived.LOGS_BY_ITEM.rows(state, item["id"])
    return {
        "workItemId": item["id"],
        "title": item["title"],
        "estimate": item["estimate"],
        "totalHours": derived.hours_of(logs),
        "byMember": _grouped(logs, "memberId"),
    }


TOOLS: list[Tool] = [
    WRITES.tool(
        "log_time",
        "Log hours you (the acting member) spent on an unfinished work item. 0.1 to 24 hours, "
        "dated today unless an earlier date is given.",
        obj(
            {
                "actorId": actor(),
                "workItemId": ref("item", "The item worked on."),
                "hours": number("Hours spent, 0.1 to 24.", MIN_HOURS, MAX_HOURS),
                "date": day("Day the work was done (default today; not in the future)."),
                "note": text("What was done (optional).", max_length=500),
            },
            ["actorId", "workItemId", "hours"],
        ),
        _log_time,
    ),
    define_tool(
        "list_time_logs",
        "List time logs filtered by work item, member, project and date range (inclusive). "
        "totalHours sums every matching log, not only the returned page.",
        listing(
            {
                "workItemId": ref("item", "Only logs on this item."),
                "memberId": ref("member", "Only logs by this member."),
                "projectId": ref("project", "Only logs on items of this project."),
                "fromDate": day("Earliest date to include."),
                "toDate": day("Latest date to include."),
            }
        ),
        _list_time_logs,
        read_only=True,
    ),
    WRITES.tool(
        "update_time_log",
        "Correct the hours, date or note of a time log you logged yourself.",
        change(
            "log",
            "timeLogId",
            {
                "hours": number("Corrected hours, 0.1 to 24.", MIN_HOURS, MAX_HOURS),
                "date": day("Corrected date (not in the future)."),
                "note": text("Corrected note.", max_length=500),
            },
            [],
        ),
        _update_time_log,
    ),
    define_tool(
        "member_time_summary",
        "A member's logged hours in total, by project and by work item, optionally within a "
        "date range.",
        obj(
            {
                "memberId": ref("member", "Id of the member."),
                "fromDate": day("Earliest date to include."),
                "toDate": day("Latest date to include."),
            },
            ["memberId"],
        ),
        _member_time_summary,
        read_only=True,
    ),
    work_item_time_summary,
]
