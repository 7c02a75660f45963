"""Product tools: the catalogue, its prices, reorder policy and availability.

Contract: list (category, status), search (id, SKU, name, category), get (with stock totals),
create (unique SKU, else ``conflict``), update (prices, reorder policy, lead time, preferred
vendors; vendors must exist), discontinue (refused while open purchase or sales order lines
name the product), availability per warehouse (on hand, reserved, available, inbound, below
reorder) and pricing (margin at list price, last purchase price per vendor). Each mutation
appends one audit row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import Args, apply_changes, changes, non_blank
from silo.toolkit.results import snapshot
from silo.toolkit.schema import choice, integer, obj, text

from ..domain import stock
from ..domain.money import round2
from ..state import mint_id
from .common import WRITES, State, audit, fetch
from .crud import get_tool, list_tool, search_tool
from .schema import PRODUCT_STATUSES, acting_on, actor, by_id, id_list, money, reason, record_id
from .views import stock_view

UPDATABLE = (
    "name",
    "standardCost",
    "listPrice",
    "reorderPoint",
    "reorderQuantity",
    "leadTimeDays",
    "preferredVendorIds",
)
OPEN_PO = ("draft", "pending_approval", "approved", "sent", "partially_received")
OPEN_SO = ("draft", "confirmed", "partially_fulfilled")


def availability(state: Mapping[str, Any], product_id: str) -> dict[str, Any]:
    """Stock of one product per warehouse and in total (on hand, reserved, available, inbound)."""
    rows = [
        stock_view(state, record) for record in stock.INVENTORY_BY_PRODUCT.rows(state, product_id)
    ]
    rows.sort(key=lambda row: row["warehouseId"])
    totals = {
        key: sum(int(row[key]) for row in rows) for key in ("onHand", "reserved", "available")
    }
    return {
        "productId": product_id,
        "warehouses": [
            {
                key: row[key]
                for key in (
                    "warehouseId",
                    "warehouseName",
                    "onHand",
                    "reserved",
                    "available",
                    "inbound",
                    "effectiveReorderPoint",
                    "belowReorderPoint",
                )
            }
            for row in rows
        ],
        **totals,
        "inbound": stock.inbound_quantity(state, product_id),
    }


def _product_view(state: Any, product: Any) -> dict[str, Any]:
    summary = availability(state, product["id"])
    return {
        **product,
        **{key: summary[key] for key in ("onHand", "reserved", "available", "inbound")},
    }


def _known_vendors(state: State, vendor_ids: list[str]) -> list[str]:
    for vendor_id in vendor_ids:
        fetch(state, "vendors", vendor_id)
    return list(vendor_ids)


def _create_product(state: State, args: Args) -> dict[str, Any]:
    sku = non_blank(args["sku"], "sku").upper()
    for other in state["products"].values():
        if other["sku"] == sku:
            raise ToolError(
                "conflict", f"SKU {sku} already belongs to {other['id']}; pick another SKU"
            )
    name, category = non_blank(args["name"], "name"), non_blank(args["category"], "category")
    vendors = _known_vendors(state, args.get("preferredVendorIds", []))
    product = {
        "id": mint_id(state, "PRD"),
        "sku": sku,
        "name": name,
        "category": category,
        "unit": args.get("unit", "each"),
        "standardCost": args["standardCost"],
        "listPrice": args["listPrice"],
        "reorderPoint": args.get("reorderPoint", 0),
        "reorderQuantity": args.get("reorderQuantity", 0),
        "leadTimeDays": args.get("leadTimeDays", 7),
        "preferredVendorIds": vendors,
        "status": "active",
    }
    state["products"][product["id"]] = product
    audit(state, args, "product.created", product)
    return snapshot(product)


def _update_product(state: State, args: Args) -> dict[str, Any]:
    product = fetch(state, "products", args["productId"])
    updates = changes(args, UPDATABLE)
    if "name" in updates:
        updates["name"] = non_blank(updates["name"], "name")
    if "preferredVendorIds" in updates:
        _known_vendors(state, updates["preferredVendorIds"])
    diff = apply_changes(product, updates)
    audit(state, args, "product.updated", product, diff)
    return snapshot(product)


def _open_lines(state: State, product_id: str) -> list[str]:
    found = [
        po["id"]
        for po in state["purchaseOrders"].values()
        if po["status"] in OPEN_PO and any(line["productId"] == product_id for line in po["lines"])
    ]
    found += [
        so["id"]
        for so in state["salesOrders"].values()
        if so["status"] in OPEN_SO and any(line["productId"] == product_id for line in so["lines"])
    ]
    return sorted(found)


def _discontinue_product(state: State, args: Args) -> dict[str, Any]:
    product = fetch(state, "products", args["productId"])
    if product["status"] == "discontinued":
        raise ToolError("invalid_state", f"{product['id']} is already discontinued")
    blocking = _open_lines(state, product["id"])
    if blocking:
        raise ToolError(
            "invalid_state",
            f"{product['id']} is on open orders {', '.join(blocking)}; finish or cancel them first",
            {"documents": blocking},
        )
    product["status"] = "discontinued"
    audit(state, args, "product.discontinued", product, {"reason": args["reason"].strip()})
    return snapshot(product)


def _get_product_availability(state: State, args: Args) -> dict[str, Any]:
    product = fetch(state, "products", args["productId"])
    return {"productName": product["name"], **availability(state, product["id"])}


def _get_product_pricing(state: State, args: Args) -> dict[str, Any]:
    product = fetch(state, "products", args["productId"])
    last: dict[str, dict[str, Any]] = {}
    for po in sorted(state["purchaseOrders"].values(), key=lambda po: (po["createdAt"], po["id"])):
        if po["status"] in ("draft", "rejected", "cancelled"):
            continue
        for line in po["lines"]:
            if line["productId"] == product["id"]:
                last[po["vendorId"]] = {
                    "vendorId": po["vendorId"],
                    "unitPrice": line["unitPrice"],
                    "purchaseOrderId": po["id"],
                    "orderedAt": po["createdAt"],
                }
    list_price, cost = float(product["listPrice"]), float(product["standardCost"])
    return {
        "productId": product["id"],
        "standardCost": product["standardCost"],
        "listPrice": product["listPrice"],
        "margin": round2(list_price - cost),
        "marginPct": round(((list_price - cost) / list_price * 100) if list_price else 0, 1),
        "lastPurchasePrices": [last[key] for key in sorted(last)],
    }


PRODUCT_ID = "Id of the product, e.g. PRD-012."


def _policy_fields() -> dict[str, Any]:
    return {
        "standardCost": money("Standard (purchase) cost per unit in USD."),
        "listPrice": money("List (selling) price per unit in USD."),
        "reorderPoint": integer("Reorder when on hand falls below this.", 0, 1_000_000),
        "reorderQuantity": integer("Units to order when reordering.", 0, 1_000_000),
        "leadTimeDays": integer("Usual days to restock.", 0, 365),
        "preferredVendorIds": id_list("vendor", "Preferred vendors, best first.", min_items=0),
    }


TOOLS: list[Tool] = [
    list_tool(
        "list_products",
        "List catalogue products, optionally filtered by category or status.",
        "products",
        {
            "category": text("Only products of this category (e.g. safety)."),
            "status": choice(PRODUCT_STATUSES, "Only active or discontinued products."),
        },
    ),
    search_tool(
        "search_products",
        "Find products whose id, SKU, name or category contains the query.",
        "products",
        lambda p: (p["id"], p["sku"], p["name"], p["category"]),
    ),
    get_tool(
        "get_product",
        "One product with prices, reorder policy, preferred vendors and total stock.",
        "products",
        "product",
        "productId",
        view=_product_view,
        example="PRD-012",
    ),
    WRITES.tool(
        "create_product",
        "Add a product to the catalogue. SKUs are unique.",
        obj(
            {
                "actorId": actor(),
                "sku": text("Stock-keeping unit code, e.g. FST-M1250.", max_length=40),
                "name": text("Product name."),
                "category": text("Category (e.g. fasteners)."),
                "unit": text("Unit of measure (default each).", max_length=20),
                **_policy_fields(),
            },
            ["actorId", "sku", "name", "category", "standardCost", "listPrice"],
        ),
        _create_product,
    ),
    WRITES.tool(
        "update_product",
        "Change a product's name, prices, reorder policy, lead time or preferred vendors.",
        obj(
            {
                "actorId": actor(),
                "productId": record_id("product", PRODUCT_ID),
                "name": text("New product name."),
                **_policy_fields(),
            },
            ["actorId", "productId"],
        ),
        _update_product,
    ),
    WRITES.tool(
        "discontinue_product",
        "Discontinue a product. Refused while open purchase or sales order lines use it.",
        acting_on("product", "productId", PRODUCT_ID, reason=reason("Why it is discontinued.")),
        _discontinue_product,
    ),
    define_tool(
        "get_product_availability",
        "Stock of a product per warehouse: on hand, reserved, available, inbound on open "
        "purchase orders, and whether each site is below its reorder point.",
        by_id("product", "productId", PRODUCT_ID),
        _get_product_availability,
        read_only=True,
    ),
    define_tool(
        "get_product_pricing",
        "A product's standard cost, list price, margin and the last price paid to each vendor.",
        by_id("product", "productId", PRODUCT_ID),
        _get_product_pricing,
        read_only=True,
    ),
]
