"""ERP reporting and audit tools: figures derived from the seed, read-only, and the audit trail's
filters and orders."""

from __future__ import annotations

import pytest

from tests.environments.erp_helpers import ErpCaller, erp_tools

REPORTS = (
    "get_procurement_spend_summary",
    "get_ap_aging",
    "get_inventory_valuation",
    "get_sales_summary",
    "get_cash_position",
    "get_operations_dashboard",
)


@pytest.mark.parametrize("name", REPORTS)
def test_reports_are_read_only(name: str) -> None:
    erp = ErpCaller()
    erp(name)
    assert erp_tools()[name].read_only
    assert erp.state == erp.initial


def test_operations_dashboard_surfaces_the_seed_messes() -> None:
    board = ErpCaller()("get_operations_dashboard")
    assert board["failedMatches"] == ["VINV-103", "VINV-104"]
    assert board["overdueVendorInvoices"] == ["VINV-108"]
    assert {"CINV-403", "CINV-407"} <= set(board["overdueCustomerInvoices"])
    assert board["openReceivingDiscrepancies"] == ["DISC-001"]
    assert "STK-PRD-010-WH-002" in board["lowStock"]
    assert board["unshippedSalesOrders"] == ["SO-304", "SO-307"]
    assert "APR-017" in board["pendingApprovals"] and "APR-005" in board["pendingApprovals"]
    assert board["decidingTools"]["vendor_invoice"] == "approve_vendor_invoice"


def test_ap_aging_buckets_open_payables() -> None:
    aging = ErpCaller()("get_ap_aging")
    rows = {row["vendorId"]: row for row in aging["rows"]}
    assert rows["VEN-002"]["1-30"] == 1127.52 and rows["VEN-002"]["current"] == 7328.88
    assert "VEN-001" in rows and "VEN-004" not in rows  # VINV-102 is paid
    assert aging["totals"]["total"] == round(sum(row["total"] for row in aging["rows"]), 2)


def test_inventory_valuation_at_standard_cost() -> None:
    erp = ErpCaller()
    expected = round(
        sum(
            rec["onHand"] * erp.state["products"][rec["productId"]]["standardCost"]
            for rec in erp.state["inventory"].values()
        ),
        2,
    )
    by_site = erp("get_inventory_valuation")
    by_category = erp("get_inventory_valuation", groupBy="category")
    assert by_site["totalValue"] == by_category["totalValue"] == expected
    assert [row["key"] for row in by_site["rows"]][:2] == ["WH-001", "WH-002"]


def test_spend_sales_and_cash_figures() -> None:
    erp = ErpCaller()
    spend = erp("get_procurement_spend_summary", groupBy="budget")
    # PO-205 awaits approval and PO-207 was cancelled: neither is spend.
    assert spend["orderCount"] == 7
    assert spend["orderedSubtotal"] == sum(group["orderedSubtotal"] for group in spend["groups"])
    windowed = erp("get_procurement_spend_summary", fromDate="2026-02-01", toDate="2026-02-28")
    assert windowed["orderCount"] < spend["orderCount"]
    sales = erp("get_sales_summary")
    assert (
        sales["ordersByStatus"]["draft"] == 1
        and sales["topCustomers"][0]["customerId"] == "CUS-003"
    )
    cash = erp("get_cash_position", horizonDays=7)
    assert cash["payablesApprovedOutstanding"] == 4386.96
    assert cash["payablesDueByHorizon"] == 4386.96 and cash["paymentsInFlight"] == 0
    erp("create_vendor_payment", actorId="USR-006", vendorInvoiceId="VINV-107")
    assert erp("get_cash_position")["paymentsInFlight"] == 3259.44


def test_audit_listing_filters_newest_first_and_refuses_entity_id() -> None:
    erp = ErpCaller()
    erp(
        "cancel_vendor_invoice",
        actorId="USR-006",
        vendorInvoiceId="VINV-106",
        reason="PO cancelled",
    )
    newest = erp("list_audit_events", limit=2)["results"]
    assert newest[0]["id"] == "AUD-0021" and newest[0]["action"] == "vendor_invoice.cancelled"
    assert newest[0]["at"] >= newest[1]["at"]
    by_type = erp("list_audit_events", entityType="payment")["results"]
    assert {row["entityId"] for row in by_type} == {"PAY-003"}
    window = erp("list_audit_events", since="2026-03-10", until="2026-03-12")["results"]
    assert window and all("2026-03-10" <= row["at"][:10] <= "2026-03-12" for row in window)
    # The reference's probe relies on entityId being undeclared here (get_entity_history has it).
    assert not erp.accepts("list_audit_events", entityId="VINV-103")


def test_entity_history_user_activity_and_recent_changes() -> None:
    erp = ErpCaller()
    erp("run_three_way_match", actorId="USR-006", vendorInvoiceId="VINV-104")
    history = erp("get_entity_history", entityId="VINV-104")["results"]
    assert [row["action"] for row in history] == [
        "vendor_invoice.created",
        "three_way_match.run",
        "three_way_match.run",
    ]
    activity = erp("get_user_activity", userId="USR-006")
    assert activity["countsByAction"]["three_way_match.run"] == 3
    assert activity["results"][0]["entityId"] == "VINV-104"
    erp.refused("get_user_activity", "not_found", userId="USR-099")
    recent = erp("get_recent_changes")
    assert recent["count"] == 20 and recent["results"][0]["id"] == "AUD-0021"
    assert erp("get_recent_changes", limit=3)["count"] == 3
