"""Transactional tool calls: a call that fails leaves the world exactly as before the call."""

from __future__ import annotations

import json
from typing import Any

import pytest

from silo import Index
from silo.rollout.bridge import Bridge
from silo.rollout.trace import TraceWriter
from silo.tools import ToolError, define_tool
from silo.world.pool import World

OPEN = {"type": "object"}
BY_OWNER = Index("rows", "owner")


def _state() -> dict[str, Any]:
    return {
        "rows": {f"R{i}": {"id": f"R{i}", "owner": "U1", "tags": ["a"]} for i in range(4)},
        "log": [{"n": 0}],
        "counter": 0,
    }


def _half_write(state: Any, args: dict[str, Any]) -> Any:
    """Writes everywhere, then fails the way ``args["fail"]`` says."""
    state["rows"]["R1"]["owner"] = "U2"
    state["rows"]["R1"]["tags"].append("b")
    state["rows"]["NEW"] = {"id": "NEW", "owner": "U1"}
    del state["rows"]["R2"]
    state["log"].append({"n": 1})
    state["counter"] += 1
    BY_OWNER.keys(state, "U2")  # an index filed mid-call
    how = args.get("fail")
    if how == "refuse":
        raise ToolError("conflict", "refused halfway")
    if how == "crash":
        raise KeyError("boom")
    if how == "not_json":
        return {1, 2}
    return "ok"


def _bridge() -> tuple[Bridge, World]:
    world = World(_state, lambda state: [define_tool("w", "writes", OPEN, _half_write)])
    world.begin()
    return Bridge(world, TraceWriter(None), 100), world


@pytest.mark.parametrize("how", ["refuse", "crash", "not_json"])
def test_a_failing_call_leaves_the_world_as_before(how: str) -> None:
    bridge, world = _bridge()
    assert bridge.call_tool("w", {})["isError"] is False  # a kept call first
    before = json.dumps(world.state)
    diff_before = world.diff()
    assert BY_OWNER.keys(world.state, "U2") == ["R1"]
    result = bridge.call_tool("w", {"fail": how})
    assert result["isError"] is True
    assert json.dumps(world.state) == before  # key order included
    assert world.diff() == diff_before
    assert BY_OWNER.keys(world.state, "U2") == ["R1"]  # what a scan answers
    assert BY_OWNER.keys(world.state, "U1") == ["R0", "R3", "NEW"]


def test_a_failing_first_call_leaves_an_empty_diff() -> None:
    bridge, world = _bridge()
    assert bridge.call_tool("w", {"fail": "crash"})["output"]["code"] == "tool_crashed"
    assert world.diff() == {"scalars": [], "collections": {}}
    assert json.dumps(world.state) == json.dumps(_state())
    assert world.reset()
    assert json.dumps(world.state) == json.dumps(_state())


def test_a_stored_plain_value_changed_by_a_later_failing_call_is_restored() -> None:
    def store(state: Any, args: dict[str, Any]) -> Any:
        state["rows"]["R0"]["meta"] = {"k": [1]}  # a plain dict, stored by a kept call
        return "ok"

    def change(state: Any, args: dict[str, Any]) -> Any:
        state["rows"]["R0"]["meta"]["k"].append(2)
        raise ToolError("conflict", "no")

    tools = [define_tool("store", "", OPEN, store), define_tool("change", "", OPEN, change)]
    world = World(_state, lambda state: tools)
    world.begin()
    bridge = Bridge(world, TraceWriter(None), 100)
    bridge.call_tool("store", {})
    bridge.call_tool("change", {})
    assert world.state["rows"]["R0"]["meta"] == {"k": [1]}
