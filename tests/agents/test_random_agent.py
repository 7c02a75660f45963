"""The random agent: schema-valid fuzzing, deterministic per seed, and a crash hunt on the CRM."""

from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path
from random import Random
from typing import Any

import pytest
from agent_helpers import ENV, ROOT, TASK, events
from jsonschema import Draft202012Validator

import silo
from silo.agents.contract import AgentInput, CancelSignal, RunLimitError, ToolResult
from silo.agents.random import RandomAgent
from silo.agents.sampler import SchemaSampler, Unsatisfiable, id_patterns, ids_in

SCHEMAS: dict[str, dict[str, Any]] = {
    "dates": {
        "type": "object",
        "properties": {
            "closeDate": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
            "due": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "date-time"},
        },
        "required": ["closeDate", "due", "at"],
        "additionalProperties": False,
    },
    "numbers": {
        "type": "object",
        "properties": {
            "amount": {"type": "number", "exclusiveMinimum": 0, "maximum": 1000},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            "step": {"type": "integer", "multipleOf": 5, "exclusiveMaximum": 30, "minimum": 0},
            "probability": {"type": "integer", "minimum": 0, "maximum": 100},
        },
        "required": ["amount", "limit", "step"],
    },
    "strings": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 3, "maxLength": 5},
            "code": {"type": "string", "pattern": "^[A-Z]{3}-(x|yz)?[0-9]{2,4}$"},
            "notLower": {"type": "string", "pattern": "^[^a-z]+$", "maxLength": 8},
            "email": {"type": "string", "format": "email"},
            "stage": {"enum": ["prospecting", "won", "lost"]},
            "kind": {"const": "note"},
        },
        "required": ["name", "code", "notLower", "email", "stage", "kind"],
    },
    "nested": {
        "type": "object",
        "$defs": {
            "Line": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string", "minLength": 1},
                    "qty": {"$ref": "#/$defs/Qty"},
                },
                "required": ["sku", "qty"],
                "additionalProperties": False,
            },
            "Qty": {"type": "integer", "minimum": 1, "maximum": 9},
        },
        "properties": {
            "lines": {
                "type": "array",
                "items": {"$ref": "#/$defs/Line"},
                "minItems": 1,
                "maxItems": 4,
            },
            "tags": {
                "type": "array",
                "items": {"type": "string", "enum": ["a", "b", "c"]},
                "uniqueItems": True,
                "maxItems": 3,
            },
            "owner": {"anyOf": [{"type": "string", "pattern": "^USR-\\d+$"}, {"type": "null"}]},
            "target": {
                "oneOf": [{"type": "integer", "minimum": 0}, {"type": "string", "maxLength": 0}]
            },
            "pair": {
                "type": "array",
                "prefixItems": [{"type": "boolean"}, {"type": "null"}],
                "minItems": 2,
                "maxItems": 2,
            },
            "both": {
                "allOf": [
                    {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
                    {"required": ["y"], "properties": {"y": {"type": "boolean"}}},
                ]
            },
        },
        "required": ["lines", "owner", "target", "pair", "both"],
    },
    "impossible": {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 3}},
        "required": ["n"],
    },
}


def fake_input(call_tool: Any, seed: int = 0) -> AgentInput:
    tools = [{"name": n, "description": n, "inputSchema": s} for n, s in SCHEMAS.items()]
    return AgentInput(
        task="fuzz", tools=tools, call_tool=call_tool, signal=CancelSignal(), seed=seed
    )


def test_generated_inputs_are_schema_valid_and_cover_every_satisfiable_tool() -> None:
    seen: dict[str, list[dict[str, Any]]] = {}

    def call_tool(name: str, data: dict[str, Any]) -> ToolResult:
        errors = list(
            Draft202012Validator(
                SCHEMAS[name], format_checker=Draft202012Validator.FORMAT_CHECKER
            ).iter_errors(data)
        )
        assert not errors, (name, data, errors[0].message)
        seen.setdefault(name, []).append(data)
        return ToolResult(output={"id": "OPP-7"}, isError=False)

    output = RandomAgent(seed=1, calls=300)(fake_input(call_tool))["output"]
    assert set(seen) == set(SCHEMAS) - {"impossible"}
    assert "skipped (schema not satisfiable): impossible" in output
    assert "300 calls, 300 ok" in output
    dates = [d["closeDate"] for d in seen["dates"]]
    real = [d for d in dates if _is_date(d)]
    assert len(real) > len(dates) / 2  # realistic dates are preferred when they fit the pattern
    # Optional properties are sometimes present, sometimes not.
    assert {"probability" in d for d in seen["numbers"]} == {True, False}


def _is_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def test_ids_from_earlier_outputs_are_reused() -> None:
    schema = {
        "type": "object",
        "properties": {
            "opportunityId": {"type": "string"},
            "contactIds": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        },
        "required": ["opportunityId", "contactIds"],
    }
    sampler = SchemaSampler(Random(0), {"OPP-12": None, "CON-3": None})
    values = [sampler.sample_valid(schema) for _ in range(50)]
    assert sum(v["opportunityId"] in ("OPP-12", "CON-3") for v in values) > 20
    assert any(i in ("OPP-12", "CON-3") for v in values for i in v["contactIds"])
    with pytest.raises(Unsatisfiable):
        sampler.sample_valid(SCHEMAS["impossible"])


def test_id_shapes_come_from_the_environments_schemas_and_keys() -> None:
    lookup = {
        "type": "object",
        "properties": {"accountId": {"type": "string", "pattern": "^acct_[a-z0-9]{4}$"}},
        "required": ["accountId"],
        "additionalProperties": False,
    }
    tools = [
        {"name": "list", "inputSchema": {"type": "object"}},
        {"name": "get", "inputSchema": lookup},
    ]
    assert [p.pattern for p in id_patterns(s["inputSchema"] for s in tools)] == [
        "^acct_[a-z0-9]{4}$"
    ]
    # A string is an id when the schemas' id patterns match it or an id key holds it;
    # CRM-shaped text elsewhere is just text.
    output = {"rows": [{"ref": "acct_ab12", "note": "OPP-7"}], "id": "row-1", "ownerIds": ["u9"]}
    assert list(ids_in(output, id_patterns(s["inputSchema"] for s in tools))) == [
        "acct_ab12",
        "row-1",
        "u9",
    ]
    asked: list[str] = []

    def call_tool(name: str, data: dict[str, Any]) -> ToolResult:
        if name == "get":
            asked.append(data["accountId"])
        return ToolResult(output={"rows": [{"ref": "acct_ab12"}]}, isError=False)

    inp = AgentInput(task="t", tools=tools, call_tool=call_tool, signal=CancelSignal(), seed=0)
    RandomAgent(seed=2, calls=60)(inp)
    assert asked.count("acct_ab12") > len(asked) / 3  # the seen id, not only drawn ones


def test_run_limit_stops_cleanly() -> None:
    made: list[str] = []

    def call_tool(name: str, data: dict[str, Any]) -> ToolResult:
        if len(made) == 3:
            raise RunLimitError("max_tool_calls", "Tool call limit exceeded (3).")
        made.append(name)
        return ToolResult(output={"code": "not_found", "message": "no"}, isError=True)

    output = RandomAgent(seed=5, calls=20)(fake_input(call_tool))["output"]
    assert "3 calls, 0 ok, 3 errors (not_found x3)" in output
    assert output.endswith("; stopped: max_tool_calls")


def test_seed_none_follows_the_run_seed() -> None:
    def names(agent: RandomAgent, seed: int) -> list[str]:
        made: list[str] = []

        def call_tool(name: str, data: dict[str, Any]) -> ToolResult:
            made.append(name)
            return ToolResult(output={}, isError=False)

        agent(fake_input(call_tool, seed))
        return made

    assert names(RandomAgent(seed=None, calls=10), 4) == names(RandomAgent(seed=4, calls=10), 99)


def test_same_seed_same_run(tmp_path: Path) -> None:
    def once(folder: str) -> Any:
        return silo.run_task(
            ENV, TASK, RandomAgent(seed=11, calls=20), project_dir=ROOT, runs_dir=tmp_path / folder
        )

    first, second = once("a"), once("b")
    for name in ("result.json", "state-diff.json"):
        assert (first.run_dir / name).read_bytes() == (second.run_dir / name).read_bytes()
    calls = [
        [(e["tool"], e["input"]) for e in events(r) if e["type"] == "tool_call"]
        for r in (first, second)
    ]
    assert calls[0] == calls[1] and len(calls[0]) == 20
    other = silo.run_task(
        ENV, TASK, RandomAgent(seed=12, calls=20), project_dir=ROOT, write_artifacts=False
    )
    assert [(e["tool"], e["input"]) for e in events(other) if e["type"] == "tool_call"] != calls[0]


def test_no_crm_tool_crashes_over_200_seeds() -> None:
    """Any ``tool_crashed`` result is a CRM bug; the failure lists each one to report."""
    started = time.monotonic()
    crashes: list[str] = []
    ok_calls = 0
    for seed in range(200):
        result = silo.run_task(
            ENV, TASK, RandomAgent(seed=seed, calls=20), project_dir=ROOT, write_artifacts=False
        )
        assert result.termination_reason == "completed", (seed, result.error)
        trace = events(result)
        inputs = {e["callId"]: e["input"] for e in trace if e["type"] == "tool_call"}
        for event in trace:
            if event["type"] != "tool_result":
                continue
            ok_calls += not event["isError"]
            if event["isError"] and event["output"].get("code") == "tool_crashed":
                crashes.append(
                    f"seed {seed}: {event['tool']}({json.dumps(inputs[event['callId']])})"
                    f" -> {event['output']['message']}"
                )
    assert not crashes, "CRM tool crashes:\n" + "\n".join(crashes)
    assert ok_calls > 400  # the fuzzing reaches real records, not only error paths
    assert time.monotonic() - started < 60
