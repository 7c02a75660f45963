"""ERP sales-order, shipping and customer-invoice tools: customer status rules, reservations and
shipments through the single stock write path, split shipments, billing what shipped, receivables."""

from __future__ import annotations

from tests.environments.erp_helpers import ErpCaller

REP, SHIPPER, CONTROLLER = "USR-009", "USR-004", "USR-008"
BEARINGS = [{"productId": "PRD-001", "quantity": 10}]


def _stock(erp: ErpCaller, product: str, warehouse: str) -> tuple[int, int]:
    record = erp.state["inventory"][f"STK-{product}-{warehouse}"]
    return record["onHand"], record["reserved"]


def test_create_sales_order_prices_lines_and_checks_the_customer() -> None:
    erp = ErpCaller()
    so = erp(
        "create_sales_order",
        actorId=REP,
        customerId="CUS-001",
        lines=BEARINGS,
        customerPoNumber="C-1",
    )
    assert (so["id"], so["status"], so["warehouseId"], so["orderDate"]) == (
        "SO-309",
        "draft",
        "WH-001",
        "2026-03-16",
    )
    assert so["lines"][0]["id"] == "SO-309-L1" and so["lines"][0]["unitPrice"] == 42
    assert (so["subtotal"], so["tax"], so["total"]) == (420, 33.6, 453.6)
    erp(
        "block_customer",
        actorId=CONTROLLER,
        customerId="CUS-002",
        status="blocked",
        reason="fraud check",
    )
    erp.refused(
        "create_sales_order", "invalid_state", actorId=REP, customerId="CUS-002", lines=BEARINGS
    )
    erp.refused(
        "create_sales_order",
        "invalid_state",
        actorId=REP,
        customerId="CUS-001",
        lines=[{"productId": "PRD-022", "quantity": 1}],
    )
    erp(
        "block_customer",
        actorId=CONTROLLER,
        customerId="CUS-003",
        status="credit_hold",
        reason="non-payment",
    )
    held = erp("create_sales_order", actorId=REP, customerId="CUS-003", lines=BEARINGS)
    erp.refused("confirm_sales_order", "invalid_state", actorId=REP, salesOrderId=held["id"])
    assert erp("confirm_sales_order", actorId=REP, salesOrderId="SO-309")["status"] == "confirmed"
    erp.refused(
        "update_sales_order",
        "invalid_state",
        actorId=REP,
        salesOrderId="SO-309",
        customerPoNumber="C-2",
    )


def test_update_sales_order_edits_drafts_only() -> None:
    erp = ErpCaller()
    updated = erp(
        "update_sales_order",
        actorId=REP,
        salesOrderId="SO-305",
        lines=[{"productId": "PRD-016", "quantity": 40, "unitPrice": 27.5}],
    )
    assert updated["subtotal"] == 1100 and updated["lines"][0]["id"] == "SO-305-L1"
    erp.refused("update_sales_order", "invalid_input", actorId=REP, salesOrderId="SO-305")
    erp.refused(
        "update_sales_order",
        "invalid_state",
        actorId=REP,
        salesOrderId="SO-307",
        customerPoNumber="x",
    )


def test_reserve_and_release_go_through_the_stock_write_path() -> None:
    erp = ErpCaller()
    so = erp("create_sales_order", actorId=REP, customerId="CUS-001", lines=BEARINGS)
    erp.refused("reserve_sales_order_stock", "invalid_state", actorId=REP, salesOrderId=so["id"])
    erp("confirm_sales_order", actorId=REP, salesOrderId=so["id"])
    reserved = erp("reserve_sales_order_stock", actorId=REP, salesOrderId=so["id"])
    assert reserved["lines"][0]["reservedQuantity"] == 10
    assert _stock(erp, "PRD-001", "WH-001") == (340, 10)
    erp.refused("reserve_sales_order_stock", "conflict", actorId=REP, salesOrderId=so["id"])
    erp("release_sales_order_stock", actorId=REP, salesOrderId=so["id"])
    assert _stock(erp, "PRD-001", "WH-001") == (340, 0)
    erp.refused("release_sales_order_stock", "conflict", actorId=REP, salesOrderId=so["id"])
    # SO-307 wants 150 V-belts; WH-001 has 95: all-or-nothing refusal, nothing written.
    erp.refused(
        "reserve_sales_order_stock", "insufficient_stock", actorId=REP, salesOrderId="SO-307"
    )
    movements = [m["type"] for m in erp.state["inventoryMovements"].values()][-2:]
    assert movements == ["reservation", "release"]


def test_stock_check_reports_split_coverage() -> None:
    erp = ErpCaller()
    check = erp("check_sales_order_stock", salesOrderId="SO-307")
    [line] = check["lines"]
    assert (
        line["toShip"],
        line["availableHere"],
        line["coveredHere"],
        line["coveredWithSplit"],
    ) == (150, 95, False, True)
    assert [site["warehouseId"] for site in line["elsewhere"]] == ["WH-002", "WH-003"]
    assert not check["fullyCovered"]
    assert erp("check_sales_order_stock", salesOrderId="SO-304")["fullyCovered"]


def test_split_shipment_across_warehouses_fulfils_the_order() -> None:
    erp = ErpCaller()
    erp.refused("fulfill_sales_order", "insufficient_stock", actorId=SHIPPER, salesOrderId="SO-307")
    erp.refused(
        "fulfill_sales_order",
        "invalid_input",
        actorId=SHIPPER,
        salesOrderId="SO-307",
        lines=[
            {"lineId": "SO-307-L1", "quantity": 100, "warehouseId": "WH-001"},
            {"lineId": "SO-307-L1", "quantity": 60, "warehouseId": "WH-002"},
        ],
    )
    shipped = erp(
        "fulfill_sales_order",
        actorId=SHIPPER,
        salesOrderId="SO-307",
        carrier="Estes",
        lines=[
            {"lineId": "SO-307-L1", "quantity": 95, "warehouseId": "WH-001"},
            {"lineId": "SO-307-L1", "quantity": 55, "warehouseId": "WH-002"},
        ],
    )
    assert (shipped["id"], shipped["status"], shipped["salesOrderStatus"]) == (
        "FUL-004",
        "shipped",
        "fulfilled",
    )
    assert [(row["warehouseId"], row["quantity"]) for row in shipped["lines"]] == [
        ("WH-001", 95),
        ("WH-002", 55),
    ]
    assert _stock(erp, "PRD-003", "WH-001") == (0, 0) and _stock(erp, "PRD-003", "WH-002") == (
        25,
        0,
    )
    assert erp.state["salesOrders"]["SO-307"]["lines"][0]["fulfilledQuantity"] == 150
    delivered = erp("mark_fulfillment_delivered", actorId=SHIPPER, fulfillmentId="FUL-004")
    assert delivered["status"] == "delivered" and delivered["deliveredAt"] == erp.state["now"]
    erp.refused(
        "mark_fulfillment_delivered", "invalid_state", actorId=SHIPPER, fulfillmentId="FUL-004"
    )
    assert [row["id"] for row in erp("list_fulfillments", salesOrderId="SO-307")["results"]] == [
        "FUL-004"
    ]
    erp.refused(
        "cancel_sales_order", "invalid_state", actorId=REP, salesOrderId="SO-307", reason="too late"
    )


def test_shipping_consumes_the_reservation_and_partial_shipments_track_status() -> None:
    erp = ErpCaller()
    partial = erp(
        "fulfill_sales_order",
        actorId=SHIPPER,
        salesOrderId="SO-304",
        lines=[{"lineId": "SO-304-L1", "quantity": 15}],
    )
    assert partial["salesOrderStatus"] == "partially_fulfilled"
    line = erp.state["salesOrders"]["SO-304"]["lines"][0]
    assert (line["fulfilledQuantity"], line["reservedQuantity"]) == (15, 25)
    assert erp("list_unfulfilled_sales_orders")["results"][0]["unitsToShip"] == 35
    rest = erp("fulfill_sales_order", actorId=SHIPPER, salesOrderId="SO-304")
    assert rest["salesOrderStatus"] == "fulfilled"
    assert erp.state["inventory"]["STK-PRD-010-WH-001"]["reserved"] == 0


def test_cancel_sales_order_releases_reservations() -> None:
    erp = ErpCaller()
    before = _stock(erp, "PRD-010", "WH-001")
    cancelled = erp(
        "cancel_sales_order", actorId=REP, salesOrderId="SO-304", reason="customer withdrew"
    )
    assert (cancelled["status"], cancelled["cancelReason"]) == ("cancelled", "customer withdrew")
    assert _stock(erp, "PRD-010", "WH-001") == (before[0], before[1] - 40)
    assert all(line["reservedQuantity"] == 0 for line in cancelled["lines"])


def test_invoice_what_shipped_and_issue_it() -> None:
    erp = ErpCaller()
    assert [row["salesOrderId"] for row in erp("list_uninvoiced_shipments")["results"]] == [
        "SO-306"
    ]
    draft = erp("create_customer_invoice", actorId=REP, salesOrderId="SO-306")
    assert (draft["id"], draft["status"], draft["subtotal"], draft["lines"][0]["quantity"]) == (
        "CINV-408",
        "draft",
        5040,
        120,
    )
    erp.refused("create_customer_invoice", "invalid_state", actorId=REP, salesOrderId="SO-306")
    erp.refused("create_customer_invoice", "invalid_state", actorId=REP, salesOrderId="SO-305")
    issued = erp("issue_customer_invoice", actorId=REP, customerInvoiceId="CINV-408")
    assert (issued["status"], issued["issueDate"], issued["dueDate"]) == (
        "issued",
        "2026-03-16",
        "2026-04-15",
    )
    assert erp.state["salesOrders"]["SO-306"]["status"] == "invoiced"
    erp.refused(
        "issue_customer_invoice", "invalid_state", actorId=REP, customerInvoiceId="CINV-408"
    )
    cancelled = erp(
        "cancel_customer_invoice", actorId=REP, customerInvoiceId="CINV-408", reason="wrong address"
    )
    assert (
        cancelled["status"] == "cancelled"
        and erp.state["salesOrders"]["SO-306"]["status"] == "fulfilled"
    )


def test_partial_billing_is_capped_by_what_shipped() -> None:
    erp = ErpCaller()
    erp(
        "fulfill_sales_order",
        actorId=SHIPPER,
        salesOrderId="SO-304",
        lines=[{"lineId": "SO-304-L1", "quantity": 15}],
    )
    erp.refused(
        "create_customer_invoice",
        "invalid_input",
        actorId=REP,
        salesOrderId="SO-304",
        lines=[{"soLineId": "SO-304-L1", "quantity": 16}],
    )
    invoice = erp("create_customer_invoice", actorId=REP, salesOrderId="SO-304")
    assert [(line["soLineId"], line["quantity"]) for line in invoice["lines"]] == [
        ("SO-304-L1", 15)
    ]
    loose = erp(
        "create_customer_invoice",
        actorId=REP,
        customerId="CUS-001",
        lines=[{"productId": "PRD-009", "quantity": 3}],
    )
    assert loose["salesOrderId"] is None and loose["total"] == 19.12


def test_overdue_receivables_aging_and_write_off_authority() -> None:
    erp = ErpCaller()
    big = erp("list_overdue_customer_invoices", minimumAmount=10000)
    assert [row["id"] for row in big["results"]] == ["CINV-403", "CINV-407"]
    by_customer = erp("list_receivables_by_customer")["results"]
    assert (by_customer[0]["customerId"], by_customer[0]["overdue"]) == ("CUS-003", 26384.4)
    aging = erp("get_ar_aging")
    assert aging["buckets"] == ["current", "1-30", "31-60", "61-90", "90+"]
    assert aging["totals"]["31-60"] == 15206.4 and aging["totals"]["total"] == 34152
    assert erp("get_ar_aging", customerId="CUS-003")["totals"]["total"] == 26384.4
    assert erp.state == erp.initial
    erp.refused(
        "write_off_customer_invoice",
        "forbidden",
        actorId=REP,
        customerInvoiceId="CINV-404",
        reason="gone",
    )
    written = erp(
        "write_off_customer_invoice",
        actorId=CONTROLLER,
        customerInvoiceId="CINV-404",
        reason="bankrupt",
    )
    assert (written["status"], written["writeOffReason"], written["isOverdue"]) == (
        "written_off",
        "bankrupt",
        False,
    )
    erp.refused(
        "cancel_customer_invoice",
        "invalid_state",
        actorId=REP,
        customerInvoiceId="CINV-401",
        reason="paid",
    )
    found = erp("search_customer_invoices", query="so-308")
    assert [row["id"] for row in found["results"]] == ["CINV-407"]
    assert erp("get_customer_invoice", customerInvoiceId="CINV-402")["outstanding"] == 4603.2


def test_sales_order_and_customer_invoice_reads() -> None:
    erp = ErpCaller()
    confirmed = erp("list_sales_orders", status="confirmed")
    assert [row["id"] for row in confirmed["results"]] == ["SO-304", "SO-307"]
    assert [row["id"] for row in erp("list_sales_orders", customerId="CUS-003")["results"]] == [
        "SO-303",
        "SO-308",
    ]
    assert [row["id"] for row in erp("search_sales_orders", query="cpo-9306")["results"]] == [
        "SO-306"
    ]
    order = erp("get_sales_order", salesOrderId="SO-306")
    assert order["customerName"] == "Keystone Rail Services"
    assert (order["fulfillmentIds"], order["invoiceIds"]) == (["FUL-002"], [])
    assert order["lines"][0]["remainingQuantity"] == 0
    erp.refused("get_sales_order", "not_found", salesOrderId="SO-999")
    unpaid = erp("list_customer_invoices", customerId="CUS-003", status="issued")
    assert [row["id"] for row in unpaid["results"]] == ["CINV-403", "CINV-407"]
    assert all(row["isOverdue"] for row in unpaid["results"])
