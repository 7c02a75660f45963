"""Random, schema-valid calls to the foundation and procurement tools (fixed seed): a refusal
never changes the world, a read-only tool never writes, nothing crashes, every output is JSON,
and stock, budget and receipt invariants hold after every call."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import jsonschema
import orjson
import pytest

import silo
from tests.environments.erp_helpers import erp_env, erp_module

MODULES = (
    "clock", "vendors", "customers", "products", "inventory", "requisitions", "approvals",
    "rfqs", "quotations", "purchase_orders", "receiving", "budgets",
)  # fmt: skip
DATES = ("2026-03-10", "2026-03-16", "2026-04-30", "2027-01-01")
TEXTS = ("Reason text", "  ", "fix", "PRD-003")


class Values:
    """Draws argument values from a schema, with ids taken from the seed world (plus misses)."""

    def __init__(self, rng: random.Random, world: dict[str, Any]) -> None:
        self.rng = rng
        self.ids: dict[str, list[str]] = {}
        for records in world.values():
            if isinstance(records, dict):
                for key in records:
                    if isinstance(key, str) and "-" in key:
                        self.ids.setdefault(key.split("-")[0], []).append(key)
        self.lines = [line["id"] for po in world["purchaseOrders"].values() for line in po["lines"]]

    def string(self, schema: dict[str, Any]) -> str:
        pattern = schema.get("pattern", "")
        prefix = re.match(r"\^([A-Z]+)-", pattern)
        if "L\\d" in pattern:
            return self.rng.choice([*self.lines, "PO-210-L1"])
        if prefix and prefix.group(1) in self.ids:
            kind = prefix.group(1)
            return self.rng.choice([*self.ids[kind], f"{kind}-210", f"{kind}-007"])
        if "\\d{4}-" in pattern:
            return self.rng.choice(DATES)
        return "x@y.example" if "@" in pattern else self.rng.choice(TEXTS)

    def draw(self, schema: dict[str, Any]) -> Any:
        kind = schema.get("type")
        if "enum" in schema:
            return self.rng.choice(schema["enum"])
        if kind == "string":
            return self.string(schema)
        if kind == "integer":
            low = schema.get("minimum", 0)
            return self.rng.choice([low, 1, 5, 20, 150, 300] + ([-3] if low < 0 else []))
        if kind == "number":
            return self.rng.choice([0.5, 10, 154, 3080, 200000])
        if kind == "boolean":
            return self.rng.choice([True, False])
        if kind == "array":
            return [self.draw(schema["items"]) for _ in range(self.rng.choice([1, 1, 2]))]
        props = schema["properties"]
        drawn = {name: self.draw(props[name]) for name in schema["required"]}
        for name in props:
            if name not in drawn and self.rng.random() < 0.4:
                drawn[name] = self.draw(props[name])
        return drawn


def _invariants(world: dict[str, Any]) -> None:
    for record in world["inventory"].values():
        assert 0 <= record["reserved"] <= record["onHand"], record["id"]
    for budget in world["budgets"].values():
        assert budget["committed"] >= 0, budget["id"]
    for po in world["purchaseOrders"].values():
        for line in po["lines"]:
            assert line["receivedQuantity"] + line["rejectedQuantity"] <= line["quantity"], line[
                "id"
            ]


@pytest.mark.parametrize("seed", [11, 12])
def test_random_calls_keep_the_world_consistent(seed: int) -> None:
    tools = [tool for name in MODULES for tool in erp_module(f"tools.{name}").TOOLS]
    validators = {tool.name: jsonschema.Draft202012Validator(tool.input_schema) for tool in tools}
    world = erp_env().create_state()
    rng = random.Random(seed)
    values = Values(rng, world)
    outcomes = {"ok": 0, "refused": 0}
    for _ in range(400):
        tool = rng.choice(tools)
        args = values.draw(tool.input_schema)
        if not validators[tool.name].is_valid(args):
            continue
        before = orjson.dumps(world)
        try:
            json.dumps(tool.run(world, args))
            outcomes["ok"] += 1
            assert not tool.read_only or orjson.dumps(world) == before, f"{tool.name} wrote: {args}"
        except silo.ToolError as refusal:
            outcomes["refused"] += 1
            assert orjson.dumps(world) == before, (
                f"{tool.name} refused ({refusal.code}) but changed the world"
            )
        _invariants(world)
    assert outcomes["ok"] > 100 and outcomes["refused"] > 60, outcomes
