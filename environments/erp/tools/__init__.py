"""The ERP's tools, gathered from one module per domain.

Contract: :data:`ALL_TOOLS` lists every tool once, in the reference's registry order (clock,
vendors, customers, products, inventory, requisitions, approvals, RFQs, quotations, purchase
orders, receiving, vendor invoices, payments, sales orders, customer invoices, expenses,
budgets, reporting, audit). Tools hold no state of their own: each ``run(state, input)`` acts
on the world it is given, so one list serves every world.
"""

from __future__ import annotations

from silo import Tool
from silo.toolkit.registry import unique_tools

from . import (
    approvals,
    audit,
    budgets,
    clock,
    customer_invoices,
    customers,
    expenses,
    inventory,
    payments,
    products,
    purchase_orders,
    quotations,
    receiving,
    reporting,
    requisitions,
    rfqs,
    sales_orders,
    vendor_invoices,
    vendors,
)

ALL_TOOLS: list[Tool] = [
    *clock.TOOLS,
    *vendors.TOOLS,
    *customers.TOOLS,
    *products.TOOLS,
    *inventory.TOOLS,
    *requisitions.TOOLS,
    *approvals.TOOLS,
    *rfqs.TOOLS,
    *quotations.TOOLS,
    *purchase_orders.TOOLS,
    *receiving.TOOLS,
    *vendor_invoices.TOOLS,
    *payments.TOOLS,
    *sales_orders.TOOLS,
    *customer_invoices.TOOLS,
    *expenses.TOOLS,
    *budgets.TOOLS,
    *reporting.TOOLS,
    *audit.TOOLS,
]

unique_tools(ALL_TOOLS)

__all__ = ["ALL_TOOLS"]
