"""ERP vendor-invoice tools: registration, three-way match (2 % price / 0 % quantity), blockers,
correction, approval authority, rejection, disputes and cancellation."""

from __future__ import annotations

from tests.environments.erp_helpers import ErpCaller, erp_tools

CLERK, AP_MANAGER, CONTROLLER = "USR-006", "USR-007", "USR-008"


def _match(erp: ErpCaller, invoice_id: str, **extra: object) -> dict:
    return erp("run_three_way_match", actorId=CLERK, vendorInvoiceId=invoice_id, **extra)


def test_seed_invoices_show_their_messes() -> None:
    erp = ErpCaller()
    grease = erp("get_vendor_invoice", vendorInvoiceId="VINV-103")
    assert (grease["total"], grease["outstanding"], grease["match"]["status"]) == (
        7430.4,
        7430.4,
        "failed",
    )
    assert grease["approval"]["id"] == "APR-017" and grease["vendorName"] == "Northfield Lubricants"
    overdue = erp("list_overdue_vendor_invoices")
    assert [row["id"] for row in overdue["results"]] == ["VINV-108"]
    assert overdue["results"][0]["daysOverdue"] == 8
    due = erp("list_invoices_due_soon")
    assert [row["id"] for row in due["results"]] == ["VINV-107"]
    assert erp("list_invoices_due_soon", days=3)["total"] == 0
    listed = erp("list_vendor_invoices", status="exception")
    assert [row["id"] for row in listed["results"]] == ["VINV-103", "VINV-104"]
    found = erp("search_vendor_invoices", query="tsf-104882")
    assert [row["id"] for row in found["results"]] == ["VINV-104"]


def test_match_finds_price_and_quantity_mismatches_with_two_decimal_messages() -> None:
    erp = ErpCaller()
    price = _match(erp, "VINV-103")
    assert (price["id"], price["status"], price["vendorInvoiceStatus"]) == (
        "MATCH-007",
        "failed",
        "exception",
    )
    assert (price["priceTolerancePct"], price["quantityTolerancePct"]) == (2, 0)
    [problem] = price["discrepancies"]
    assert (problem["type"], problem["expected"], problem["actual"]) == (
        "price_mismatch",
        82.0,
        86.0,
    )
    assert (
        "86.00" in problem["message"]
        and "82.00" in problem["message"]
        and "4.88%" in problem["message"]
    )
    # 4.88 % over the PO price passes only with a tolerance above it.
    assert _match(erp, "VINV-103", priceTolerancePct=5)["status"] == "matched"
    quantity = _match(erp, "VINV-104")
    [short] = quantity["discrepancies"]
    assert (short["type"], short["expected"], short["actual"]) == ("quantity_mismatch", 250, 300)
    assert quantity["goodsReceiptIds"] == ["GR-003"]
    assert erp.audit_actions() == ["three_way_match.run"] * 3


def test_match_without_receipts_or_po_line_is_a_discrepancy() -> None:
    erp = ErpCaller()
    cancelled_po = _match(erp, "VINV-106")
    assert [d["type"] for d in cancelled_po["discrepancies"]] == ["no_receipt", "quantity_mismatch"]
    erp.state["vendorInvoices"]["VINV-105"]["lines"][0]["poLineId"] = "PO-201-L9"
    stray = _match(erp, "VINV-105")
    assert [d["type"] for d in stray["discrepancies"]] == ["unknown_po_line"]
    erp.state["vendorInvoices"]["VINV-105"]["purchaseOrderId"] = None
    assert [d["type"] for d in _match(erp, "VINV-105")["discrepancies"]] == ["no_purchase_order"]


def test_explain_invoice_block_names_the_fix() -> None:
    erp = ErpCaller()
    bolts = erp("explain_invoice_block", vendorInvoiceId="VINV-104")
    assert bolts["blocked"] and not bolts["canBeApproved"]
    [blocker] = bolts["blockers"]
    assert blocker["type"] == "quantity_mismatch"
    assert "update_vendor_invoice_line" in blocker["fixWith"]
    unmatched = erp("explain_invoice_block", vendorInvoiceId="VINV-105")
    assert [b["fixWith"] for b in unmatched["blockers"]] == [["run_three_way_match"]]
    paid = erp("explain_invoice_block", vendorInvoiceId="VINV-101")
    assert not paid["blocked"] and paid["blockers"] == []
    discrepancies = erp("list_invoice_discrepancies")
    assert [row["vendorInvoiceId"] for row in discrepancies["results"]] == ["VINV-103", "VINV-104"]
    assert erp.state == erp.initial


def test_correcting_a_line_reprices_clears_the_match_and_moves_po_invoiced_quantity() -> None:
    erp = ErpCaller()
    fixed = erp(
        "update_vendor_invoice_line",
        actorId=CLERK,
        vendorInvoiceId="VINV-104",
        lineId="VINV-104-L1",
        quantity=250,
    )
    assert (fixed["status"], fixed["matchId"], fixed["subtotal"], fixed["total"]) == (
        "pending_match",
        None,
        5655,
        6107.4,
    )
    assert erp.state["purchaseOrders"]["PO-203"]["lines"][0]["invoicedQuantity"] == 250
    erp.refused(
        "update_vendor_invoice_line",
        "conflict",
        actorId=CLERK,
        vendorInvoiceId="VINV-104",
        lineId="VINV-104-L1",
        quantity=250,
    )
    erp.refused(
        "update_vendor_invoice_line",
        "invalid_input",
        actorId=CLERK,
        vendorInvoiceId="VINV-104",
        lineId="VINV-104-L1",
    )
    erp.refused(
        "update_vendor_invoice_line",
        "not_found",
        actorId=CLERK,
        vendorInvoiceId="VINV-104",
        lineId="VINV-104-L7",
        quantity=1,
    )
    erp.refused(
        "update_vendor_invoice_line",
        "invalid_state",
        actorId=CLERK,
        vendorInvoiceId="VINV-107",
        lineId="VINV-107-L1",
        quantity=1,
    )


def test_approval_needs_a_passing_match_the_named_approver_and_authority() -> None:
    erp = ErpCaller()
    erp.refused(
        "approve_vendor_invoice", "invalid_state", actorId=AP_MANAGER, vendorInvoiceId="VINV-103"
    )
    erp.refused(
        "submit_vendor_invoice_for_approval",
        "invalid_state",
        actorId=CLERK,
        vendorInvoiceId="VINV-103",
        approverId=AP_MANAGER,
    )
    erp(
        "update_vendor_invoice_line",
        actorId=CLERK,
        vendorInvoiceId="VINV-103",
        lineId="VINV-103-L1",
        unitPrice=82,
    )
    assert _match(erp, "VINV-103")["status"] == "matched"
    # APR-017 names Sofia Duarte: the clerk may not decide it.
    erp.refused("approve_vendor_invoice", "forbidden", actorId=CLERK, vendorInvoiceId="VINV-103")
    submitted = erp(
        "submit_vendor_invoice_for_approval",
        actorId=CLERK,
        vendorInvoiceId="VINV-103",
        approverId=AP_MANAGER,
    )
    assert submitted["status"] == "pending_approval" and submitted["approval"]["id"] == "APR-017"
    approved = erp("approve_vendor_invoice", actorId=AP_MANAGER, vendorInvoiceId="VINV-103")
    assert approved["status"] == "approved" and approved["total"] == 7084.8
    approval = erp.state["approvals"]["APR-017"]
    assert (approval["status"], approval["decidedBy"], approval["amount"]) == (
        "approved",
        AP_MANAGER,
        7084.8,
    )
    erp.refused(
        "approve_vendor_invoice", "invalid_state", actorId=AP_MANAGER, vendorInvoiceId="VINV-103"
    )


def test_direct_approval_records_a_decided_approval_within_the_limit() -> None:
    erp = ErpCaller()
    erp(
        "update_vendor_invoice_line",
        actorId=CLERK,
        vendorInvoiceId="VINV-104",
        lineId="VINV-104-L1",
        quantity=250,
    )
    _match(erp, "VINV-104")
    # The clerk's limit is 10,000: enough for 6,107.40; a user without a limit is refused.
    erp.refused(
        "approve_vendor_invoice", "forbidden", actorId="USR-009", vendorInvoiceId="VINV-104"
    )
    approved = erp(
        "approve_vendor_invoice", actorId=CLERK, vendorInvoiceId="VINV-104", note="250 boxes"
    )
    assert (
        approved["approval"]["decidedBy"] == CLERK and approved["approval"]["status"] == "approved"
    )
    assert approved["approval"]["notes"][0]["text"] == "250 boxes"


def test_create_vendor_invoice_defaults_duplicates_and_po_status() -> None:
    erp = ErpCaller()
    erp("receive_goods", actorId="USR-004", purchaseOrderId="PO-202")
    invoice = erp(
        "create_vendor_invoice",
        actorId=CLERK,
        purchaseOrderId="PO-202",
        vendorInvoiceNumber="KWS-21100",
    )
    assert (invoice["id"], invoice["status"], invoice["vendorId"]) == (
        "VINV-109",
        "pending_match",
        "VEN-004",
    )
    assert invoice["lines"][0]["quantity"] == 15 and invoice["lines"][0]["unitPrice"] == 64
    assert invoice["dueDate"] == "2026-04-15" and invoice["total"] == 1036.8
    assert erp.state["purchaseOrders"]["PO-202"]["lines"][0]["invoicedQuantity"] == 40
    assert _match(erp, "VINV-109")["status"] == "matched"
    erp.refused(
        "create_vendor_invoice",
        "conflict",
        actorId=CLERK,
        purchaseOrderId="PO-202",
        vendorInvoiceNumber="kws-21100",
        lines=[{"poLineId": "PO-202-L1", "quantity": 1}],
    )
    erp.refused(
        "create_vendor_invoice",
        "invalid_state",
        actorId=CLERK,
        purchaseOrderId="PO-202",
        vendorInvoiceNumber="X-1",
    )
    erp.refused(
        "create_vendor_invoice",
        "invalid_state",
        actorId=CLERK,
        purchaseOrderId="PO-207",
        vendorInvoiceNumber="X-2",
    )
    erp.refused("create_vendor_invoice", "invalid_input", actorId=CLERK, vendorInvoiceNumber="X-3")
    erp.refused(
        "create_vendor_invoice",
        "invalid_input",
        actorId=CLERK,
        purchaseOrderId="PO-202",
        vendorId="VEN-001",
        vendorInvoiceNumber="X-4",
        lines=[{"poLineId": "PO-202-L1", "quantity": 1}],
    )
    loose = erp(
        "create_vendor_invoice",
        actorId=CLERK,
        vendorId="VEN-003",
        vendorInvoiceNumber="HB-1",
        lines=[{"productId": "PRD-006", "quantity": 2, "unitPrice": 54}],
    )
    assert loose["purchaseOrderId"] is None and loose["lines"][0]["poLineId"] is None
    assert [d["type"] for d in _match(erp, loose["id"])["discrepancies"]] == ["no_purchase_order"]


def test_cancel_reject_and_dispute_release_what_was_invoiced() -> None:
    erp = ErpCaller()
    cancelled = erp(
        "cancel_vendor_invoice",
        actorId=CLERK,
        vendorInvoiceId="VINV-106",
        reason="PO-207 was cancelled",
    )
    assert (
        cancelled["status"] == "cancelled" and cancelled["cancelReason"] == "PO-207 was cancelled"
    )
    assert erp.state["purchaseOrders"]["PO-207"]["lines"][0]["invoicedQuantity"] == 0
    erp.refused(
        "cancel_vendor_invoice",
        "invalid_state",
        actorId=CLERK,
        vendorInvoiceId="VINV-101",
        reason="paid already",
    )
    # VINV-103's pending APR-017 is decided as rejected when its approver rejects the invoice.
    rejected = erp(
        "reject_vendor_invoice", actorId=AP_MANAGER, vendorInvoiceId="VINV-103", reason="wrong rate"
    )
    assert rejected["status"] == "rejected"
    assert erp.state["approvals"]["APR-017"]["status"] == "rejected"
    assert erp.state["purchaseOrders"]["PO-206"]["lines"][0]["invoicedQuantity"] == 0
    disputed = erp(
        "dispute_vendor_invoice", actorId=CLERK, vendorInvoiceId="VINV-104", reason="50 boxes short"
    )
    assert disputed["status"] == "disputed" and disputed["disputeReason"] == "50 boxes short"
    erp.refused("run_three_way_match", "invalid_state", actorId=CLERK, vendorInvoiceId="VINV-104")
    explained = erp("explain_invoice_block", vendorInvoiceId="VINV-104")
    assert explained["blockers"][0]["fixWith"] == ["resolve_vendor_invoice_dispute"]
    resolved = erp(
        "resolve_vendor_invoice_dispute",
        actorId=CLERK,
        vendorInvoiceId="VINV-104",
        resolution="credit note agreed",
    )
    assert (resolved["status"], resolved["matchId"], resolved["disputeReason"]) == (
        "pending_match",
        None,
        None,
    )
    erp.refused(
        "resolve_vendor_invoice_dispute",
        "invalid_state",
        actorId=CLERK,
        vendorInvoiceId="VINV-104",
        resolution="again",
    )
    assert erp.audit_actions() == [
        "vendor_invoice.cancelled",
        "vendor_invoice.rejected",
        "vendor_invoice.disputed",
        "vendor_invoice.dispute_resolved",
    ]


def test_invoices_with_live_payments_cannot_be_cancelled() -> None:
    erp = ErpCaller()
    erp("create_vendor_payment", actorId=CLERK, vendorInvoiceId="VINV-107", amount=100)
    erp.refused(
        "cancel_vendor_invoice",
        "invalid_state",
        actorId=CLERK,
        vendorInvoiceId="VINV-107",
        reason="oops",
    )


REGISTRY = {
    "vendor invoices": (
        "list_vendor_invoices search_vendor_invoices get_vendor_invoice create_vendor_invoice "
        "run_three_way_match get_three_way_match list_invoice_discrepancies "
        "submit_vendor_invoice_for_approval approve_vendor_invoice reject_vendor_invoice "
        "dispute_vendor_invoice resolve_vendor_invoice_dispute update_vendor_invoice_line "
        "cancel_vendor_invoice list_invoices_due_soon list_overdue_vendor_invoices "
        "explain_invoice_block"
    ),
    "payments": (
        "list_payments get_payment create_vendor_payment submit_payment_for_approval "
        "approve_payment complete_payment fail_payment retry_failed_payment cancel_payment "
        "record_customer_payment list_payments_for_invoice build_payment_run"
    ),
    "sales orders": (
        "list_sales_orders search_sales_orders get_sales_order create_sales_order "
        "update_sales_order confirm_sales_order check_sales_order_stock "
        "reserve_sales_order_stock release_sales_order_stock fulfill_sales_order "
        "mark_fulfillment_delivered list_fulfillments cancel_sales_order "
        "list_unfulfilled_sales_orders"
    ),
    "customer invoices": (
        "list_customer_invoices search_customer_invoices get_customer_invoice "
        "create_customer_invoice issue_customer_invoice cancel_customer_invoice "
        "write_off_customer_invoice list_overdue_customer_invoices list_receivables_by_customer "
        "get_ar_aging list_uninvoiced_shipments"
    ),
    "expenses": (
        "list_expenses get_expense create_expense submit_expense approve_expense reject_expense "
        "pay_expense list_expenses_awaiting_action"
    ),
}


def test_finance_and_sales_tools_sit_in_the_reference_registry_order() -> None:
    names = list(erp_tools())
    for domain, expected in REGISTRY.items():
        wanted = expected.split()
        start = names.index(wanted[0])
        assert names[start : start + len(wanted)] == wanted, domain
    assert names.index("explain_invoice_block") + 1 == names.index("list_payments")
    assert names.index("list_expenses_awaiting_action") + 1 == names.index("list_budgets")


def test_outputs_are_detached_from_the_world() -> None:
    erp = ErpCaller()
    shown = erp_tools()["get_vendor_invoice"].run(erp.state, {"vendorInvoiceId": "VINV-104"})
    shown["lines"][0]["quantity"] = 1
    shown["match"]["discrepancies"].clear()
    matched = erp_tools()["run_three_way_match"].run(
        erp.state, {"actorId": CLERK, "vendorInvoiceId": "VINV-104"}
    )
    matched["goodsReceiptIds"].clear()
    assert erp.state["vendorInvoices"]["VINV-104"]["lines"][0]["quantity"] == 300
    assert erp.state["threeWayMatches"]["MATCH-004"]["discrepancies"]
    assert erp.state["threeWayMatches"][matched["id"]]["goodsReceiptIds"] == ["GR-003"]


def test_get_three_way_match_reads_the_stored_record() -> None:
    erp = ErpCaller()
    match = erp("get_three_way_match", matchId="MATCH-003")
    assert (match["vendorInvoiceId"], match["status"]) == ("VINV-103", "failed")
    assert match["discrepancies"][0]["type"] == "price_mismatch"
    erp.refused("get_three_way_match", "not_found", matchId="MATCH-099")


def test_an_invoice_on_a_cancelled_order_is_flagged_for_closing() -> None:
    erp = ErpCaller()
    blockers = erp("explain_invoice_block", vendorInvoiceId="VINV-106")["blockers"]
    assert [b["type"] for b in blockers] == ["purchase_order_cancelled", "not_matched"]
    assert blockers[0]["fixWith"] == ["cancel_vendor_invoice", "reject_vendor_invoice"]
