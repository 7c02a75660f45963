"""Document lines as tools accept them: product lines checked against the catalogue.

Contract: :func:`product_lines` turns the ``lines`` argument of a create or update tool into
stored lines (``productId``, ``quantity``, ``unitPrice``), refusing unknown or discontinued
products and repeated products; a line without a price takes the product's price field
(``standardCost`` for buying, ``listPrice`` for selling). :func:`line_schema` is the matching
input schema. Line ids and totals are added afterwards by :func:`reprice`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from silo import ToolError
from silo.toolkit.schema import Schema

from ..domain.money import price_document
from .common import fetch
from .schema import lines, money, quantity, record_id

State = dict[str, Any]


def product_lines(
    state: Mapping[str, Any],
    given: Sequence[Mapping[str, Any]],
    *,
    default_price: str = "standardCost",
    extra: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Stored lines for ``given``; ``extra`` adds default fields (e.g. received quantities)."""
    seen: set[str] = set()
    result = []
    for item in given:
        product = fetch(state, "products", item["productId"])
        if product["status"] != "active":
            raise ToolError(
                "invalid_state",
                f"{product['id']} is {product['status']} and cannot be ordered",
                {"id": product["id"]},
            )
        if product["id"] in seen:
            raise ToolError(
                "invalid_input",
                f"{product['id']} appears on two lines; put its whole quantity on one line",
            )
        if "quantity" not in item:
            raise ToolError("invalid_input", f"the {product['id']} line has no quantity; give one")
        seen.add(product["id"])
        price = item["unitPrice"] if "unitPrice" in item else product[default_price]
        result.append(
            {
                "productId": product["id"],
                "quantity": int(item["quantity"]),
                "unitPrice": price,
                **dict(extra or {}),
            }
        )
    return result


def reprice(doc: dict[str, Any], *, taxed: bool, total_field: str = "total") -> None:
    """Give a document's lines their ids (``<doc>-L<n>``) and re-derive its totals."""
    doc["lines"] = [
        {
            "id": f"{doc['id']}-L{n}",
            **{k: v for k, v in line.items() if k not in ("id", "lineTotal")},
        }
        for n, line in enumerate(doc["lines"], 1)
    ]
    price_document(doc, taxed=taxed, total_field=total_field)


def line_schema(description: str, price_hint: str) -> Schema:
    """The ``lines`` input: products, quantities and optional unit prices."""
    return lines(
        description,
        {
            "productId": record_id("product", "Product on this line, e.g. PRD-020."),
            "quantity": quantity("Units."),
            "unitPrice": money(f"Unit price in USD ({price_hint})."),
        },
        ["productId", "quantity"],
    )
