"""ERP product and inventory tools: catalogue, availability, and every stock change."""

from __future__ import annotations

from tests.environments.erp_helpers import ErpCaller

OPS = "USR-005"


def test_product_reads_availability_and_pricing() -> None:
    erp = ErpCaller()
    assert erp("list_products", status="discontinued")["results"][0]["id"] == "PRD-022"
    assert erp("list_products", category="safety")["total"] == 3
    assert erp("search_products", query="FST-M1250")["results"][0]["id"] == "PRD-004"
    product = erp("get_product", productId="PRD-007")
    assert (product["onHand"], product["inbound"]) == (45, 15)
    availability = erp("get_product_availability", productId="PRD-003")
    assert [(w["warehouseId"], w["available"]) for w in availability["warehouses"]] == [
        ("WH-001", 95), ("WH-002", 80), ("WH-003", 12),
    ]  # fmt: skip
    assert availability["available"] == 187
    low = {
        w["warehouseId"]: w["belowReorderPoint"]
        for w in erp("get_product_availability", productId="PRD-010")["warehouses"]
    }
    assert low == {"WH-001": False, "WH-002": True, "WH-003": True}
    pricing = erp("get_product_pricing", productId="PRD-004")
    assert pricing["margin"] == 12.1 and pricing["lastPurchasePrices"][0] == {
        "vendorId": "VEN-002", "unitPrice": 22.62, "purchaseOrderId": "PO-203", "orderedAt": "2026-02-18T09:00:00.000Z",
    }  # fmt: skip
    erp.refused("get_product", "not_found", productId="PRD-999")


def test_create_update_and_discontinue_product() -> None:
    erp = ErpCaller()
    product = erp("create_product", actorId=OPS, sku="fst-m1060", name="Hex bolt M10x60", category="fasteners",
                  standardCost=18.0, listPrice=29.0, preferredVendorIds=["VEN-002"])  # fmt: skip
    assert (product["id"], product["sku"], product["status"]) == ("PRD-023", "FST-M1060", "active")
    erp.refused("create_product", "conflict", actorId=OPS, sku="FST-M1250", name="x", category="x",
                standardCost=1, listPrice=2)  # fmt: skip
    erp.refused("create_product", "not_found", actorId=OPS, sku="NEW-1", name="x", category="x",
                standardCost=1, listPrice=2, preferredVendorIds=["VEN-404"])  # fmt: skip
    assert (
        erp("update_product", actorId=OPS, productId="PRD-012", reorderQuantity=120)[
            "reorderQuantity"
        ]
        == 120
    )
    erp.refused("update_product", "invalid_input", actorId=OPS, productId="PRD-012")
    erp.refused(
        "discontinue_product",
        "invalid_state",
        actorId=OPS,
        productId="PRD-003",
        reason="Superseded",
    )
    erp.refused(
        "discontinue_product", "invalid_state", actorId=OPS, productId="PRD-022", reason="Again"
    )
    assert (
        erp("discontinue_product", actorId=OPS, productId="PRD-021", reason="Range change")[
            "status"
        ]
        == "discontinued"
    )
    assert erp.audit_actions() == ["product.created", "product.updated", "product.discontinued"]


def test_warehouse_and_stock_reads() -> None:
    erp = ErpCaller()
    warehouses = erp("list_warehouses")["results"]
    assert [w["status"] for w in warehouses] == ["active", "active", "active", "inactive"]
    assert erp("get_warehouse", warehouseId="WH-002")["managerName"] == "Grace Yamamoto"
    low = erp("list_inventory", warehouseId="WH-001", lowStock=True)["results"]
    assert {row["productId"] for row in low} >= {"PRD-012"}
    record = erp("get_inventory", productId="PRD-012", warehouseId="WH-001")
    assert (record["available"], record["effectiveReorderPoint"]) == (26, 40)
    erp.refused("get_inventory", "not_found", productId="PRD-020", warehouseId="WH-003")
    assert (
        erp("get_available_quantity", productId="PRD-020", warehouseId="WH-003")["available"] == 0
    )
    shortage = {
        row["productId"]: row for row in erp("list_low_stock", warehouseId="WH-001")["results"]
    }
    assert (
        shortage["PRD-012"]["shortfall"] == 10
        and shortage["PRD-012"]["suggestedReorderQuantity"] == 100
    )
    moves = erp("list_inventory_movements", productId="PRD-010")["results"]
    assert [m["id"] for m in moves] == ["MOV-018", "MOV-014", "MOV-013"]
    assert erp("get_inventory_movement", movementId="MOV-013")["type"] == "transfer_out"
    split = erp("find_warehouses_with_stock", productId="PRD-003", quantity=150)
    assert (split["singleWarehouseCanCover"], split["splitRequired"], split["canCover"]) == (
        False,
        True,
        True,
    )
    assert erp("find_warehouses_with_stock", productId="PRD-003", quantity=90)[
        "singleWarehouseCanCover"
    ]


def test_transfer_moves_unreserved_stock_to_an_active_site() -> None:
    erp = ErpCaller()
    result = erp("transfer_inventory", actorId=OPS, productId="PRD-010", fromWarehouseId="WH-001",
                 toWarehouseId="WH-002", quantity=200, reason="Rebalance below reorder point")  # fmt: skip
    assert result["transferId"] == "TRF-002"
    assert [m["type"] for m in result["movements"]] == ["transfer_out", "transfer_in"]
    stock = erp.state["inventory"]
    assert (
        stock["STK-PRD-010-WH-001"]["onHand"] == 320
        and stock["STK-PRD-010-WH-002"]["onHand"] == 260
    )
    erp.refused("transfer_inventory", "insufficient_stock", actorId=OPS, productId="PRD-010",
                fromWarehouseId="WH-001", toWarehouseId="WH-002", quantity=281)  # fmt: skip
    erp.refused("transfer_inventory", "invalid_state", actorId=OPS, productId="PRD-010",
                fromWarehouseId="WH-001", toWarehouseId="WH-004", quantity=1)  # fmt: skip
    erp.refused("transfer_inventory", "invalid_input", actorId=OPS, productId="PRD-010",
                fromWarehouseId="WH-001", toWarehouseId="WH-001", quantity=1)  # fmt: skip
    assert erp.audit_actions() == ["inventory.transferred"]


def test_adjust_count_reserve_and_release() -> None:
    erp = ErpCaller()
    adjusted = erp("adjust_inventory", actorId=OPS, productId="PRD-006", warehouseId="WH-001",
                   quantityChange=-3, reason="Crushed cases")  # fmt: skip
    assert (
        adjusted["stock"][0]["onHand"] == 45
        and adjusted["movements"][0]["referenceId"] == "ADJ-004"
    )
    erp.refused("adjust_inventory", "invalid_input", actorId=OPS, productId="PRD-006", warehouseId="WH-001",
                quantityChange=0, reason="none")  # fmt: skip
    erp.refused("adjust_inventory", "insufficient_stock", actorId=OPS, productId="PRD-006",
                warehouseId="WH-001", quantityChange=-40, reason="below reserved")  # fmt: skip
    counted = erp(
        "count_inventory",
        actorId=OPS,
        productId="PRD-012",
        warehouseId="WH-001",
        countedQuantity=33,
    )
    assert counted["variance"] == 3 and counted["stock"][0]["lastCountedAt"] == erp.state["now"]
    erp.refused("count_inventory", "insufficient_stock", actorId=OPS, productId="PRD-012",
                warehouseId="WH-001", countedQuantity=3)  # fmt: skip
    reserved = erp(
        "reserve_inventory", actorId=OPS, productId="PRD-003", warehouseId="WH-002", quantity=80
    )
    assert reserved["stock"][0]["available"] == 0
    erp.refused("reserve_inventory", "insufficient_stock", actorId=OPS, productId="PRD-003",
                warehouseId="WH-002", quantity=1)  # fmt: skip
    erp.refused("release_reservation", "invalid_state", actorId=OPS, productId="PRD-003",
                warehouseId="WH-002", quantity=81)  # fmt: skip
    assert (
        erp(
            "release_reservation",
            actorId=OPS,
            productId="PRD-003",
            warehouseId="WH-002",
            quantity=80,
        )["stock"][0]["reserved"]
        == 0
    )
    assert erp.audit_actions() == [
        "inventory.adjusted",
        "inventory.counted",
        "inventory.reserved",
        "inventory.released",
    ]
    assert len(erp.state["inventoryMovements"]) == 24


def test_deactivated_actor_is_refused() -> None:
    erp = ErpCaller()
    erp.state["users"]["USR-004"]["active"] = False
    erp.refused("adjust_inventory", "not_allowed", actorId="USR-004", productId="PRD-006",
                warehouseId="WH-001", quantityChange=1, reason="found")  # fmt: skip
