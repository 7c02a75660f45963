"""ERP payment and expense tools: draft -> approval -> completion, no over-payment, failure and
retry, customer receipts, the payment run, and expense approval charging budget spend."""

from __future__ import annotations

from tests.environments.erp_helpers import ErpCaller

CLERK, AP_MANAGER, CONTROLLER = "USR-006", "USR-007", "USR-008"


def _settle(erp: ErpCaller, payment_id: str) -> dict:
    erp("submit_payment_for_approval", actorId=CLERK, paymentId=payment_id, approverId=AP_MANAGER)
    erp("approve_payment", actorId=AP_MANAGER, paymentId=payment_id)
    return erp("complete_payment", actorId=CLERK, paymentId=payment_id, reference="BANK-1")


def test_vendor_payment_runs_through_approval_and_settles_the_invoice() -> None:
    erp = ErpCaller()
    draft = erp("create_vendor_payment", actorId=CLERK, vendorInvoiceId="VINV-107")
    assert (draft["id"], draft["status"], draft["amount"], draft["method"]) == (
        "PAY-007",
        "draft",
        3259.44,
        "bank_transfer",
    )
    erp.refused("complete_payment", "invalid_state", actorId=CLERK, paymentId="PAY-007")
    erp("submit_payment_for_approval", actorId=CLERK, paymentId="PAY-007", approverId=AP_MANAGER)
    erp.refused("approve_payment", "forbidden", actorId=CLERK, paymentId="PAY-007")
    erp.refused(
        "submit_payment_for_approval",
        "invalid_state",
        actorId=CLERK,
        paymentId="PAY-007",
        approverId=AP_MANAGER,
    )
    approved = erp("approve_payment", actorId=AP_MANAGER, paymentId="PAY-007")
    assert (approved["approvedBy"], approved["approvedAt"]) == (AP_MANAGER, erp.state["now"])
    done = erp("complete_payment", actorId=CLERK, paymentId="PAY-007")
    assert done["status"] == "completed"
    invoice = erp("get_vendor_invoice", vendorInvoiceId="VINV-107")
    assert (invoice["status"], invoice["amountPaid"], invoice["outstanding"]) == (
        "paid",
        3259.44,
        0,
    )
    listed = erp("list_payments_for_invoice", invoiceId="VINV-107")
    assert listed["completedTotal"] == 3259.44 and listed["total"] == 1
    assert erp.audit_actions() == [
        "payment.created",
        "payment.submitted",
        "payment.approved",
        "payment.completed",
    ]


def test_no_over_payment_counting_payments_in_flight() -> None:
    erp = ErpCaller()
    part = erp("create_vendor_payment", actorId=CLERK, vendorInvoiceId="VINV-107", amount=1000)
    erp.refused(
        "create_vendor_payment",
        "invalid_input",
        actorId=CLERK,
        vendorInvoiceId="VINV-107",
        amount=2500,
    )
    rest = erp("create_vendor_payment", actorId=CLERK, vendorInvoiceId="VINV-107")
    assert rest["amount"] == 2259.44
    # Approved-only: an exception invoice cannot be paid.
    erp.refused("create_vendor_payment", "invalid_state", actorId=CLERK, vendorInvoiceId="VINV-103")
    _settle(erp, part["id"])
    assert erp.state["vendorInvoices"]["VINV-107"]["status"] == "partially_paid"
    cancelled = erp("cancel_payment", actorId=CLERK, paymentId=rest["id"], reason="pay next run")
    assert cancelled["status"] == "cancelled"
    erp.refused(
        "cancel_payment", "invalid_state", actorId=CLERK, paymentId=part["id"], reason="too late"
    )


def test_failed_payment_stays_on_record_and_retry_pays_what_is_owed() -> None:
    erp = ErpCaller()
    erp.refused("retry_failed_payment", "invalid_state", actorId=CLERK, paymentId="PAY-001")
    fresh = erp("retry_failed_payment", actorId=CLERK, paymentId="PAY-003")
    assert (fresh["id"], fresh["amount"], fresh["retryOfPaymentId"]) == (
        "PAY-007",
        1127.52,
        "PAY-003",
    )
    erp.refused("retry_failed_payment", "invalid_input", actorId=CLERK, paymentId="PAY-003")
    _settle(erp, fresh["id"])
    assert erp.state["payments"]["PAY-003"]["status"] == "failed"
    invoice = erp("get_vendor_invoice", vendorInvoiceId="VINV-108")
    assert (invoice["status"], invoice["isOverdue"]) == ("paid", False)


def test_fail_payment_leaves_balances_untouched() -> None:
    erp = ErpCaller()
    draft = erp("create_vendor_payment", actorId=CLERK, vendorInvoiceId="VINV-107", method="wire")
    erp("approve_payment", actorId=AP_MANAGER, paymentId=draft["id"])
    failed = erp(
        "fail_payment", actorId=CLERK, paymentId=draft["id"], reason="beneficiary bank rejected"
    )
    assert (failed["status"], failed["failureReason"]) == ("failed", "beneficiary bank rejected")
    assert erp.state["vendorInvoices"]["VINV-107"] == erp.initial["vendorInvoices"]["VINV-107"]
    erp.refused("complete_payment", "invalid_state", actorId=CLERK, paymentId=draft["id"])


def test_approving_a_payment_needs_authority() -> None:
    erp = ErpCaller()
    erp(
        "update_vendor_invoice_line",
        actorId=CLERK,
        vendorInvoiceId="VINV-104",
        lineId="VINV-104-L1",
        quantity=250,
    )
    erp("run_three_way_match", actorId=CLERK, vendorInvoiceId="VINV-104")
    erp("approve_vendor_invoice", actorId=AP_MANAGER, vendorInvoiceId="VINV-104")
    draft = erp("create_vendor_payment", actorId=CLERK, vendorInvoiceId="VINV-104")
    erp.refused("approve_payment", "forbidden", actorId="USR-009", paymentId=draft["id"])
    erp.refused(
        "submit_payment_for_approval",
        "invalid_input",
        actorId=CLERK,
        paymentId=draft["id"],
        approverId="USR-004",
    )


def test_customer_payment_completes_at_once_and_is_capped() -> None:
    erp = ErpCaller()
    erp.refused(
        "record_customer_payment",
        "invalid_input",
        actorId=CLERK,
        customerInvoiceId="CINV-402",
        amount=9000,
    )
    erp.refused(
        "record_customer_payment", "invalid_state", actorId=CLERK, customerInvoiceId="CINV-406"
    )
    part = erp(
        "record_customer_payment",
        actorId=CLERK,
        customerInvoiceId="CINV-403",
        amount=5000,
        method="check",
    )
    assert (part["direction"], part["status"], part["partyId"]) == (
        "inbound",
        "completed",
        "CUS-003",
    )
    assert erp.state["customerInvoices"]["CINV-403"]["status"] == "partially_paid"
    rest = erp("record_customer_payment", actorId=CLERK, customerInvoiceId="CINV-403")
    assert rest["amount"] == 10206.4
    assert erp.state["customerInvoices"]["CINV-403"]["status"] == "paid"


def test_payment_run_groups_payable_invoices_by_vendor_without_writing() -> None:
    erp = ErpCaller()
    run = erp("build_payment_run")
    assert [group["vendorId"] for group in run["vendors"]] == ["VEN-002", "VEN-006"]
    assert run["total"] == 4386.96
    assert run["vendors"][0]["invoices"][0]["isOverdue"] is True
    assert erp("build_payment_run", includeOverdue=False)["total"] == 3259.44
    assert erp("build_payment_run", dueWithinDays=2, includeOverdue=False)["vendors"] == []
    assert erp.state == erp.initial
    erp("create_vendor_payment", actorId=CLERK, vendorInvoiceId="VINV-107")
    assert erp("build_payment_run")["total"] == 1127.52


def test_listing_and_reading_payments() -> None:
    erp = ErpCaller()
    inbound = erp("list_payments", direction="inbound")
    assert [p["id"] for p in inbound["results"]] == ["PAY-004", "PAY-005"]
    assert erp("get_payment", paymentId="PAY-003")["status"] == "failed"
    erp.refused("get_payment", "not_found", paymentId="PAY-099")
    erp.refused("list_payments_for_invoice", "not_found", invoiceId="VINV-999")


def test_expense_life_cycle_charges_budget_spend_within_headroom() -> None:
    erp = ErpCaller()
    draft = erp(
        "create_expense",
        actorId="USR-011",
        budgetId="BUD-004",
        category="supplies",
        description="Mop heads",
        amount=2500,
        expenseDate="2026-03-15",
    )
    assert (draft["id"], draft["departmentId"], draft["status"]) == ("EXP-006", "DEPT-FAC", "draft")
    erp.refused("submit_expense", "invalid_state", actorId="USR-011", expenseId="EXP-006")
    submitted = erp("submit_expense", actorId="USR-011", expenseId="EXP-006", receiptAttached=True)
    assert submitted["status"] == "submitted"
    erp.refused("approve_expense", "forbidden", actorId="USR-011", expenseId="EXP-006")
    # BUD-004 has 2,400 headroom: 2,500 is refused and nothing is written.
    erp.refused("approve_expense", "limit_exceeded", actorId=CONTROLLER, expenseId="EXP-006")
    rejected = erp("reject_expense", actorId=CONTROLLER, expenseId="EXP-006", reason="split it")
    assert rejected["rejectionReason"] == "split it"
    erp.refused(
        "create_expense",
        "invalid_input",
        actorId="USR-011",
        budgetId="BUD-004",
        category="meals",
        description="Future lunch",
        amount=10,
        expenseDate="2026-04-01",
    )


def test_expense_approval_and_reimbursement() -> None:
    erp = ErpCaller()
    spent = erp.state["budgets"]["BUD-001"]["spent"]
    approved = erp("approve_expense", actorId=CONTROLLER, expenseId="EXP-002", note="ok")
    assert (approved["status"], approved["approvedBy"]) == ("approved", CONTROLLER)
    assert erp.state["budgets"]["BUD-001"]["spent"] == round(spent + 138.4, 2)
    paid = erp("pay_expense", actorId=CLERK, expenseId="EXP-002")
    assert paid["expense"]["status"] == "paid" and paid["expense"]["paymentId"] == "PAY-007"
    assert (paid["payment"]["method"], paid["payment"]["status"], paid["payment"]["partyType"]) == (
        "ach",
        "completed",
        "employee",
    )
    erp.refused("pay_expense", "invalid_state", actorId=CLERK, expenseId="EXP-002")
    waiting = erp("list_expenses_awaiting_action")
    assert {row["id"]: row["nextStep"] for row in waiting["results"]} == {
        "EXP-003": "pay_expense",
        "EXP-004": "submit_expense",
    }
    assert erp("list_expenses", status="rejected")["results"][0]["id"] == "EXP-005"


def test_expense_with_a_named_approver_is_decided_by_that_user() -> None:
    erp = ErpCaller()
    erp(
        "submit_expense",
        actorId="USR-011",
        expenseId="EXP-004",
        receiptAttached=True,
        approverId="USR-003",
    )
    erp.refused("approve_expense", "forbidden", actorId=CONTROLLER, expenseId="EXP-004")
    approved = erp("approve_expense", actorId="USR-003", expenseId="EXP-004")
    assert approved["status"] == "approved"


def test_get_expense_and_refusals_for_unknown_records() -> None:
    erp = ErpCaller()
    assert erp("get_expense", expenseId="EXP-005")["rejectionReason"].startswith("Client dinner")
    erp.refused("get_expense", "not_found", expenseId="EXP-099")
    erp.refused("pay_expense", "not_found", actorId="USR-099", expenseId="EXP-003")
