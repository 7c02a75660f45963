"""The bridge's copies: the same error results and the same copies as the standard library gave.

Before orjson, the bridge serialised every output with ``compact`` (a tool_crashed error when
that raised) and read it back with ``exact_loads`` for the agent; inputs went the same way
(``invalid_input`` when they were not JSON). These tests hold the bridge to exactly that, for
every value orjson treats differently, in both trace modes, and check the trace stays JSON.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from silo.jsonio import compact, exact_loads
from silo.rollout.bridge import Bridge, bounded_repr, json_value
from silo.rollout.trace import TraceWriter
from silo.tools import Tool, define_tool
from silo.world.pool import World
from tests.json_values import TRICKY, containers, same

OPEN = {"type": "object"}  # any object: the tests are about copies, not validation


def _state() -> dict[str, Any]:
    return {"rows": {"R1": {"id": "R1", "tags": ["a", "b"], "n": 1.5}}}


def _bridge(tools: list[Tool], path: Path | None = None) -> tuple[Bridge, World, TraceWriter]:
    world = World(_state, lambda state: tools)
    trace = TraceWriter(path)
    return Bridge(world, trace, 10_000), world, trace


def _lines(trace: TraceWriter, path: Path | None) -> list[dict[str, Any]]:
    trace.close()
    # split on "\n" only: a line may hold U+2028, which splitlines() would break at
    text = path.read_text(encoding="utf-8").split("\n")[:-1] if path else trace.lines
    return [json.loads(line) for line in text]  # every line is one JSON object


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@pytest.fixture(params=["memory", "file"])
def trace_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path | None:
    return tmp_path / "trace.jsonl" if request.param == "file" else None


@pytest.mark.parametrize("raw", TRICKY, ids=lambda v: type(v).__name__)
def test_outputs_are_crashes_or_copies_exactly_as_before(raw: Any, tmp_path: Path) -> None:
    bridge, _, trace = _bridge([define_tool("t", "returns it", OPEN, lambda s, a: raw)])
    try:
        text = compact(raw)
    except (TypeError, ValueError) as exc:
        result = bridge.call_tool("t", {})
        assert result == {
            "output": {
                "code": "tool_crashed",
                "message": f'"t" returned a value that is not JSON: {exc}',
            },
            "isError": True,
        }
        return
    except RecursionError:
        pytest.skip("deeper than the standard library goes")
    result = bridge.call_tool("t", {})
    if not _utf8(text):  # a lone surrogate: no UTF-8 trace (nor agent) can carry it
        assert result["output"]["code"] == "tool_crashed"
        assert "surrogate" in result["output"]["message"]
        return
    assert result["isError"] is False
    same(result["output"], exact_loads(text))
    assert not containers(result["output"]) & containers(raw)
    if "\ud800" not in text and "\udc00" not in text and "\udfff" not in text:
        line = trace.lines[-1]
        assert line.startswith('{"seq":2,"type":"tool_result"')
        assert f'"output":{text},' in line  # the standard library's text, byte for byte
        same(json.loads(line)["output"], exact_loads(text))


@pytest.mark.parametrize("value", TRICKY, ids=lambda v: type(v).__name__)
def test_inputs_are_refused_or_copied_exactly_as_before(value: Any) -> None:
    seen: list[Any] = []
    tool = define_tool("t", "records its input", OPEN, lambda s, a: seen.append(a) or "ok")
    bridge, _, trace = _bridge([tool])
    payload = {"v": value}
    try:
        text = compact(payload)
    except (TypeError, ValueError):
        result = bridge.call_tool("t", payload)
        assert result["output"]["code"] == "invalid_input"
        (problem,) = result["output"]["details"]["problems"]
        assert problem.startswith("input ") and problem in result["output"]["message"]
        assert json.loads(trace.lines[0])["input"] == bounded_repr(payload)
        assert not seen
        return
    except RecursionError:
        pytest.skip("deeper than the standard library goes")
    result = bridge.call_tool("t", payload)
    if not _utf8(text):  # a lone surrogate is refused like any input that is not JSON
        assert result["output"]["code"] == "invalid_input"
        assert "lone surrogate" in result["output"]["message"] and not seen
        return
    assert result == {"output": "ok", "isError": False}
    same(seen[0], exact_loads(text))
    assert not containers(seen[0]) & containers(payload)  # the tool got its own copy
    if "\\ud" not in json.dumps(text):
        assert trace.lines[0].endswith(f'"input":{text}}}')


@pytest.mark.parametrize("value", TRICKY, ids=lambda v: type(v).__name__)
def test_json_value_copies_or_falls_back_to_str_as_before(value: Any) -> None:
    try:
        expected = exact_loads(compact(value))
    except (TypeError, ValueError):
        expected = str(value)
    except RecursionError:
        pytest.skip("deeper than the standard library goes")
    got = json_value(value)
    same(got, expected)
    assert not containers(got) & containers(value)


def test_the_agent_never_holds_state(trace_path: Path | None) -> None:
    def read(state: Any, args: Any) -> Any:
        return state["rows"]["R1"]  # a reference into state, returned as is

    bridge, world, trace = _bridge([define_tool("read", "a row", OPEN, read)], trace_path)
    first = bridge.call_tool("read", {})["output"]
    second = bridge.call_tool("read", {})["output"]
    row = world.state["rows"]["R1"]
    for copy in (first, second):
        assert copy == row and copy is not row and copy["tags"] is not row["tags"]
        assert type(copy) is dict and type(copy["tags"]) is list
    first["tags"].append("mutated")
    assert row["tags"] == ["a", "b"] and second["tags"] == ["a", "b"]
    lines = _lines(trace, trace_path)
    assert [line["type"] for line in lines] == ["tool_call", "tool_result"] * 2
    assert lines[1]["output"] == {"id": "R1", "tags": ["a", "b"], "n": 1.5}


def test_trace_lines_stay_json_whatever_the_values(trace_path: Path | None) -> None:
    def echo(state: Any, args: Any) -> Any:
        return args

    bridge, _, trace = _bridge([define_tool("echo", "echoes", OPEN, echo)], trace_path)
    inputs = [
        {"text": 'quote " backslash \\ newline \n tab \t nul \x00 line sep \u2028'},
        {"emoji": "\U0001f600", "accents": "caf\u00e9", "cjk": "\u6f22\u5b57"},
        {"n": [0, -1, 2**63, 1.5, 1e-7, 1e16, -0.0, True, None]},
        {"nested": {"a": [{"b": []}], "": {}}},
    ]
    for value in inputs:
        assert bridge.call_tool("echo", value)["output"] == value
    bridge.call_tool("nope", {})
    bridge.call_tool(["not", "hashable"], {})  # type: ignore[arg-type]
    lines = _lines(trace, trace_path)
    results = [line for line in lines if line["type"] == "tool_result"]
    assert [r["output"] for r in results[:4]] == inputs
    assert [r["output"]["code"] for r in results[4:]] == ["tool_not_found"] * 2
    assert [r["isError"] for r in results] == [False] * 4 + [True] * 2
    assert lines[-2]["tool"] == "['not', 'hashable']"  # an unknown name is traced as text
    assert [line["seq"] for line in lines] == list(range(1, 13))
    raw = path_text(trace_path, trace)
    # durationMs: milliseconds with exactly three decimals, as it has always been written
    assert len(re.findall(r'"durationMs":\d+\.\d{3}}', raw)) == 6


def path_text(path: Path | None, trace: TraceWriter) -> str:
    return path.read_text(encoding="utf-8") if path else "\n".join(trace.lines)


def test_not_json_inputs_do_not_become_json_by_leniency() -> None:
    seen: list[Any] = []
    tool = define_tool("t", "records", OPEN, lambda s, a: seen.append(a) or {})
    bridge, _, _ = _bridge([tool])
    for bad in ({"x": math.nan}, {"x": math.inf}, {1: "a"}, {"x": b"raw"}):
        result = bridge.call_tool("t", bad)
        if bad == {1: "a"}:  # the standard library makes the key a string: valid as before
            assert result["isError"] is False and seen[-1] == {"1": "a"}
        else:
            assert result["output"]["code"] == "invalid_input"
    assert len(seen) == 1
