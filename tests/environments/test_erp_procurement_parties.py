"""ERP vendor and customer tools: reads, creation, updates, activation, blocking, balances."""

from __future__ import annotations

from tests.environments.erp_helpers import ErpCaller

BUYER = "USR-002"


def test_vendor_reads_filter_search_and_balance() -> None:
    erp = ErpCaller()
    blocked = erp("list_vendors", status="blocked")
    assert [v["id"] for v in blocked["results"]] == ["VEN-011"]
    assert erp("list_vendors", category="fasteners")["results"][0]["name"] == "Tri-State Fasteners"
    assert erp("list_vendors", preferred=False)["total"] == 4
    assert erp("search_vendors", query="northfield")["results"][0]["id"] == "VEN-005"
    vendor = erp("get_vendor", vendorId="VEN-007")
    assert "Failed quality audits" in vendor["qualityNotes"]
    balance = erp("get_vendor_balance", vendorId="VEN-002")
    assert balance["overdue"] == 1127.52
    assert balance["outstanding"] == round(7328.88 + 1127.52, 2)
    erp.refused("get_vendor", "not_found", vendorId="VEN-099")


def test_create_vendor_starts_pending_and_names_are_unique() -> None:
    erp = ErpCaller()
    vendor = erp(
        "create_vendor", actorId=BUYER, name="Buckeye Bolt Works", category="fasteners",
        contactEmail="sales@buckeyebolt.example",
    )  # fmt: skip
    assert (vendor["id"], vendor["status"], vendor["paymentTerms"]) == (
        "VEN-013",
        "pending_approval",
        "NET_30",
    )
    assert vendor["contact"]["email"] == "sales@buckeyebolt.example"
    erp.refused(
        "create_vendor", "conflict", actorId=BUYER, name="tri-state fasteners", category="x"
    )
    erp.refused("create_vendor", "invalid_input", actorId=BUYER, name="   ", category="x")
    erp.refused("create_vendor", "not_found", actorId="USR-099", name="New Co", category="x")
    assert erp.audit_actions() == ["vendor.created"]


def test_update_vendor_terms_and_contact() -> None:
    erp = ErpCaller()
    vendor = erp("update_vendor", actorId="USR-003", vendorId="VEN-002", paymentTerms="NET_30",
                 contactEmail="ar@tristatefasteners.example")  # fmt: skip
    assert vendor["paymentTerms"] == "NET_30" and vendor["status"] == "active"
    assert vendor["contact"] == {
        **erp.initial["vendors"]["VEN-002"]["contact"],
        "email": "ar@tristatefasteners.example",
    }
    erp.refused("update_vendor", "invalid_input", actorId="USR-003", vendorId="VEN-002")
    erp.refused(
        "update_vendor", "conflict", actorId="USR-003", vendorId="VEN-002", paymentTerms="NET_30"
    )
    assert not erp.accepts(
        "update_vendor", actorId="USR-003", vendorId="VEN-002", paymentTerms="NET_90"
    )
    audit = erp.state["auditLog"][-1]
    assert (
        audit["action"] == "vendor.updated" and audit["details"]["paymentTerms"]["from"] == "NET_45"
    )


def test_block_and_activate_vendor() -> None:
    erp = ErpCaller()
    vendor = erp(
        "block_vendor", actorId="USR-003", vendorId="VEN-007", reason="Failed two quality audits"
    )
    assert (vendor["status"], vendor["statusReason"]) == ("blocked", "Failed two quality audits")
    erp.refused(
        "block_vendor", "invalid_state", actorId="USR-003", vendorId="VEN-007", reason="again"
    )
    erp.refused(
        "block_vendor", "invalid_input", actorId="USR-003", vendorId="VEN-001", reason="    "
    )
    assert erp("activate_vendor", actorId="USR-003", vendorId="VEN-010")["status"] == "active"
    erp.refused("activate_vendor", "invalid_state", actorId="USR-003", vendorId="VEN-001")
    assert erp.audit_actions() == ["vendor.blocked", "vendor.activated"]


def test_customer_reads_and_balance() -> None:
    erp = ErpCaller()
    assert erp("list_customers", status="credit_hold")["results"][0]["id"] == "CUS-010"
    assert erp("list_customers", segment="manufacturing")["total"] == 3
    assert erp("search_customers", query="ohio valley")["results"][0]["id"] == "CUS-003"
    balance = erp("get_customer_balance", customerId="CUS-003")
    assert balance["overdue"] == balance["outstanding"] == 26384.4
    assert balance["creditAvailable"] == round(40000 - 26384.4, 2)
    assert erp("get_customer", customerId="CUS-003")["balance"]["overdue"] == 26384.4
    erp.refused("get_customer_balance", "not_found", customerId="CUS-404")


def test_customer_create_update_hold_and_activate() -> None:
    erp = ErpCaller()
    customer = erp(
        "create_customer",
        actorId="USR-009",
        name="Scioto Steel",
        segment="metals",
        creditLimit=12000,
    )
    assert (customer["id"], customer["status"]) == ("CUS-013", "pending_approval")
    erp.refused(
        "create_customer",
        "conflict",
        actorId="USR-009",
        name="OHIO VALLEY MACHINE WORKS",
        segment="x",
    )
    updated = erp("update_customer", actorId="USR-010", customerId="CUS-005", creditLimit=18000)
    assert updated["creditLimit"] == 18000
    erp.refused("update_customer", "invalid_input", actorId="USR-010", customerId="CUS-005")
    held = erp("block_customer", actorId="USR-008", customerId="CUS-003", status="credit_hold",
               reason="Non-payment: CINV-403 and CINV-407 overdue")  # fmt: skip
    assert (held["status"], held["statusReason"]) == (
        "credit_hold",
        "Non-payment: CINV-403 and CINV-407 overdue",
    )
    erp.refused("block_customer", "invalid_state", actorId="USR-008", customerId="CUS-003",
                status="credit_hold", reason="again")  # fmt: skip
    assert (
        erp(
            "block_customer",
            actorId="USR-008",
            customerId="CUS-003",
            status="blocked",
            reason="Escalated",
        )["status"]
        == "blocked"
    )
    assert erp("activate_customer", actorId="USR-008", customerId="CUS-010")["statusReason"] is None
    erp.refused("activate_customer", "invalid_state", actorId="USR-008", customerId="CUS-001")
    assert erp.state["customerInvoices"] == erp.initial["customerInvoices"]
