"""The ERP world as loaded: keys, seed sizes, derived figures, the seeded messes, and the
shared domain rules (stock write path, budgets, approvals, statuses, payments)."""

from __future__ import annotations

import pytest

import silo
from tests.environments.erp_helpers import ErpCaller, erp_env, erp_module

SIZES = {
    "departments": 6, "users": 13, "vendors": 12, "customers": 12, "products": 22,
    "warehouses": 4, "inventoryMovements": 20, "requisitions": 6, "approvals": 25, "rfqs": 4,
    "quotations": 7, "purchaseOrders": 9, "goodsReceipts": 6, "receivingDiscrepancies": 2,
    "vendorInvoices": 8, "threeWayMatches": 6, "payments": 6, "salesOrders": 8,
    "fulfillments": 3, "customerInvoices": 7, "expenses": 5, "budgets": 6,
}  # fmt: skip


@pytest.fixture
def world() -> dict:
    return erp_env().create_state()


def test_state_keys_are_in_reference_order(world: dict) -> None:
    assert list(world) == list(erp_module("state").STATE_KEYS)
    assert world["now"] == "2026-03-16T09:00:00.000Z"
    assert world["company"]["name"] == "Meridian Industrial Supply"


def test_seed_sizes_and_counters_match(world: dict) -> None:
    assert {name: len(world[name]) for name in SIZES} == SIZES
    assert len(world["auditLog"]) == 20
    for name, prefix in (
        ("purchaseOrders", "PO"),
        ("vendorInvoices", "VINV"),
        ("quotations", "QUO"),
    ):
        assert world["sequences"][prefix] == max(int(key.split("-")[-1]) for key in world[name])
    assert world["sequences"]["AUD"] == 20 and {"TRF", "ADJ"} <= set(world["sequences"])
    assert all(
        key == f"STK-{r['productId']}-{r['warehouseId']}" for key, r in world["inventory"].items()
    )


def test_worlds_are_independent(world: dict) -> None:
    world["purchaseOrders"]["PO-203"]["lines"][0]["quantity"] = 1
    assert erp_env().create_state()["purchaseOrders"]["PO-203"]["lines"][0]["quantity"] == 300


def test_line_ids_totals_and_tax_are_derived(world: dict) -> None:
    po = world["purchaseOrders"]["PO-203"]
    assert [line["id"] for line in po["lines"]] == ["PO-203-L1"]
    assert (po["subtotal"], po["tax"], po["total"]) == (6786, 542.88, 7328.88)
    assert world["salesOrders"]["SO-306"]["subtotal"] == 5040
    assert world["vendorInvoices"]["VINV-103"]["total"] == 7430.4
    quote = world["quotations"]["QUO-006"]
    assert quote["total"] == quote["subtotal"] == 7330 and "tax" not in quote
    assert world["requisitions"]["PR-006"]["estimatedTotal"] == 176200
    assert world["requisitions"]["PR-002"]["estimatedTotal"] == 3900
    assert world["salesOrders"]["SO-305"]["lines"][0]["fulfilledQuantity"] == 0
    assert world["customerInvoices"]["CINV-403"]["amountPaid"] == 0


def test_seeded_messes_are_present(world: dict) -> None:
    budget = world["budgets"]["BUD-004"]
    assert (budget["allocated"], budget["committed"], budget["spent"]) == (24000, 3120, 18480)
    assert world["approvals"]["APR-005"]["approverId"] == "USR-003"
    assert world["users"]["USR-003"]["approvalLimit"] < 176200
    vinv104 = world["vendorInvoices"]["VINV-104"]
    assert (
        vinv104["lines"][0]["quantity"]
        > world["purchaseOrders"]["PO-203"]["lines"][0]["receivedQuantity"]
        == 250
    )
    assert world["vendorInvoices"]["VINV-103"]["lines"][0]["unitPrice"] == 86
    assert world["payments"]["PAY-003"]["status"] == "failed"
    assert world["quotations"]["QUO-005"]["validUntil"] < world["now"][:10]
    po202 = world["purchaseOrders"]["PO-202"]["lines"][0]
    assert (po202["quantity"], po202["receivedQuantity"]) == (40, 25)
    stock = world["inventory"]
    assert (
        stock["STK-PRD-003-WH-001"]["onHand"] < 150 and stock["STK-PRD-003-WH-002"]["onHand"] < 150
    )
    assert stock["STK-PRD-003-WH-001"]["onHand"] + stock["STK-PRD-003-WH-002"]["onHand"] >= 150
    wh1_012 = stock["STK-PRD-012-WH-001"]
    assert wh1_012["onHand"] - wh1_012["reserved"] < 40
    assert stock["STK-PRD-010-WH-002"]["onHand"] < stock["STK-PRD-010-WH-002"]["reorderPoint"]
    assert stock["STK-PRD-010-WH-001"]["onHand"] - stock["STK-PRD-010-WH-001"]["reserved"] >= 200


def test_overdue_and_due_soon_invoices(world: dict) -> None:
    documents = erp_module("domain.documents")
    overdue_customer = [
        i for i in world["customerInvoices"].values() if documents.is_overdue(world, i)
    ]
    big = sorted(i["id"] for i in overdue_customer if i["total"] > 10000)
    assert big == ["CINV-403", "CINV-407"]
    by_customer: dict[str, float] = {}
    for invoice in overdue_customer:
        by_customer[invoice["customerId"]] = by_customer.get(
            invoice["customerId"], 0
        ) + documents.outstanding(invoice)
    assert max(by_customer, key=by_customer.__getitem__) == "CUS-003"
    assert documents.is_overdue(world, world["vendorInvoices"]["VINV-108"])
    due_soon = [
        i["id"] for i in world["vendorInvoices"].values()
        if i["status"] in ("approved", "partially_paid") and i["dueDate"] <= "2026-03-23"
        and not documents.is_overdue(world, i)
    ]  # fmt: skip
    assert due_soon == ["VINV-107"]


def test_stock_write_path_refuses_and_is_all_or_nothing(world: dict) -> None:
    stock = erp_module("domain.stock")
    change = stock.StockChange
    before = dict(world["inventory"]["STK-PRD-003-WH-001"])
    with pytest.raises(silo.ToolError) as caught:
        stock.apply_stock_changes(
            world,
            [change("PRD-003", "WH-001", on_hand=-10), change("PRD-003", "WH-002", on_hand=-81)],
            actor_id="USR-004", reference_type="test", reference_id="T",
        )  # fmt: skip
    assert caught.value.code == "insufficient_stock"
    assert world["inventory"]["STK-PRD-003-WH-001"] == before
    assert len(world["inventoryMovements"]) == 20
    with pytest.raises(silo.ToolError) as caught:
        stock.apply_stock_changes(
            world, [change("PRD-003", "WH-001", reserved=-1)],
            actor_id="USR-004", reference_type="test", reference_id="T",
        )  # fmt: skip
    assert caught.value.code == "invalid_state"
    with pytest.raises(silo.ToolError):
        stock.apply_stock_changes(
            world, [change("PRD-003", "WH-001", reserved=96)],
            actor_id="USR-004", reference_type="test", reference_id="T",
        )  # fmt: skip
    moved = stock.apply_stock_changes(
        world, [change("PRD-020", "WH-002", on_hand=5, kind="receipt")],
        actor_id="USR-004", reference_type="goods_receipt", reference_id="GR-999",
    )  # fmt: skip
    assert moved[0]["id"] == "MOV-021" and world["inventory"]["STK-PRD-020-WH-002"]["onHand"] == 5


def test_inbound_is_derived_from_open_purchase_orders(world: dict) -> None:
    stock = erp_module("domain.stock")
    assert stock.inbound_quantity(world, "PRD-007", "WH-001") == 15
    assert stock.inbound_quantity(world, "PRD-006", "WH-002") == 60
    world["purchaseOrders"]["PO-202"]["lines"][0]["rejectedQuantity"] = 15
    assert stock.inbound_quantity(world, "PRD-007") == 0


def test_budget_commitment_stops_at_headroom(world: dict) -> None:
    budgets = erp_module("domain.budgets")
    pr002 = world["requisitions"]["PR-002"]
    assert budgets.headroom(world["budgets"]["BUD-004"]) == 2400
    assert budgets.availability(world["budgets"]["BUD-004"], 3900)["shortfall"] == 1500
    with pytest.raises(silo.ToolError) as caught:
        budgets.commit(world, pr002, 3900)
    assert caught.value.code == "limit_exceeded"
    assert world["budgets"]["BUD-004"]["committed"] == 3120 and pr002["committedAmount"] == 0
    assert budgets.commit(world, pr002, 2400) == 2400
    assert budgets.headroom(world["budgets"]["BUD-004"]) == 0
    assert (
        budgets.release(world, pr002) == 2400 and world["budgets"]["BUD-004"]["committed"] == 3120
    )


def test_approvals_need_the_named_authorised_approver_and_decide_once(world: dict) -> None:
    approvals = erp_module("domain.approvals")
    apr005 = world["approvals"]["APR-005"]
    users = world["users"]
    assert approvals.qualified_approvers(world, 176200) == ["USR-008"]
    for decider in (users["USR-003"], users["USR-008"]):
        with pytest.raises(silo.ToolError) as caught:
            approvals.decide(world, apr005, decider, approve=True)
        assert caught.value.code == "forbidden"
    assert apr005["status"] == "pending"
    assert not approvals.authorised(users["USR-004"], 1)
    approvals.decide(
        world, world["approvals"]["APR-002"], users["USR-003"], approve=False, note="no"
    )
    with pytest.raises(silo.ToolError) as caught:
        approvals.decide(world, world["approvals"]["APR-002"], users["USR-003"], approve=True)
    assert caught.value.code == "invalid_state"


def test_statuses_follow_receipts_shipments_and_payments(world: dict) -> None:
    documents = erp_module("domain.documents")
    po = world["purchaseOrders"]["PO-202"]
    po["lines"][0]["receivedQuantity"] = 40
    assert documents.recompute_po_status(po) == "received"
    so = world["salesOrders"]["SO-307"]
    so["lines"][0]["fulfilledQuantity"] = 90
    assert documents.recompute_so_status(so) == "partially_fulfilled"
    invoice = world["vendorInvoices"]["VINV-108"]
    assert documents.apply_payment(invoice, 100) == "partially_paid"
    with pytest.raises(silo.ToolError):
        documents.apply_payment(invoice, invoice["total"])
    assert documents.apply_payment(invoice, documents.outstanding(invoice)) == "paid"
    assert not documents.is_overdue(world, invoice)


def test_ids_and_money_helpers() -> None:
    caller = ErpCaller()
    state = erp_module("state")
    assert state.mint_id(caller.state, "PO") == "PO-210"
    assert state.mint_id(caller.state, "AUD") == "AUD-0021"
    assert state.mint_id(caller.state, "NEW") == "NEW-002"
    money = erp_module("domain.money")
    assert (
        money.round2(0.125) == 0.13 and money.round2(2.675) == 2.68 and money.round2(3080.0) == 3080
    )


MY_MODULES = (
    "clock", "vendors", "customers", "products", "inventory", "requisitions", "approvals",
    "rfqs", "quotations", "purchase_orders", "receiving", "budgets",
)  # fmt: skip


def test_tool_registry_order_and_actor_on_every_write() -> None:
    names = [tool.name for tool in erp_env().bind_tools(erp_env().create_state())]
    assert len(names) == len(set(names))
    position = 0
    for module_name in MY_MODULES:
        for tool in erp_module(f"tools.{module_name}").TOOLS:
            assert names.index(tool.name) >= position, f"{tool.name} is out of registry order"
            position = names.index(tool.name)
            schema = tool.input_schema
            assert schema["additionalProperties"] is False and schema["type"] == "object"
            if not tool.read_only:
                assert "actorId" in schema["required"], f"{tool.name} takes no actorId"
            for prop in schema["properties"].values():
                assert prop.get("description"), f"{tool.name} has an undescribed property"


def test_refusals_leave_no_minted_ids_behind() -> None:
    erp = ErpCaller()
    erp.refused("create_purchase_order", "invalid_input", actorId="USR-002", vendorId="VEN-012",
                quotationId="QUO-006", lines=[{"productId": "PRD-008", "quantity": 1}])  # fmt: skip
    erp.refused("receive_goods", "invalid_input", actorId="USR-004", purchaseOrderId="PO-202",
                lines=[{"poLineId": "PO-202-L1", "quantityReceived": 0}])  # fmt: skip
    erp.refused("create_requisition", "not_found", actorId="USR-004", title="x", budgetId="BUD-002",
                lines=[{"productId": "PRD-404", "quantity": 1}])  # fmt: skip
    assert erp.state == erp.initial
