"""Budget tools: allocations, commitments, spend and headroom per department.

Contract: headroom = allocated - committed - spent. Reads list budgets, show one with the
documents drawing on it, a department's budgets, availability for an amount and utilisation.
``commit_budget`` refuses beyond headroom (``limit_exceeded``) or on an inactive budget;
``release_budget_commitment`` and ``record_budget_spend`` (committed -> spent) refuse more
than is committed; ``update_budget`` can raise or lower the allocation but never below
committed + spent, rename it or change its status; ``create_budget`` adds one. Each mutation
appends one audit row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import Args, apply_changes, changes, non_blank
from silo.toolkit.results import filtered, snapshot
from silo.toolkit.schema import choice, integer, obj, text

from ..domain import budgets as rules
from ..domain.money import round2
from ..state import mint_id, now_instant
from .common import WRITES, State, active_user, audit, fetch, page
from .crud import list_tool
from .schema import BUDGET_STATUSES, acting_on, actor, amount, by_id, money, reason, record_id
from .views import budget_view

DRAWING = (
    ("requisitions", "requisition"),
    ("purchaseOrders", "purchase_order"),
    ("expenses", "expense"),
)


def _drawing_documents(state: Mapping[str, Any], budget_id: str) -> list[dict[str, Any]]:
    return [
        {"type": kind, "id": doc["id"], "status": doc["status"],
         "committedAmount": doc.get("committedAmount", 0),
         "amount": doc.get("subtotal", doc.get("estimatedTotal", doc.get("amount")))}
        for collection, kind in DRAWING
        for doc in sorted(state[collection].values(), key=lambda d: d["id"])
        if doc.get("budgetId") == budget_id
    ]  # fmt: skip


def _get_budget(state: State, args: Args) -> dict[str, Any]:
    budget = rules.budget_of(state, args["budgetId"])
    return snapshot(
        {**budget_view(state, budget), "documents": _drawing_documents(state, budget["id"])}
    )


def _get_department_budget(state: State, args: Args) -> dict[str, Any]:
    department = fetch(state, "departments", args["departmentId"])
    rows = [
        budget_view(state, b)
        for b in filtered(
            state["budgets"].values(), {"departmentId": department["id"]}, ("departmentId",)
        )
    ]
    return {
        "departmentId": department["id"],
        "departmentName": department["name"],
        "budgets": [snapshot(row) for row in rows],
        **{
            key: round2(sum(row[key] for row in rows))
            for key in ("allocated", "committed", "spent", "headroom")
        },
    }


def _check_budget_availability(state: State, args: Args) -> dict[str, Any]:
    found: dict[str, Any] = rules.availability(
        rules.budget_of(state, args["budgetId"]), float(args["amount"])
    )
    return found


def _money_move(state: State, args: Args, action: str) -> dict[str, Any]:
    budget = rules.budget_of(state, args["budgetId"])
    text_reason = non_blank(args["reason"], "reason")
    value = float(args["amount"])
    if action == "budget.committed":
        rules.commit_amount(budget, value, "the commitment")
    elif action == "budget.released":
        rules.release_amount(budget, value)
    else:
        rules.spend_commitment(budget, value)
    audit(state, args, action, budget, {"amount": round2(value), "reason": text_reason})
    return snapshot(budget_view(state, budget))


def _commit_budget(state: State, args: Args) -> dict[str, Any]:
    return _money_move(state, args, "budget.committed")


def _release_budget_commitment(state: State, args: Args) -> dict[str, Any]:
    return _money_move(state, args, "budget.released")


def _record_budget_spend(state: State, args: Args) -> dict[str, Any]:
    return _money_move(state, args, "budget.spent")


def _update_budget(state: State, args: Args) -> dict[str, Any]:
    budget = rules.budget_of(state, args["budgetId"])
    updates = changes(args, ("allocated", "status", "name"))
    floor = round2(float(budget["committed"]) + float(budget["spent"]))
    if "allocated" in updates and updates["allocated"] < floor - 0.005:
        raise ToolError(
            "invalid_input",
            f"{budget['id']} already has {floor} committed and spent; allocate at least that",
            {"minimum": floor},
        )
    if "name" in updates:
        updates["name"] = non_blank(updates["name"], "name")
    reason_text = args.get("reason", "").strip()
    diff = apply_changes(budget, updates)
    audit(state, args, "budget.updated", budget, {**diff, "reason": reason_text})
    return snapshot(budget_view(state, budget))


def _create_budget(state: State, args: Args) -> dict[str, Any]:
    department = fetch(state, "departments", args["departmentId"])
    owner = active_user(state, str(args.get("ownerId", department["managerId"])), "budget owner")
    name = non_blank(args["name"], "name")
    budget = {
        "id": mint_id(state, "BUD"),
        "name": name,
        "departmentId": department["id"],
        "ownerId": owner["id"],
        "fiscalYear": args.get("fiscalYear", now_instant(state).year),
        "allocated": args["allocated"],
        "committed": 0,
        "spent": 0,
        "status": "active",
        "currency": "USD",
    }
    state["budgets"][budget["id"]] = budget
    audit(state, args, "budget.created", budget, {"allocated": budget["allocated"]})
    return snapshot(budget_view(state, budget))


def _get_budget_utilisation(state: State, args: Args) -> dict[str, Any]:
    rows = [
        budget_view(state, b) for b in filtered(state["budgets"].values(), args, ("departmentId",))
    ]
    for row in rows:
        row["exhausted"] = row["headroom"] <= 0
    rows.sort(key=lambda row: (-row["utilisationPct"], row["id"]))
    return page(rows, args)


BUD_ID = "Id of the budget, e.g. BUD-004."
MOVE = {"amount": amount("Amount in USD."), "reason": reason("What it is for.")}

TOOLS: list[Tool] = [
    list_tool(
        "list_budgets",
        "List budgets with headroom and utilisation, optionally by department, status or year.",
        "budgets",
        {
            "departmentId": record_id("department", "Only this department's budgets."),
            "status": choice(BUDGET_STATUSES, "Only budgets in this status."),
            "fiscalYear": integer("Only this fiscal year.", 2000, 2100),
        },
        view=budget_view,
    ),
    define_tool(
        "get_budget",
        "One budget with allocated, committed, spent, headroom and the documents drawing on it.",
        by_id("budget", "budgetId", BUD_ID),
        _get_budget,
        read_only=True,
    ),
    define_tool(
        "get_department_budget",
        "A department's budgets and their combined allocation, commitments, spend and headroom.",
        by_id("department", "departmentId", "Id of the department, e.g. DEPT-FAC."),
        _get_department_budget,
        read_only=True,
    ),
    define_tool(
        "check_budget_availability",
        "Read-only: whether an amount fits a budget's headroom, and the shortfall if not.",
        obj(
            {"budgetId": record_id("budget", BUD_ID), "amount": amount("Amount in USD.")},
            ["budgetId", "amount"],
        ),  # fmt: skip
        _check_budget_availability,
        read_only=True,
    ),
    WRITES.tool(
        "commit_budget",
        "Commit an amount against a budget's headroom by hand (refused beyond headroom).",
        acting_on("budget", "budgetId", BUD_ID, **MOVE),
        _commit_budget,
    ),
    WRITES.tool(
        "release_budget_commitment",
        "Release part of a budget's committed money back to headroom.",
        acting_on("budget", "budgetId", BUD_ID, **MOVE),
        _release_budget_commitment,
    ),
    WRITES.tool(
        "record_budget_spend",
        "Turn committed money into spend (e.g. once an order is invoiced).",
        acting_on("budget", "budgetId", BUD_ID, **MOVE),
        _record_budget_spend,
    ),
    WRITES.tool(
        "update_budget",
        "Change a budget's allocation (never below committed + spent), name or status.",
        obj(
            {
                "actorId": actor(),
                "budgetId": record_id("budget", BUD_ID),
                "allocated": money("New allocation in USD."),
                "status": choice(BUDGET_STATUSES, "New status."),
                "name": text("New name."),
                "reason": reason("Why it changes."),
            },
            ["actorId", "budgetId"],
        ),
        _update_budget,
    ),
    WRITES.tool(
        "create_budget",
        "Create an active budget for a department (owner defaults to the department manager).",
        obj(
            {
                "actorId": actor(),
                "name": text("Budget name."),
                "departmentId": record_id("department", "Owning department, e.g. DEPT-IT."),
                "allocated": money("Allocation in USD."),
                "ownerId": record_id("user", "Budget owner."),
                "fiscalYear": integer("Fiscal year (default: the current one).", 2000, 2100),
            },
            ["actorId", "name", "departmentId", "allocated"],
        ),
        _create_budget,
    ),
    define_tool(
        "get_budget_utilisation",
        "Budgets ranked by utilisation (committed + spent over allocation), with headroom and "
        "an exhausted flag; optionally one department.",
        obj({"departmentId": record_id("department", "Only this department.")}),
        _get_budget_utilisation,
        read_only=True,
    ),
]
