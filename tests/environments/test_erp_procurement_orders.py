"""ERP purchase-order, receiving, budget and clock tools: approval commits budget, sending
makes stock inbound, receipts post stock and move PO status, closure and reversal rules."""

from __future__ import annotations

from tests.environments.erp_helpers import ErpCaller

BUYER = "USR-002"
CLEANER = [{"productId": "PRD-020", "quantity": 20, "unitPrice": 154}]


def _draft_po(erp: ErpCaller, **extra: object) -> dict:
    args = {
        "actorId": BUYER,
        "vendorId": "VEN-009",
        "budgetId": "BUD-004",
        "lines": CLEANER,
        **extra,
    }
    return erp("create_purchase_order", **args)


def test_create_purchase_order_checks_vendor_lines_and_budget() -> None:
    erp = ErpCaller()
    po = _draft_po(erp)
    assert (po["id"], po["status"], po["warehouseId"]) == ("PO-210", "draft", "WH-001")
    assert (po["subtotal"], po["tax"], po["total"]) == (3080, 246.4, 3326.4)
    assert po["expectedDeliveryDate"] == "2026-03-23" and po["lines"][0]["id"] == "PO-210-L1"
    erp.refused(
        "create_purchase_order",
        "forbidden",
        actorId=BUYER,
        vendorId="VEN-011",
        budgetId="BUD-001",
        lines=CLEANER,
    )
    erp.refused(
        "create_purchase_order",
        "invalid_state",
        actorId=BUYER,
        vendorId="VEN-010",
        budgetId="BUD-001",
        lines=CLEANER,
    )
    erp.refused(
        "create_purchase_order", "invalid_input", actorId=BUYER, vendorId="VEN-009", lines=CLEANER
    )
    erp.refused(
        "create_purchase_order",
        "invalid_input",
        actorId=BUYER,
        vendorId="VEN-009",
        budgetId="BUD-001",
    )
    erp.refused(
        "create_purchase_order",
        "invalid_state",
        actorId=BUYER,
        vendorId="VEN-012",
        quotationId="QUO-006",
    )
    updated = erp(
        "update_purchase_order",
        actorId=BUYER,
        purchaseOrderId="PO-210",
        lines=[{**CLEANER[0], "quantity": 10}],
    )
    assert updated["subtotal"] == 1540
    erp.refused(
        "update_purchase_order", "invalid_state", actorId=BUYER, purchaseOrderId="PO-202", notes="x"
    )
    assert erp("search_purchase_orders", query="PRD-020")["results"][0]["id"] == "PO-210"
    assert erp("list_purchase_orders", status="partially_received")["total"] == 2


def test_po_from_an_accepted_quotation_takes_over_the_requisition_commitment() -> None:
    erp = ErpCaller()
    erp("accept_quotation", actorId=BUYER, quotationId="QUO-006")
    erp.refused(
        "create_purchase_order",
        "invalid_input",
        actorId=BUYER,
        vendorId="VEN-003",
        quotationId="QUO-006",
    )
    po = erp(
        "create_purchase_order",
        actorId=BUYER,
        vendorId="VEN-012",
        quotationId="QUO-006",
        warehouseId="WH-001",
    )
    assert [(line["productId"], line["quantity"], line["unitPrice"]) for line in po["lines"]] == [
        ("PRD-008", 600, 6.55), ("PRD-010", 500, 6.8),
    ]  # fmt: skip
    assert (po["requisitionId"], po["budgetId"], po["committedAmount"]) == (
        "PR-001",
        "BUD-002",
        7190,
    )
    assert erp.state["requisitions"]["PR-001"]["purchaseOrderId"] == po["id"]
    committed = erp.state["budgets"]["BUD-002"]["committed"]
    impact = erp("get_purchase_order_budget_impact", purchaseOrderId=po["id"])
    assert impact["toCommitOnApproval"] == 140 and impact["sufficient"]
    erp("submit_purchase_order_for_approval", actorId=BUYER, purchaseOrderId=po["id"])
    approved = erp("approve_purchase_order", actorId=BUYER, purchaseOrderId=po["id"])
    assert (
        approved["status"] == "approved"
        and approved["sentAt"] is None
        and approved["committedAmount"] == 7330
    )
    assert erp.state["budgets"]["BUD-002"]["committed"] == committed + 140
    erp.refused(
        "create_purchase_order",
        "invalid_state",
        actorId=BUYER,
        vendorId="VEN-012",
        quotationId="QUO-006",
    )


def test_approval_needs_named_authorised_approver_and_headroom() -> None:
    erp = ErpCaller()
    _draft_po(erp)
    erp.refused("approve_purchase_order", "invalid_state", actorId=BUYER, purchaseOrderId="PO-210")
    submitted = erp(
        "submit_purchase_order_for_approval", actorId="USR-011", purchaseOrderId="PO-210"
    )
    assert submitted["approverId"] == "USR-006"  # smallest limit covering 3,326.40
    erp.refused("approve_purchase_order", "forbidden", actorId=BUYER, purchaseOrderId="PO-210")
    erp.refused(
        "approve_purchase_order", "limit_exceeded", actorId="USR-006", purchaseOrderId="PO-210"
    )
    erp(
        "update_budget", actorId="USR-008", budgetId="BUD-004", allocated=25000, reason="Floor care"
    )
    assert (
        erp("approve_purchase_order", actorId="USR-006", purchaseOrderId="PO-210")[
            "committedAmount"
        ]
        == 3080
    )
    erp.refused(
        "submit_purchase_order_for_approval",
        "invalid_state",
        actorId=BUYER,
        purchaseOrderId="PO-210",
    )


def test_reject_purchase_order() -> None:
    erp = ErpCaller()
    rejected = erp(
        "reject_purchase_order", actorId=BUYER, purchaseOrderId="PO-205", reason="Duplicate order"
    )
    assert rejected["status"] == "rejected"
    assert erp.state["approvals"]["APR-010"]["status"] == "rejected"
    erp.refused(
        "reject_purchase_order",
        "invalid_state",
        actorId=BUYER,
        purchaseOrderId="PO-205",
        reason="x y",
    )


def test_send_makes_quantities_inbound_and_receipt_posts_stock() -> None:
    erp = ErpCaller()
    _draft_po(erp, warehouseId="WH-002", budgetId="BUD-002")
    erp.refused("send_purchase_order", "invalid_state", actorId=BUYER, purchaseOrderId="PO-210")
    erp("submit_purchase_order_for_approval", actorId=BUYER, purchaseOrderId="PO-210")
    erp("approve_purchase_order", actorId=BUYER, purchaseOrderId="PO-210")
    assert erp("send_purchase_order", actorId=BUYER, purchaseOrderId="PO-210")["status"] == "sent"
    assert erp("get_available_quantity", productId="PRD-020", warehouseId="WH-002")["inbound"] == 20
    assert {
        row["purchaseOrderId"]
        for row in erp("list_pending_deliveries", warehouseId="WH-002")["results"]
    } == {"PO-209", "PO-210"}
    receipt = erp("receive_goods", actorId="USR-004", purchaseOrderId="PO-210",
                  lines=[{"poLineId": "PO-210-L1", "quantityReceived": 12, "quantityRejected": 2}])  # fmt: skip
    assert (receipt["id"], receipt["purchaseOrderStatus"]) == ("GR-007", "partially_received")
    assert erp.state["inventory"]["STK-PRD-020-WH-002"]["onHand"] == 12
    erp.refused("receive_goods", "invalid_input", actorId="USR-004", purchaseOrderId="PO-210",
                lines=[{"poLineId": "PO-210-L1", "quantityReceived": 7}])  # fmt: skip
    erp.refused("receive_goods", "not_found", actorId="USR-004", purchaseOrderId="PO-210",
                lines=[{"poLineId": "PO-210-L9", "quantityReceived": 1}])  # fmt: skip
    rest = erp("receive_goods", actorId="USR-004", purchaseOrderId="PO-210")
    assert rest["lines"][0]["quantityReceived"] == 6 and rest["purchaseOrderStatus"] == "received"
    assert erp("get_available_quantity", productId="PRD-020", warehouseId="WH-002")["inbound"] == 0
    erp.refused(
        "cancel_purchase_order",
        "invalid_state",
        actorId=BUYER,
        purchaseOrderId="PO-210",
        reason="late",
    )


def test_receive_the_outstanding_balance_of_a_partial_delivery() -> None:
    erp = ErpCaller()
    assert (
        erp("list_open_purchase_order_lines", productId="PRD-007")["results"][0][
            "outstandingQuantity"
        ]
        == 15
    )
    receipt = erp("receive_goods", actorId="USR-004", purchaseOrderId="PO-202")
    assert (
        receipt["lines"][0]["quantityReceived"] == 15
        and receipt["purchaseOrderStatus"] == "received"
    )
    assert erp.state["purchaseOrders"]["PO-202"]["lines"][0]["receivedQuantity"] == 40
    assert erp.state["inventory"]["STK-PRD-007-WH-001"]["onHand"] == 46
    erp.refused("receive_goods", "invalid_state", actorId="USR-004", purchaseOrderId="PO-202")
    erp.refused("receive_goods", "invalid_state", actorId="USR-004", purchaseOrderId="PO-205")
    erp.refused(
        "receive_goods",
        "invalid_state",
        actorId="USR-004",
        purchaseOrderId="PO-209",
        warehouseId="WH-004",
    )


def test_cancel_goods_receipt_reverses_stock_unless_invoiced() -> None:
    erp = ErpCaller()
    erp.refused(
        "cancel_goods_receipt",
        "invalid_state",
        actorId="USR-005",
        goodsReceiptId="GR-002",
        reason="Wrong PO",
    )
    erp("receive_goods", actorId="USR-004", purchaseOrderId="PO-209")
    reversed_ = erp(
        "cancel_goods_receipt",
        actorId="USR-005",
        goodsReceiptId="GR-007",
        reason="Posted to wrong PO",
    )
    assert reversed_["status"] == "cancelled" and reversed_["purchaseOrderStatus"] == "sent"
    assert erp.state["inventory"]["STK-PRD-006-WH-002"]["onHand"] == 22
    assert erp.state["inventoryMovements"]["MOV-022"]["type"] == "receipt_reversal"
    erp.refused(
        "cancel_goods_receipt",
        "invalid_state",
        actorId="USR-005",
        goodsReceiptId="GR-007",
        reason="again",
    )
    assert [
        r["id"]
        for r in erp("list_receipts_for_purchase_order", purchaseOrderId="PO-209")["results"]
    ] == ["GR-007"]


def test_cancel_and_close_purchase_orders() -> None:
    erp = ErpCaller()
    cancelled = erp(
        "cancel_purchase_order",
        actorId=BUYER,
        purchaseOrderId="PO-205",
        reason="Raised in error: duplicate",
    )
    assert (
        cancelled["status"] == "cancelled"
        and cancelled["cancelReason"] == "Raised in error: duplicate"
    )
    assert erp.state["approvals"]["APR-010"]["status"] == "cancelled"
    assert erp.state["budgets"]["BUD-001"] == erp.initial["budgets"]["BUD-001"]
    before = erp.state["budgets"]["BUD-002"]["committed"]
    erp(
        "cancel_purchase_order",
        actorId=BUYER,
        purchaseOrderId="PO-209",
        reason="Vendor cannot deliver",
    )
    assert erp.state["budgets"]["BUD-002"]["committed"] == before - 3240
    erp.refused(
        "cancel_purchase_order",
        "invalid_state",
        actorId=BUYER,
        purchaseOrderId="PO-202",
        reason="partly in",
    )
    erp.refused("close_purchase_order", "invalid_state", actorId=BUYER, purchaseOrderId="PO-201")
    erp.state["vendorInvoices"]["VINV-107"]["status"] = "paid"
    assert (
        erp("close_purchase_order", actorId=BUYER, purchaseOrderId="PO-204")["status"] == "closed"
    )


def test_purchase_order_reads() -> None:
    erp = ErpCaller()
    po = erp("get_purchase_order", purchaseOrderId="PO-203")
    assert po["lines"][0]["outstandingQuantity"] == 50 and po["lines"][0]["uninvoicedQuantity"] == 0
    assert (po["goodsReceiptIds"], po["vendorInvoiceIds"]) == (["GR-003"], ["VINV-104"])
    assert [p["id"] for p in erp("list_overdue_purchase_orders")["results"]] == [
        "PO-202",
        "PO-203",
        "PO-209",
    ]
    due = erp("get_purchase_order_payment_due_date", purchaseOrderId="PO-203")
    assert (due["basis"], due["paymentTerms"], due["dueDate"]) == (
        "invoice",
        "NET_45",
        "2026-04-17",
    )
    assert (
        erp("get_purchase_order_payment_due_date", purchaseOrderId="PO-209")["basis"]
        == "expected_delivery"
    )
    erp.refused("get_purchase_order", "not_found", purchaseOrderId="PO-999")


def test_receiving_discrepancies() -> None:
    erp = ErpCaller()
    assert erp("get_goods_receipt", goodsReceiptId="GR-003")["discrepancies"][0]["id"] == "DISC-001"
    assert erp("list_receiving_discrepancies", status="open")["total"] == 1
    assert erp("list_goods_receipts", purchaseOrderId="PO-203")["results"][0]["id"] == "GR-003"
    reported = erp("report_receiving_discrepancy", actorId="USR-004", goodsReceiptId="GR-005", poLineId="PO-206-L1",
                   type="damaged", description="Two drums dented", actualQuantity=78)  # fmt: skip
    assert (reported["id"], reported["expectedQuantity"]) == ("DISC-003", 80)
    erp.refused("report_receiving_discrepancy", "not_found", actorId="USR-004", goodsReceiptId="GR-005",
                poLineId="PO-206-L2", type="damaged", description="wrong line")  # fmt: skip
    resolved = erp("resolve_receiving_discrepancy", actorId="USR-005", discrepancyId="DISC-001", status="resolved",
                   resolution="Vendor confirmed 250 shipped; invoice to be corrected")  # fmt: skip
    assert resolved["status"] == "resolved" and resolved["resolvedBy"] == "USR-005"
    erp.refused("resolve_receiving_discrepancy", "invalid_state", actorId="USR-005", discrepancyId="DISC-002",
                status="waived", resolution="already closed")  # fmt: skip
    assert erp("get_receiving_discrepancy", discrepancyId="DISC-003")["status"] == "open"


def test_budget_tools() -> None:
    erp = ErpCaller()
    budget = erp("get_budget", budgetId="BUD-004")
    assert (budget["headroom"], budget["utilisationPct"]) == (2400, 90.0)
    assert {doc["id"] for doc in budget["documents"]} == {"PR-002", "EXP-004"}
    assert erp("list_budgets", departmentId="DEPT-FAC")["results"][0]["id"] == "BUD-004"
    assert erp("get_department_budget", departmentId="DEPT-OPS")["headroom"] == 235050
    assert erp("check_budget_availability", budgetId="BUD-004", amount=3900)["shortfall"] == 1500
    erp.refused(
        "commit_budget",
        "limit_exceeded",
        actorId="USR-008",
        budgetId="BUD-004",
        amount=2400.01,
        reason="too much",
    )
    assert (
        erp(
            "commit_budget",
            actorId="USR-008",
            budgetId="BUD-004",
            amount=2400,
            reason="Q2 supplies",
        )["headroom"]
        == 0
    )
    erp.refused(
        "release_budget_commitment",
        "invalid_input",
        actorId="USR-008",
        budgetId="BUD-004",
        amount=6000,
        reason="x y",
    )
    assert (
        erp(
            "release_budget_commitment",
            actorId="USR-008",
            budgetId="BUD-004",
            amount=400,
            reason="Trimmed",
        )["committed"]
        == 5120
    )
    spent = erp(
        "record_budget_spend",
        actorId="USR-008",
        budgetId="BUD-004",
        amount=120,
        reason="Invoice booked",
    )
    assert (spent["committed"], spent["spent"]) == (5000, 18600)
    erp.refused(
        "record_budget_spend",
        "invalid_input",
        actorId="USR-008",
        budgetId="BUD-004",
        amount=9000,
        reason="x y",
    )
    erp("update_budget", actorId="USR-008", budgetId="BUD-003", status="frozen", reason="Audit")
    erp.refused(
        "commit_budget",
        "invalid_state",
        actorId="USR-008",
        budgetId="BUD-003",
        amount=1,
        reason="frozen",
    )
    erp.refused(
        "update_budget",
        "conflict",
        actorId="USR-008",
        budgetId="BUD-003",
        status="frozen",
        reason="again",
    )
    created = erp(
        "create_budget",
        actorId="USR-008",
        name="Facilities capex",
        departmentId="DEPT-FAC",
        allocated=10000,
    )
    assert (created["id"], created["ownerId"], created["fiscalYear"]) == (
        "BUD-007",
        "USR-011",
        2026,
    )
    ranked = erp("get_budget_utilisation")["results"]
    assert ranked[0]["id"] == "BUD-004" and ranked[0]["exhausted"] is False


def test_clock_moves_only_forward_and_reports_what_lapsed() -> None:
    erp = ErpCaller()
    assert erp("get_current_date")["overdueVendorInvoices"] == 1
    moved = erp("advance_clock", actorId="USR-001", days=31)
    assert moved["now"] == "2026-04-16T09:00:00.000Z"
    assert set(moved["newlyOverdueInvoices"]) >= {"VINV-107", "CINV-405"}
    assert moved["newlyExpiredQuotations"] == ["QUO-004", "QUO-006"]
    erp.refused("set_clock", "invalid_input", actorId="USR-001", to="2026-04-01")
    erp.refused("set_clock", "invalid_input", actorId="USR-001", to="2026-02-30")
    assert erp("set_clock", actorId="USR-001", to="2026-05-01")["now"] == "2026-05-01T09:00:00.000Z"
    assert not erp.accepts("advance_clock", actorId="USR-001", days=0)
    assert erp.audit_actions() == ["clock.advanced", "clock.set"]
