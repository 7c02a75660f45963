"""ERP tasks end to end through the rollout engine (solver, no-op and the tool-path probe), the
reference's arithmetic traps through the tools, and the verifiers graded directly on hand-made
worlds (so each check is shown to fail when the behaviour it names is missing)."""

from __future__ import annotations

import copy
from types import MappingProxyType
from typing import Any

import pytest

import silo
from tests.environments.task_runs import PROJECT, TOOL_TASKS
from tests.environments.task_runs import run as run_in

TASKS = TOOL_TASKS["erp"]
PROBE = str(PROJECT / "environments" / "erp" / "probe.py")
PROBE_OUTPUT = (
    "tools=185 read:ok write:ok reread:ok undeclared-arg:rejected missing-required:rejected "
    "unknown-tool:rejected"
)
# What an untouched world scores: the checks that hold before anyone acts (a vendor still
# active, nothing written off, stock not altered, nothing paid against a cancelled order...).
NOOP_REWARDS = {
    "TASK-001": 0.5,
    "TASK-002": 0,
    "TASK-003": 0.33,
    "TASK-004": 0.25,
    "TASK-005": 0.25,
    "TASK-006": 0,
    "TASK-007": 0,
    "TASK-008": 0,
    "TASK-009": 0.25,
    "TASK-010": 0,
    "TASK-011": 0.17,
    "TASK-012": 0,
    "TASK-013": 0.2,
    "TASK-014": 0.2,
    "TASK-015": 0.5,
    "TASK-016": 0.2,
    "TASK-017": 0,
    "TASK-018": 0.6,
}


@pytest.fixture(scope="module")
def erp() -> silo.Environment:
    return silo.load_environment("erp", PROJECT)


def run(task: str, agent: Any) -> silo.RolloutResult:
    return run_in("erp", task, agent)


# --- the no-op agent and the probe --------------------------------------------


@pytest.mark.parametrize("task", TASKS)
def test_noop_scores_the_listed_reward_and_changes_nothing(task: str) -> None:
    result = run(
        task, "noop"
    )  # that it fails without a call: tests/environments/test_every_task.py
    assert result.reward == NOOP_REWARDS[task]
    assert result.state_diff == {"scalars": [], "collections": {}}


def test_probe_takes_every_tool_path() -> None:
    result = run("TASK-013", PROBE)
    assert result.result["agentOutput"] == PROBE_OUTPUT
    assert (result.result["toolCalls"], result.result["toolErrors"]) == (6, 3)
    assert result.reward == 0.6 and not result.passed
    assert result.result["failedRequired"] == [
        "The latest three-way match passes",
        "The invoice is approved",
    ]
    assert result.state_diff["collections"] == {
        "vendorInvoices": {"added": [], "removed": [], "changed": ["VINV-103"]},
        "auditLog": {"added": ["AUD-0021"], "removed": [], "changed": []},
        "sequences": {"added": [], "removed": [], "changed": ["AUD"]},
    }


def test_every_task_has_its_verifier(erp: silo.Environment) -> None:
    assert sorted(erp.tasks) == TASKS
    assert {t.verifier_id for t in erp.tasks.values()} == set(erp.verifiers)
    assert erp.verifiers["VER-017"].name == "Full procure-to-pay cycle completed"


def test_validates_clean_with_deep_checks() -> None:
    report = silo.validate_environment("erp", PROJECT, deep=True)
    # Weighted rewards (the goldens'): the no-op agent's floor is reported as a warning only.
    found = [(f.code, f.message) for f in report.findings if f.code != "noop_rewarded"]
    assert found == [] and report.ok
    assert report.counts == {"data": 26, "tasks": 18, "tools": 185, "verifiers": 18}


def test_the_docs_list_every_tool_once(erp: silo.Environment) -> None:
    docs = (PROJECT / "docs" / "erp.md").read_text(encoding="utf-8")
    listed = [line.split("`")[1] for line in docs.splitlines() if line.startswith("- `")]
    assert listed == [tool.name for tool in erp.bind_tools(erp.create_state())]


# --- verifiers on hand-made worlds ---------------------------------------------------------


def frozen(value: Any) -> Any:
    """A read-only view of a world, like the snapshot the engine hands to verifiers."""
    if isinstance(value, dict):
        return MappingProxyType({k: frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    return value


def failed(erp: silo.Environment, task_id: str, final: Any, initial: Any) -> set[str]:
    """Labels of the checks (required or not) that fail for ``final`` against ``initial``."""
    task = erp.task(task_id)
    checks = erp.verifier_for(task).check(
        frozen(final), frozen(initial), silo.VerifierContext("", task)
    )
    return {c.label for c in checks if not c.passed}


def _ship_split(world: dict[str, Any], north: int, south: int) -> None:
    """SO-307's 150 V-belts shipped from WH-001 and WH-002, as fulfil_sales_order would."""
    world["salesOrders"]["SO-307"]["status"] = "fulfilled"
    world["salesOrders"]["SO-307"]["lines"][0]["fulfilledQuantity"] = north + south
    for n, (site, qty) in enumerate((("WH-001", north), ("WH-002", south)), 4):
        world["inventory"][f"STK-PRD-003-{site}"]["onHand"] -= qty
        world["fulfillments"][f"FUL-00{n}"] = {
            "id": f"FUL-00{n}",
            "salesOrderId": "SO-307",
            "status": "shipped",
            "lines": [{"productId": "PRD-003", "warehouseId": site, "quantity": qty}],
        }


def test_split_shipment_passes_and_a_transfer_fails_it(erp: silo.Environment) -> None:
    initial = erp.create_state()
    final = copy.deepcopy(initial)
    _ship_split(final, 95, 55)
    assert failed(erp, "TASK-014", final, initial) == set()
    final["inventoryMovements"]["MOV-099"] = {
        "id": "MOV-099",
        "productId": "PRD-003",
        "warehouseId": "WH-002",
        "type": "transfer_in",
        "quantity": 15,
        "at": initial["now"],
        "referenceType": "transfer",
    }
    assert failed(erp, "TASK-014", final, initial) == {
        "No stock was transferred between warehouses first"
    }


def test_split_shipment_from_one_site_fails(erp: silo.Environment) -> None:
    initial = erp.create_state()
    initial["inventory"]["STK-PRD-003-WH-001"]["onHand"] = 150
    final = copy.deepcopy(initial)
    _ship_split(final, 150, 0)
    assert failed(erp, "TASK-014", final, initial) == {
        "Stock came out of each of WH-001 and WH-002"
    }


def _award(world: dict[str, Any], quote: str) -> None:
    world["rfqs"]["RFQ-002"]["awardedQuotationId"] = quote
    world["quotations"][quote]["status"] = "accepted"


def test_awarding_the_expired_cheapest_quotation_fails(erp: silo.Environment) -> None:
    initial = erp.create_state()
    final = copy.deepcopy(initial)
    _award(final, "QUO-005")
    assert {
        "RFQ-002 was awarded to QUO-006, the cheapest valid quotation",
        "The cheaper but invalid QUO-005 was not accepted",
    } <= failed(erp, "TASK-011", final, initial)


def test_the_valid_winner_is_derived_from_the_initial_clock(erp: silo.Environment) -> None:
    initial = erp.create_state()
    initial["quotations"]["QUO-005"]["validUntil"] = "2026-12-31"  # no longer expired
    final = copy.deepcopy(initial)
    _award(final, "QUO-005")
    labels = failed(erp, "TASK-011", final, initial)
    assert "RFQ-002 was awarded to QUO-005, the cheapest valid quotation" not in labels


def _approve(world: dict[str, Any], approval: str, decider: str) -> None:
    world["approvals"][approval].update(status="approved", decidedBy=decider)
    entity = world["approvals"][approval]["entityId"]
    world["requisitions"][entity]["status"] = "approved"


def test_escalation_needs_an_authorised_decider(erp: silo.Environment) -> None:
    initial = erp.create_state()
    final = copy.deepcopy(initial)
    _approve(final, "APR-005", "USR-008")
    assert failed(erp, "TASK-015", final, initial) == set()
    final = copy.deepcopy(initial)
    _approve(final, "APR-005", "USR-003")
    assert failed(erp, "TASK-015", final, initial) == {
        "The approver was authorised for the amount",
        "It was not approved by the user who lacked authority",
    }


def test_escalation_must_not_shrink_the_requisition(erp: silo.Environment) -> None:
    initial = erp.create_state()
    final = copy.deepcopy(initial)
    _approve(final, "APR-005", "USR-003")
    final["requisitions"]["PR-006"]["estimatedTotal"] = 149000
    assert "The requisition value was not reduced to dodge the limit" in failed(
        erp, "TASK-015", final, initial
    )


def test_credit_hold_target_is_derived_from_the_initial_world(erp: silo.Environment) -> None:
    initial = erp.create_state()
    final = copy.deepcopy(initial)
    final["customers"]["CUS-003"].update(status="credit_hold", statusReason="Non-payment")
    assert failed(erp, "TASK-003", final, initial) == set()
    initial["customerInvoices"]["CINV-404"]["total"] = 90000  # CUS-005 now owes the most
    labels = failed(erp, "TASK-003", final, initial)
    assert any(label.startswith("CUS-005 (largest overdue balance") for label in labels)


def test_writing_off_an_overdue_invoice_fails_the_credit_hold(erp: silo.Environment) -> None:
    initial = erp.create_state()
    final = copy.deepcopy(initial)
    final["customers"]["CUS-003"].update(status="credit_hold", statusReason="Non-payment")
    final["customerInvoices"]["CINV-407"]["status"] = "written_off"
    assert failed(erp, "TASK-003", final, initial) == {"No overdue invoice was written off"}


def test_rejection_that_commits_budget_fails(erp: silo.Environment) -> None:
    initial = erp.create_state()
    final = copy.deepcopy(initial)
    final["requisitions"]["PR-002"]["status"] = "rejected"
    final["budgets"]["BUD-004"]["committed"] += 3900
    assert failed(erp, "TASK-005", final, initial) == {
        "The approval records the rejection",
        "A reason was captured",
        "No budget was committed",
    }


def _completed_payment(world: dict[str, Any], invoice: str, amount: float) -> None:
    world["payments"]["PAY-007"] = {
        "id": "PAY-007",
        "status": "completed",
        "allocations": [{"invoiceId": invoice, "amount": amount}],
    }


def _pay_in_full(world: dict[str, Any], invoice: str) -> None:
    """The invoice paid by one completed payment, as complete_payment would leave it."""
    bill = world["vendorInvoices"][invoice]
    bill.update(status="paid", amountPaid=bill["total"])
    _completed_payment(world, invoice, bill["total"])


def test_paying_the_wrong_invoice_fails_the_due_this_week_task(erp: silo.Environment) -> None:
    initial = erp.create_state()
    final = copy.deepcopy(initial)
    _pay_in_full(final, "VINV-108")
    assert "VINV-107 is paid" in failed(erp, "TASK-008", final, initial)
    assert failed(erp, "TASK-016", final, initial) == {"The vendor's contact email was corrected"}


def test_the_invoice_due_this_week_is_derived_from_the_initial_world(
    erp: silo.Environment,
) -> None:
    initial = erp.create_state()
    initial["vendorInvoices"]["VINV-107"]["dueDate"] = "2026-04-30"  # no longer due this week
    initial["vendorInvoices"]["VINV-105"].update(status="approved", dueDate="2026-03-20")
    final = copy.deepcopy(initial)
    _pay_in_full(final, "VINV-105")
    assert failed(erp, "TASK-008", final, initial) == set()


def _repriced(world: dict[str, Any], invoice: str, **line: float) -> None:
    doc = world["vendorInvoices"][invoice]
    doc["lines"][0].update(line)
    doc["status"] = "approved"
    match = f"MATCH-0{len(world['threeWayMatches']) + 1:02d}"
    world["threeWayMatches"][match] = {"id": match, "vendorInvoiceId": invoice, "status": "matched"}


def test_price_fix_must_keep_the_quantity(erp: silo.Environment) -> None:
    initial = erp.create_state()
    final = copy.deepcopy(initial)
    _repriced(final, "VINV-103", unitPrice=82)
    # the stored total was not recalculated: only the optional total check fails
    assert failed(erp, "TASK-013", final, initial) == {"Invoice total was recalculated to 7084.8"}
    _repriced(final, "VINV-103", unitPrice=82, quantity=79)
    assert "The quantity was left at 80" in failed(erp, "TASK-013", final, initial)


def test_quantity_fix_needs_the_received_quantity(erp: silo.Environment) -> None:
    initial = erp.create_state()
    final = copy.deepcopy(initial)
    _repriced(final, "VINV-104", quantity=240)
    final["purchaseOrders"]["PO-203"]["lines"][0]["invoicedQuantity"] = 240
    assert "The over-billed line now bills the 250 units received" in failed(
        erp, "TASK-012", final, initial
    )


def test_closing_a_paid_invoice_fails_the_reconciliation(erp: silo.Environment) -> None:
    initial = erp.create_state()
    final = copy.deepcopy(initial)
    final["vendorInvoices"]["VINV-106"]["status"] = "cancelled"
    assert failed(erp, "TASK-018", final, initial) == {"The action was recorded in the audit log"}
    _completed_payment(final, "VINV-106", 100)
    assert "No money was paid against the invoice" in failed(erp, "TASK-018", final, initial)


# --- the reference's traps, through the tools --------------------------------------------


def attempt(task: str, calls: list[tuple[str, dict[str, Any]]]) -> silo.RolloutResult:
    """A rollout whose agent makes ``calls`` in order and reports how each came back."""

    def agent(inp: Any) -> dict[str, Any]:
        seen = []
        for name, args in calls:
            result = inp.call_tool(name, args)
            out = result["output"]
            seen.append({"isError": result["isError"], "code": out.get("code"), "output": out})
        return {"output": seen}

    return run(task, agent)


def codes(result: silo.RolloutResult) -> list[str | None]:
    return [step["code"] if step["isError"] else None for step in result.result["agentOutput"]]


def test_pr002_cannot_be_approved_on_budget_headroom() -> None:
    approve = ("approve_requisition", {"actorId": "USR-003", "requisitionId": "PR-002"})
    check = ("check_requisition_budget", {"requisitionId": "PR-002"})
    result = attempt("TASK-005", [check, approve])
    assert codes(result) == [None, "limit_exceeded"]
    budget = result.result["agentOutput"][0]["output"]
    assert (budget["headroom"], budget["amount"], budget["shortfall"]) == (2400, 3900, 1500)
    assert result.state_diff == {"scalars": [], "collections": {}}


SPLIT_FROM_ONE_SITE = {
    "actorId": "USR-004",
    "salesOrderId": "SO-307",
    "lines": [{"lineId": "SO-307-L1", "quantity": 150, "warehouseId": "WH-001"}],
}


@pytest.mark.parametrize(
    "task,tool,args,code",
    [
        # 176,200 is beyond Priya's 150k limit
        (
            "TASK-015",
            "approve_requisition",
            {"actorId": "USR-003", "requisitionId": "PR-006"},
            "forbidden",
        ),
        # the cheapest quotation on RFQ-002 expired on 2026-03-10
        (
            "TASK-011",
            "accept_quotation",
            {"actorId": "USR-002", "quotationId": "QUO-005"},
            "invalid_state",
        ),
        # WH-001 holds 95 of the 150 V-belts SO-307 needs
        ("TASK-014", "fulfill_sales_order", SPLIT_FROM_ONE_SITE, "insufficient_stock"),
    ],
)
def test_a_trap_is_refused_and_leaves_the_world_untouched(
    task: str, tool: str, args: dict[str, Any], code: str
) -> None:
    result = attempt(task, [(tool, args)])
    assert codes(result) == [code]
    assert result.state_diff == {"scalars": [], "collections": {}}


def test_task017_needs_the_allocation_raised_before_approval() -> None:
    make = {
        "actorId": "USR-011",
        "requesterId": "USR-011",
        "departmentId": "DEPT-FAC",
        "budgetId": "BUD-004",
        "title": "Floor cleaner",
        "lines": [{"productId": "PRD-020", "quantity": 20, "unitPrice": 154}],
    }
    submit = {"actorId": "USR-011", "requisitionId": "PR-007", "approverId": "USR-003"}
    approve = {"actorId": "USR-003", "requisitionId": "PR-007"}
    raise_by_shortfall = {"actorId": "USR-008", "budgetId": "BUD-004", "allocated": 24680}
    result = attempt(
        "TASK-017",
        [
            ("create_requisition", make),
            ("submit_requisition", submit),
            ("check_requisition_budget", {"requisitionId": "PR-007"}),
            ("approve_requisition", approve),
            ("update_budget", raise_by_shortfall),
            ("approve_requisition", approve),
        ],
    )
    assert codes(result) == [None, None, None, "limit_exceeded", None, None]
    assert result.result["agentOutput"][2]["output"]["shortfall"] == 680


# --- wrong agents fail the check that names their mistake ---------------------------------


def _call(inp: Any, name: str, args: dict[str, Any]) -> Any:
    result = inp.call_tool(name, args)
    assert not result["isError"], result["output"]
    return result["output"]


def transfers_then_ships(inp: Any) -> dict[str, str]:
    move = {"productId": "PRD-003", "fromWarehouseId": "WH-002", "toWarehouseId": "WH-001"}
    _call(inp, "transfer_inventory", {"actorId": "USR-004", **move, "quantity": 55})
    line = {"lineId": "SO-307-L1", "quantity": 150, "warehouseId": "WH-001"}
    ship = {"actorId": "USR-004", "salesOrderId": "SO-307", "lines": [line]}
    _call(inp, "fulfill_sales_order", ship)
    return {"output": "shipped"}


def raises_the_budget_and_approves(inp: Any) -> dict[str, str]:
    _call(inp, "update_budget", {"actorId": "USR-008", "budgetId": "BUD-004", "allocated": 25500})
    _call(inp, "approve_requisition", {"actorId": "USR-003", "requisitionId": "PR-002"})
    return {"output": "approved"}


def awards_a_dearer_valid_quotation(inp: Any) -> dict[str, str]:
    _call(inp, "accept_quotation", {"actorId": "USR-002", "quotationId": "QUO-004"})
    return {"output": "awarded QUO-004"}


@pytest.mark.parametrize(
    "task,agent,failed",
    [
        ("TASK-014", transfers_then_ships, {"No stock was transferred between warehouses first"}),
        (
            "TASK-005",
            raises_the_budget_and_approves,
            {"PR-002 was rejected, not approved", "No budget was committed"},
        ),
        (
            "TASK-011",
            awards_a_dearer_valid_quotation,
            {
                "RFQ-002 was awarded to QUO-006, the cheapest valid quotation",
                "A purchase order was raised on VEN-012",
                "It carries the quoted quantities and prices",
                "It is approved but not yet sent",
            },
        ),
    ],
)
def test_wrong_agent_fails(task: str, agent: Any, failed: set[str]) -> None:
    result = run(task, agent)
    assert not result.passed and result.result["toolErrors"] == 0
    assert set(result.result["failedRequired"]) == failed
