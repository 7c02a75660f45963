"""Expense tools: employee claims from draft to reimbursement.

Contract: ``create_expense`` drafts a claim for an employee (default the acting user) against a
budget; ``submit_expense`` needs a receipt attached and may name an approver (a pending
approval is then created). ``approve_expense`` is refused for one's own claim, needs the
approver's limit to cover the amount (:func:`finance.approve_document`) and charges the amount
to the budget as spend, refused beyond headroom (``limit_exceeded``). ``reject_expense``
records the reason; a rejected claim can be corrected and resubmitted. ``pay_expense`` creates
a completed ACH reimbursement payment. ``list_expenses_awaiting_action`` names the next tool
for each open claim. Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import Args, non_blank
from silo.toolkit.results import snapshot, sorted_by_id
from silo.toolkit.schema import choice, day, flag, obj, text

from ..domain import approvals, budgets
from ..domain.money import round2
from ..state import mint_id, today
from . import finance
from .cash_flows import new_payment
from .common import WRITES, State, active_user, audit, page, parse_day
from .crud import get_tool, list_tool
from .schema import (
    EXPENSE_STATUSES,
    acting_on,
    actor,
    amount,
    listing,
    long_text,
    reason,
    record_id,
)

CATEGORIES = ("travel", "mileage", "meals", "lodging", "training", "supplies", "other")
NEXT_STEP = {
    "draft": "submit_expense",
    "submitted": "approve_expense",
    "approved": "pay_expense",
    "rejected": "submit_expense",
}


def _create(state: State, args: Args) -> dict[str, Any]:
    employee = active_user(state, str(args.get("employeeId", args["actorId"])), "employee")
    budget = budgets.budget_of(state, args["budgetId"])
    parse_day(args["expenseDate"], "expenseDate")
    if args["expenseDate"] > today(state):
        raise ToolError("invalid_input", f"expenseDate {args['expenseDate']} is in the future")
    expense = {
        "id": mint_id(state, "EXP"),
        "employeeId": employee["id"],
        "departmentId": employee["departmentId"],
        "budgetId": budget["id"],
        "category": args["category"],
        "description": non_blank(args["description"], "description"),
        "amount": round2(args["amount"]),
        "expenseDate": args["expenseDate"],
        "status": "draft",
        "receiptAttached": bool(args.get("receiptAttached", False)),
        "createdAt": state["now"],
        "submittedAt": None,
        "approvedBy": None,
        "approvedAt": None,
        "rejectionReason": None,
        "paymentId": None,
    }
    state["expenses"][expense["id"]] = expense
    audit(state, args, "expense.created", expense, {"amount": expense["amount"]})
    return snapshot(expense)


def _expense(state: State, args: Args, allowed: tuple[str, ...], verb: str) -> dict[str, Any]:
    return finance.acted_on(state, args, "expenses", "expenseId", allowed, verb)


def _submit(state: State, args: Args) -> dict[str, Any]:
    expense = _expense(state, args, ("draft", "rejected"), "submitted")
    attached = bool(args.get("receiptAttached", expense["receiptAttached"]))
    if not attached:
        raise ToolError(
            "invalid_state",
            f"{expense['id']} has no receipt; attach one (receiptAttached true) to submit",
            {"id": expense["id"]},
        )
    details: dict[str, Any] = {}
    if "approverId" in args:
        approver = finance.require_approver(state, args["approverId"])
        approval = approvals.request_approval(
            state, "expense", expense["id"], approver["id"], expense["amount"], args["actorId"]
        )
        details["approvalId"] = approval["id"]
    expense["receiptAttached"] = True
    expense["status"] = "submitted"
    expense["submittedAt"] = state["now"]
    expense["rejectionReason"] = None
    audit(state, args, "expense.submitted", expense, details)
    return snapshot(expense)


def _approve(state: State, args: Args) -> dict[str, Any]:
    expense = _expense(state, args, ("submitted",), "approved")
    decider = state["users"][args["actorId"]]
    if decider["id"] == expense["employeeId"]:
        raise ToolError("forbidden", "nobody may approve their own expense; ask a manager")
    budget = budgets.budget_of(state, expense["budgetId"])
    if not budgets.availability(budget, expense["amount"])["sufficient"]:
        # charge_spend refuses with the budget's own message before writing anything, and
        # refusing here keeps the approval untouched too.
        budgets.charge_spend(state, budget["id"], expense["amount"], f"expense {expense['id']}")
    approval = finance.approve_document(
        state, "expense", expense, decider, float(expense["amount"]), args.get("note", "")
    )
    budgets.charge_spend(state, budget["id"], expense["amount"], f"expense {expense['id']}")
    expense["status"] = "approved"
    expense["approvedBy"] = decider["id"]
    expense["approvedAt"] = state["now"]
    audit(state, args, "expense.approved", expense, {"approvalId": approval["id"]})
    return snapshot(expense)


def _reject(state: State, args: Args) -> dict[str, Any]:
    expense = _expense(state, args, ("submitted",), "rejected")
    note = non_blank(args["reason"], "reason")
    finance.reject_document(state, "expense", expense, state["users"][args["actorId"]], note)
    expense["status"] = "rejected"
    expense["rejectionReason"] = note
    audit(state, args, "expense.rejected", expense, {"reason": note})
    return snapshot(expense)


def _pay(state: State, args: Args) -> dict[str, Any]:
    expense = _expense(state, args, ("approved",), "paid (approve it first)")
    allocations = [{"invoiceId": expense["id"], "amount": expense["amount"]}]
    payment = new_payment(
        state,
        {**args, "method": "ach"},
        ("employee", expense["employeeId"]),
        allocations,
        status="completed",
    )
    expense["status"] = "paid"
    expense["paymentId"] = payment["id"]
    audit(state, args, "expense.paid", expense, {"paymentId": payment["id"]})
    return {"expense": snapshot(expense), "payment": snapshot(payment)}


def _awaiting(state: State, args: Args) -> dict[str, Any]:
    rows = [
        {
            **expense,
            "nextStep": NEXT_STEP[expense["status"]],
            "missingReceipt": not expense["receiptAttached"],
        }
        for expense in sorted_by_id(state["expenses"].values())
        if expense["status"] in ("draft", "submitted", "approved")
        and args.get("employeeId", expense["employeeId"]) == expense["employeeId"]
    ]
    return page(rows, args)


_EMPLOYEE = record_id("user", "Only this employee's expenses.")

TOOLS: list[Tool] = [
    list_tool(
        "list_expenses",
        "List expense claims. Filter by status, employee, department or budget.",
        "expenses",
        {
            "status": choice(EXPENSE_STATUSES, "Only claims in this status."),
            "employeeId": _EMPLOYEE,
            "departmentId": record_id("department", "Only this department's claims."),
            "budgetId": record_id("budget", "Only claims on this budget."),
        },
    ),
    get_tool(
        "get_expense", "One expense claim.", "expenses", "expense", "expenseId", example="EXP-002"
    ),
    WRITES.tool(
        "create_expense",
        "Draft an expense claim for an employee (default: the acting user) on a budget.",
        obj(
            {
                "actorId": actor(),
                "employeeId": record_id("user", "Employee claiming (default: the acting user)."),
                "budgetId": record_id("budget", "Budget charged."),
                "category": choice(CATEGORIES, "Kind of expense."),
                "description": text("What was bought and why.", max_length=500),
                "amount": amount("Amount claimed in US dollars."),
                "expenseDate": day("Date of the expense (not in the future)."),
                "receiptAttached": flag("Whether a receipt is attached.", False),
            },
            ["actorId", "budgetId", "category", "description", "amount", "expenseDate"],
        ),
        _create,
    ),
    WRITES.tool(
        "submit_expense",
        "Submit a draft (or corrected rejected) claim. A receipt is required; approverId "
        "creates a pending approval for that user.",
        obj(
            {
                "actorId": actor(),
                "expenseId": record_id("expense", "Claim to submit."),
                "approverId": record_id("user", "User who should approve it."),
                "receiptAttached": flag("Attach the receipt now."),
            },
            ["actorId", "expenseId"],
        ),
        _submit,
    ),
    WRITES.tool(
        "approve_expense",
        "Approve a submitted claim (not your own; limit must cover it). The amount is charged "
        "to the budget as spend; refused beyond the budget's headroom.",
        obj(
            {
                "actorId": actor(),
                "expenseId": record_id("expense", "Submitted claim."),
                "note": long_text("Optional approval note."),
            },
            ["actorId", "expenseId"],
        ),
        _approve,
    ),
    WRITES.tool(
        "reject_expense",
        "Reject a submitted claim with the reason; it can be corrected and resubmitted.",
        acting_on("expense", "expenseId", "Submitted claim.", reason=reason("Why it is rejected.")),
        _reject,
    ),
    WRITES.tool(
        "pay_expense",
        "Reimburse an approved claim: creates a completed ACH payment to the employee.",
        acting_on("expense", "expenseId", "Approved claim."),
        _pay,
    ),
    define_tool(
        "list_expenses_awaiting_action",
        "Open claims (draft, submitted, approved) with the tool that moves each one on.",
        listing({"employeeId": _EMPLOYEE}),
        _awaiting,
        read_only=True,
    ),
]

__all__ = ["CATEGORIES", "TOOLS"]
