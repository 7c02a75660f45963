"""The tool-call bridge at its edges: empty and non-object inputs, usage sums, durations.

Built on a two-tool world made here, so every expected value is written out by hand.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from silo import define_tool
from silo.rollout.bridge import Bridge
from silo.rollout.trace import TraceWriter
from silo.world.pool import World

NO_ARGS = {"type": "object", "properties": {}, "additionalProperties": False}


def _count(state: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    state["n"] += 1
    return {"n": state["n"], "args": args}


def _nap(state: dict[str, Any], args: dict[str, Any]) -> str:
    time.sleep(0.03)
    return "rested"


def _bridge(max_calls: int = 10) -> tuple[Bridge, TraceWriter]:
    tools = [
        define_tool("count", "Count.", NO_ARGS, _count),
        define_tool("nap", "Nap.", NO_ARGS, _nap),
    ]
    world = World(lambda: {"n": 0}, lambda state: tools)
    world.begin()
    trace = TraceWriter(None)
    return Bridge(world, trace, max_calls), trace


def _events(trace: TraceWriter) -> list[dict[str, Any]]:
    return [json.loads(line) for line in trace.lines]


def test_no_input_and_an_empty_object_run_the_tool_with_empty_args() -> None:
    bridge, trace = _bridge()
    assert bridge.call_tool("count") == {"output": {"n": 1, "args": {}}, "isError": False}
    assert bridge.call_tool("count", {}) == {"output": {"n": 2, "args": {}}, "isError": False}
    assert bridge.call_tool("count", None) == {"output": {"n": 3, "args": {}}, "isError": False}
    assert [e["input"] for e in _events(trace) if e["type"] == "tool_call"] == [{}, {}, {}]
    assert (bridge.calls, bridge.errors) == (3, 0)


@pytest.mark.parametrize("value", [[], "", 0, [1], "x", 0.0, False])
def test_a_falsy_or_non_object_input_is_invalid_and_the_tool_does_not_run(value: Any) -> None:
    bridge, trace = _bridge()
    out = bridge.call_tool("count", value)
    (problem,) = out["output"]["details"]["problems"]  # it names what came instead
    assert problem.startswith("input must be a JSON object, not ")
    assert out == {
        "output": {
            "code": "invalid_input",
            "message": f'Invalid arguments for "count": {problem}.',
            "details": {"problems": [problem]},
        },
        "isError": True,
    }
    assert bridge.world.state["n"] == 0
    assert (bridge.calls, bridge.errors) == (1, 1)
    call, result = _events(trace)
    assert (call["type"], call["input"], result["isError"]) == ("tool_call", value, True)


def test_usage_sums_only_model_steps_and_only_numbers() -> None:
    bridge, trace = _bridge()
    bridge.emit("model_step", {"usage": {"promptTokens": 10, "completionTokens": 2}})
    bridge.emit("model_step", {"usage": {"promptTokens": 5, "cost": 0.5, "cached": True}})
    bridge.emit("model_step", {"usage": {"note": "n/a"}})
    bridge.emit("note", {"usage": {"promptTokens": 1000}})
    bridge.emit("model_step", {"text": "no usage"})
    assert bridge.usage == {"promptTokens": 15, "completionTokens": 2, "cost": 0.5}
    assert [e["type"] for e in _events(trace)] == ["model_step"] * 3 + ["note", "model_step"]


def test_duration_ms_is_the_tool_time_in_milliseconds_to_the_microsecond() -> None:
    bridge, trace = _bridge()
    bridge.call_tool("count")
    bridge.call_tool("nap")
    lines = [line for line in trace.lines if '"tool_result"' in line]
    for line in lines:
        assert re.search(r'"durationMs":\d+\.\d{3}}$', line), line
    fast, slow = (json.loads(line)["durationMs"] for line in lines)
    assert 0 <= fast < 30 <= slow < 5000  # nap sleeps 30 ms; a loaded machine may add a lot


def test_the_trace_formats_a_known_duration_exactly() -> None:
    trace = TraceWriter(None)
    for call_id, ns in enumerate((0, 499, 500, 1_000_000, 12_345_678, 3_000_000_000), 1):
        trace.tool_result(call_id, "t", "{}", False, ns)
    shown = [re.search(r'"durationMs":([0-9.]+)}', line).group(1) for line in trace.lines]  # type: ignore[union-attr]
    assert shown == ["0.000", "0.000", "0.001", "1.000", "12.346", "3000.000"]


def test_the_call_over_the_limit_is_refused_unrecorded() -> None:
    from silo.agents.contract import RunLimitError

    bridge, trace = _bridge(max_calls=1)
    bridge.call_tool("count")
    with pytest.raises(RunLimitError):
        bridge.call_tool("count")
    assert (bridge.calls, bridge.reason, bridge.world.state["n"]) == (1, "max_tool_calls", 1)
    assert len(_events(trace)) == 2


def test_usage_counts_a_model_step_kind_built_at_run_time() -> None:
    bridge, _trace = _bridge()
    bridge.emit("".join(["model", "_step"]), {"usage": {"totalTokens": 3}})
    assert bridge.usage == {"totalTokens": 3}


def test_a_limit_above_the_small_int_cache_still_stops_at_the_limit() -> None:
    from silo.agents.contract import RunLimitError

    bridge, _trace = _bridge(max_calls=300)
    for _ in range(300):
        bridge.call_tool("count")
    with pytest.raises(RunLimitError):
        bridge.call_tool("count")
    assert (bridge.calls, bridge.world.state["n"], bridge.reason) == (300, 300, "max_tool_calls")
