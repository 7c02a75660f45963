"""ERP requisition, approval, RFQ and quotation tools: budget-checked approvals by the named,
authorised approver; reassignment; RFQs to eligible vendors; award of the cheapest valid quote."""

from __future__ import annotations

from tests.environments.erp_helpers import ErpCaller

FACILITIES_LINE = [{"productId": "PRD-020", "quantity": 20, "unitPrice": 154}]


def _draft(erp: ErpCaller, **extra: object) -> dict:
    return erp("create_requisition", actorId="USR-011", title="Floor cleaner", budgetId="BUD-004",
               lines=FACILITIES_LINE, **extra)  # fmt: skip


def test_create_requisition_defaults_and_draft_edits() -> None:
    erp = ErpCaller()
    requisition = erp("create_requisition", actorId="USR-004", title="Hose stock", budgetId="BUD-002",
                      departmentId="DEPT-OPS", lines=[{"productId": "PRD-012", "quantity": 100}])  # fmt: skip
    assert requisition["id"] == "PR-007" and requisition["status"] == "draft"
    assert requisition["lines"][0] == {"id": "PR-007-L1", "productId": "PRD-012", "quantity": 100,
                                       "unitPrice": 38.0, "lineTotal": 3800}  # fmt: skip
    assert requisition["neededBy"] == "2026-04-15" and requisition["estimatedTotal"] == 3800
    updated = erp("update_requisition", actorId="USR-004", requisitionId="PR-007",
                  lines=[{"productId": "PRD-012", "quantity": 120}])  # fmt: skip
    assert updated["estimatedTotal"] == 4560
    erp.refused(
        "update_requisition", "invalid_state", actorId="USR-005", requisitionId="PR-006", title="x"
    )
    erp.refused("update_requisition", "invalid_input", actorId="USR-004", requisitionId="PR-007")
    erp.refused("create_requisition", "invalid_state", actorId="USR-004", title="Old", budgetId="BUD-002",
                lines=[{"productId": "PRD-022", "quantity": 1}])  # fmt: skip
    erp.refused("create_requisition", "not_found", actorId="USR-004", title="x", budgetId="BUD-009",
                lines=[{"productId": "PRD-012", "quantity": 1}])  # fmt: skip
    assert erp.state["sequences"]["PR"] == 7


def test_budget_shortfall_blocks_approval_until_the_allocation_is_raised() -> None:
    erp = ErpCaller()
    check = erp("check_requisition_budget", requisitionId="PR-002")
    assert (check["headroom"], check["shortfall"], check["sufficient"]) == (2400, 1500, False)
    erp.refused("approve_requisition", "limit_exceeded", actorId="USR-003", requisitionId="PR-002")
    _draft(erp)
    submitted = erp(
        "submit_requisition", actorId="USR-011", requisitionId="PR-007", approverId="USR-003"
    )
    assert submitted["status"] == "pending_approval" and submitted["approverAuthorised"]
    erp.refused("approve_requisition", "limit_exceeded", actorId="USR-003", requisitionId="PR-007")
    erp.refused(
        "update_budget", "invalid_input", actorId="USR-008", budgetId="BUD-004", allocated=21599
    )
    erp(
        "update_budget",
        actorId="USR-008",
        budgetId="BUD-004",
        allocated=24680,
        reason="Cover PR-007",
    )
    approved = erp("approve_requisition", actorId="USR-003", requisitionId="PR-007")
    assert approved["status"] == "approved" and approved["committedAmount"] == 3080
    assert erp.state["budgets"]["BUD-004"]["committed"] == 6200
    assert erp.state["approvals"][submitted["approvalId"]]["decidedBy"] == "USR-003"


def test_reject_records_reason_and_decides_once() -> None:
    erp = ErpCaller()
    rejected = erp("reject_requisition", actorId="USR-003", requisitionId="PR-002",
                   reason="BUD-004 headroom 2,400 is 1,500 short of 3,900")  # fmt: skip
    assert rejected["status"] == "rejected"
    approval = erp.state["approvals"]["APR-002"]
    assert (approval["status"], approval["decidedBy"]) == ("rejected", "USR-003")
    assert approval["notes"][-1]["text"].startswith("BUD-004 headroom")
    assert erp.state["budgets"]["BUD-004"]["committed"] == 3120
    erp.refused(
        "reject_requisition",
        "invalid_state",
        actorId="USR-003",
        requisitionId="PR-002",
        reason="again",
    )
    erp.refused(
        "reject_requisition",
        "forbidden",
        actorId="USR-008",
        requisitionId="PR-006",
        reason="not mine",
    )


def test_escalation_by_reassignment_to_an_authorised_approver() -> None:
    erp = ErpCaller()
    erp.refused("approve_requisition", "forbidden", actorId="USR-003", requisitionId="PR-006")
    erp.refused("approve_requisition", "forbidden", actorId="USR-008", requisitionId="PR-006")
    authority = erp("check_approval_authority", approvalId="APR-005")
    assert authority["authorised"] is False and [u["id"] for u in authority["authorisedUsers"]] == [
        "USR-008"
    ]
    erp.refused("reassign_approval", "invalid_input", actorId="USR-003", approvalId="APR-005",
                toUserId="USR-003", note="same")  # fmt: skip
    moved = erp("reassign_approval", actorId="USR-003", approvalId="APR-005", toUserId="USR-008",
                note="Above my 150k limit")  # fmt: skip
    assert moved["approverId"] == "USR-008" and moved["approverAuthorised"]
    assert "Reassigned from USR-003" in moved["notes"][-1]["text"]
    approved = erp("approve_requisition", actorId="USR-008", requisitionId="PR-006")
    assert approved["estimatedTotal"] == 176200 and approved["status"] == "approved"
    erp.refused("reassign_approval", "invalid_state", actorId="USR-003", approvalId="APR-005",
                toUserId="USR-001", note="late")  # fmt: skip


def test_cancel_requisition_releases_commitment_and_pending_approval() -> None:
    erp = ErpCaller()
    cancelled = erp(
        "cancel_requisition", actorId="USR-005", requisitionId="PR-006", reason="Overhaul deferred"
    )
    assert cancelled["status"] == "cancelled"
    assert erp.state["approvals"]["APR-005"]["status"] == "cancelled"
    erp2 = ErpCaller()
    _draft(erp2)
    erp2("update_budget", actorId="USR-008", budgetId="BUD-004", allocated=30000, reason="top-up")
    erp2("submit_requisition", actorId="USR-011", requisitionId="PR-007", approverId="USR-003")
    erp2("approve_requisition", actorId="USR-003", requisitionId="PR-007")
    erp2("cancel_requisition", actorId="USR-011", requisitionId="PR-007", reason="No longer needed")
    assert erp2.state["budgets"]["BUD-004"]["committed"] == 3120
    erp2.refused(
        "cancel_requisition",
        "invalid_state",
        actorId="USR-011",
        requisitionId="PR-007",
        reason="again",
    )


def test_approval_listings_and_notes() -> None:
    erp = ErpCaller()
    pending = erp("list_pending_approvals")["results"]
    assert {a["id"]: a["decideWith"] for a in pending} == {
        "APR-002": "approve_requisition", "APR-005": "approve_requisition",
        "APR-010": "approve_purchase_order", "APR-017": "approve_vendor_invoice",
    }  # fmt: skip
    assert erp("list_pending_approvals", approverId="USR-007")["results"][0]["id"] == "APR-017"
    assert erp("list_approvals", status="rejected")["total"] == 2
    assert [a["id"] for a in erp("list_approvals_for_entity", entityId="PR-005")["results"]] == [
        "APR-004"
    ]
    assert (
        erp("list_requisition_approvals", requisitionId="PR-006")["results"][0]["id"] == "APR-005"
    )
    assert erp("get_approval", approvalId="APR-017")["approverName"] == "Sofia Duarte"
    noted = erp(
        "add_approval_note", actorId="USR-006", approvalId="APR-017", text="Price 86 vs PO 82"
    )
    assert noted["notes"][-1]["authorId"] == "USR-006"
    assert erp("check_approval_authority", userId="USR-002", amount=25000)["authorised"]
    erp.refused("check_approval_authority", "invalid_input", userId="USR-002")


def test_convert_requisition_to_rfq_and_rfq_life_cycle() -> None:
    erp = ErpCaller()
    erp.refused("convert_requisition_to_rfq", "invalid_state", actorId="USR-002", requisitionId="PR-002",
                vendorIds=["VEN-009"])  # fmt: skip
    erp.state["requisitions"]["PR-004"]["status"] = "approved"
    erp.refused("convert_requisition_to_rfq", "forbidden", actorId="USR-002", requisitionId="PR-004",
                vendorIds=["VEN-001", "VEN-011"])  # fmt: skip
    converted = erp(
        "convert_requisition_to_rfq",
        actorId="USR-002",
        requisitionId="PR-004",
        vendorIds=["VEN-001"],
    )
    rfq = converted["rfq"]
    assert (rfq["id"], rfq["status"], rfq["requisitionId"]) == ("RFQ-005", "draft", "PR-004")
    assert converted["requisition"]["status"] == "converted"
    erp.refused(
        "add_vendor_to_rfq", "conflict", actorId="USR-002", rfqId="RFQ-005", vendorId="VEN-001"
    )
    erp.refused(
        "add_vendor_to_rfq", "invalid_state", actorId="USR-002", rfqId="RFQ-005", vendorId="VEN-010"
    )
    erp("add_vendor_to_rfq", actorId="USR-002", rfqId="RFQ-005", vendorId="VEN-012")
    erp("remove_vendor_from_rfq", actorId="USR-002", rfqId="RFQ-005", vendorId="VEN-012")
    erp.refused(
        "remove_vendor_from_rfq",
        "invalid_state",
        actorId="USR-002",
        rfqId="RFQ-002",
        vendorId="VEN-012",
    )
    erp.refused("send_rfq", "invalid_state", actorId="USR-002", rfqId="RFQ-002")
    assert erp("send_rfq", actorId="USR-002", rfqId="RFQ-005")["status"] == "sent"
    assert erp("close_rfq", actorId="USR-002", rfqId="RFQ-005")["status"] == "closed"
    assert (
        erp("cancel_rfq", actorId="USR-002", rfqId="RFQ-004", reason="Sourced elsewhere")["status"]
        == "cancelled"
    )
    erp.refused(
        "cancel_rfq", "invalid_state", actorId="USR-002", rfqId="RFQ-001", reason="awarded already"
    )
    standalone = erp(
        "create_rfq",
        actorId="USR-002",
        title="Flap discs",
        lines=[{"productId": "PRD-015", "quantity": 100}],
    )
    assert standalone["id"] == "RFQ-006" and standalone["vendorIds"] == []
    erp.refused("send_rfq", "invalid_state", actorId="USR-002", rfqId="RFQ-006")
    assert erp("list_rfqs", status="sent")["results"][0]["id"] == "RFQ-002"
    assert [q["id"] for q in erp("get_rfq", rfqId="RFQ-002")["quotations"]] == [
        "QUO-004",
        "QUO-005",
        "QUO-006",
    ]
    assert erp("list_rfq_quotations", rfqId="RFQ-002")["total"] == 3


def test_compare_and_award_the_cheapest_valid_quotation() -> None:
    erp = ErpCaller()
    comparison = erp("compare_quotations", rfqId="RFQ-002")
    assert comparison["cheapestOverall"]["quotationId"] == "QUO-005"
    assert (
        comparison["cheapestValid"]["quotationId"] == "QUO-006" and comparison["cheapestIsInvalid"]
    )
    assert erp("find_cheapest_valid_quotation", rfqId="RFQ-002")["id"] == "QUO-006"
    assert (
        erp("find_cheapest_valid_quotation", rfqId="RFQ-002", maxLeadTimeDays=7)["id"] == "QUO-004"
    )
    erp.refused("find_cheapest_valid_quotation", "not_found", rfqId="RFQ-002", maxLeadTimeDays=5)
    erp.refused("accept_quotation", "invalid_state", actorId="USR-002", quotationId="QUO-005")
    assert [q["id"] for q in erp("list_quotations", rfqId="RFQ-002", isValid=True)["results"]] == [
        "QUO-004",
        "QUO-006",
    ]
    accepted = erp("accept_quotation", actorId="USR-002", quotationId="QUO-006")
    assert accepted["status"] == "accepted" and accepted["rejectedQuotationIds"] == [
        "QUO-004",
        "QUO-005",
    ]
    rfq = erp.state["rfqs"]["RFQ-002"]
    assert (rfq["status"], rfq["awardedQuotationId"]) == ("awarded", "QUO-006")
    erp.refused("accept_quotation", "invalid_state", actorId="USR-002", quotationId="QUO-004")


def test_blocked_vendor_cannot_win_an_award() -> None:
    erp = ErpCaller()
    erp("block_vendor", actorId="USR-003", vendorId="VEN-012", reason="Sanctions screening hit")
    erp.refused("accept_quotation", "forbidden", actorId="USR-002", quotationId="QUO-006")


def test_record_update_reject_and_expire_quotations() -> None:
    erp = ErpCaller()
    erp.refused("record_quotation", "conflict", actorId="USR-002", rfqId="RFQ-002", vendorId="VEN-012",
                validUntil="2026-04-30", lines=[{"productId": "PRD-008", "unitPrice": 6}])  # fmt: skip
    erp("add_vendor_to_rfq", actorId="USR-002", rfqId="RFQ-002", vendorId="VEN-001")
    erp.refused("record_quotation", "invalid_input", actorId="USR-002", rfqId="RFQ-002", vendorId="VEN-001",
                validUntil="2026-04-30", lines=[{"productId": "PRD-001", "unitPrice": 6}])  # fmt: skip
    erp.refused("record_quotation", "invalid_input", actorId="USR-002", rfqId="RFQ-002", vendorId="VEN-009",
                validUntil="2026-04-30", lines=[{"productId": "PRD-008", "unitPrice": 6}])  # fmt: skip
    quote = erp("record_quotation", actorId="USR-002", rfqId="RFQ-002", vendorId="VEN-001", validUntil="2026-04-30",
                lines=[{"productId": "PRD-008", "unitPrice": 6.1}, {"productId": "PRD-010", "unitPrice": 7.0}])  # fmt: skip
    assert (quote["id"], quote["total"], quote["isValid"]) == ("QUO-008", 7160, True)
    erp.refused("record_quotation", "invalid_state", actorId="USR-002", rfqId="RFQ-004", vendorId="VEN-001",
                validUntil="2026-04-30", lines=[{"productId": "PRD-012", "unitPrice": 30}])  # fmt: skip
    revived = erp(
        "update_quotation", actorId="USR-002", quotationId="QUO-005", validUntil="2026-04-01"
    )
    assert revived["isValid"] and revived["status"] == "submitted"
    erp.refused("update_quotation", "invalid_input", actorId="USR-002", quotationId="QUO-005")
    assert (
        erp("reject_quotation", actorId="USR-002", quotationId="QUO-004", reason="Dearest")[
            "status"
        ]
        == "rejected"
    )
    erp.refused(
        "reject_quotation",
        "invalid_state",
        actorId="USR-002",
        quotationId="QUO-004",
        reason="again",
    )
    erp("advance_clock", actorId="USR-001", days=20)
    expired = erp("expire_quotations", actorId="USR-002")
    assert expired["expired"] == ["QUO-003", "QUO-005"]
    assert erp.state["quotations"]["QUO-005"]["status"] == "expired"
    assert erp("expire_quotations", actorId="USR-002")["count"] == 0


def test_requisition_and_quotation_reads() -> None:
    erp = ErpCaller()
    pending = erp("list_requisitions", status="pending_approval", budgetId="BUD-004")["results"]
    assert [r["id"] for r in pending] == ["PR-002"] and pending[0]["requesterName"] == "Rina Kapoor"
    assert [r["id"] for r in erp("search_requisitions", query="conveyor")["results"]] == ["PR-006"]
    requisition = erp("get_requisition", requisitionId="PR-006")
    assert requisition["estimatedTotal"] == 176200 and requisition["departmentName"] == "Operations"
    quote = erp("get_quotation", quotationId="QUO-005")
    assert (quote["isValid"], quote["daysUntilExpiry"], quote["total"]) == (False, -6, 6970)
    erp.refused("get_requisition", "not_found", requisitionId="PR-404")
    assert erp.state == erp.initial


def test_remaining_write_refusals() -> None:
    erp = ErpCaller()
    erp.refused(
        "submit_requisition",
        "invalid_state",
        actorId="USR-011",
        requisitionId="PR-002",
        approverId="USR-003",
    )
    erp.refused(
        "submit_requisition",
        "not_found",
        actorId="USR-004",
        requisitionId="PR-004",
        approverId="USR-404",
    )
    erp.refused(
        "add_approval_note", "invalid_input", actorId="USR-006", approvalId="APR-017", text="   "
    )
    erp.refused(
        "add_approval_note", "not_found", actorId="USR-006", approvalId="APR-404", text="note"
    )
    erp.refused("create_rfq", "invalid_state", actorId="USR-002", title="Wrenches",
                lines=[{"productId": "PRD-022", "quantity": 5}])  # fmt: skip
    erp.refused("create_rfq", "forbidden", actorId="USR-002", title="Drills",
                lines=[{"productId": "PRD-019", "quantity": 5}], vendorIds=["VEN-011"])  # fmt: skip
    erp.refused("close_rfq", "invalid_state", actorId="USR-002", rfqId="RFQ-004")
    erp.refused("expire_quotations", "not_found", actorId="USR-404")
    erp.refused("advance_clock", "not_found", actorId="USR-404", days=1)
    erp.refused(
        "create_budget",
        "not_found",
        actorId="USR-008",
        name="New",
        departmentId="DEPT-LAB",
        allocated=1,
    )
    erp.refused("search_vendors", "invalid_input", query="   ")
    assert not erp.accepts("list_vendors", status="unknown")
    assert not erp.accepts("get_vendor", vendorId="VEN-002", extra=1)
