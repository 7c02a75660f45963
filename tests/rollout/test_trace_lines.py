"""Trace lines: tool events keep their exact text; timestamps and durations as they were."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from silo.rollout import trace as _trace
from silo.rollout.trace import TraceWriter, utc_now_iso


def _reference_iso(t: float) -> str:
    """How a timestamp was always written: whole seconds by strftime, then the milliseconds."""
    whole = int(t)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
    return f"{stamp}.{int((t - whole) * 1000):03d}Z"


def test_cached_timestamps_are_the_text_they_always_were() -> None:
    rng = random.Random(3)
    times = [0.0, 0.5, 1.0, -0.5, -1.25, 1e9 - 1e-7]
    t = 1.8e9
    for _ in range(100_000):  # forwards, sometimes backwards, by every kind of step
        t += rng.choice([1e-7, 3e-6, 2e-5, 4e-4, 1e-3, 0.37, 2.0, -1e-6, -0.2])
        times.append(t)
    # right before and after millisecond boundaries, where the cache could be off by one
    times += [1e9 + k / 1000 + e for k in range(1, 3000) for e in (-2e-6, -1e-6, -1e-7, 0, 1e-7)]
    for t in times:
        assert utc_now_iso(t) == _reference_iso(t), t


def test_a_tool_event_reuses_the_cached_timestamp_only_when_it_is_right(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = iter([1.8e9 + 0.0101, 1.8e9 + 0.0103, 1.8e9 + 0.0109999, 1.8e9 + 0.0110001])
    monkeypatch.setattr(_trace, "_time", lambda: next(clock))
    trace = TraceWriter(None)
    trace.tool_call(1, "t", "{}")
    trace.tool_result(1, "t", "{}", False, 0)
    trace.tool_call(2, "t", "{}")
    trace.tool_result(2, "t", "{}", False, 0)
    stamps = [json.loads(line)["at"] for line in trace.lines]
    assert [s[-5:] for s in stamps] == [".010Z", ".010Z", ".010Z", ".011Z"]


@pytest.mark.parametrize(
    ("ns", "text"),
    [
        (0, "0.000"),
        (499, "0.000"),
        (500, "0.001"),
        (1_234_567, "1.235"),
        (999_999_499, "999.999"),
        (999_999_500, "1000.000"),
        (12_345_678_901, "12345.679"),
    ],
)
def test_duration_is_milliseconds_to_the_microsecond(ns: int, text: str) -> None:
    trace = TraceWriter(None)
    trace.tool_result(7, "t", '{"a":1}', True, ns)
    assert trace.lines == [
        f'{{"seq":1,"type":"tool_result","at":"{json.loads(trace.lines[0])["at"]}",'
        f'"callId":7,"tool":"t","output":{{"a":1}},"isError":true,"durationMs":{text}}}'
    ]


def test_file_and_memory_traces_hold_the_same_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_trace, "_time", lambda: 1.8e9 + 0.25)
    path = tmp_path / "trace.jsonl"
    traces = [TraceWriter(None), TraceWriter(path)]
    for trace in traces:
        trace.event("run_start", {"runId": None})
        trace.tool_call(1, "caf\u00e9", '{"q":"\u2028"}')
        trace.tool_result(1, "caf\u00e9", '["\U0001f600"]', False, 1500)
        trace.tool_call(2, ["odd", "name"], "{}")  # type: ignore[arg-type]
        trace.close()
    on_disk = path.read_text(encoding="utf-8").split("\n")
    assert on_disk[-1] == "" and on_disk[:-1] == traces[0].lines
    for line in traces[0].lines:
        event = json.loads(line)
        assert event["at"] == "2027-01-15T08:00:00.250Z"
    assert json.loads(traces[0].lines[3])["tool"] == ["odd", "name"]


def test_memory_traces_stamp_tool_events_when_they_happen_not_when_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trace = TraceWriter(None)
    monkeypatch.setattr(_trace, "_time", lambda: 1.8e9 + 0.25)
    trace.tool_call(1, "t", "{}")
    trace.tool_result(1, "t", "{}", False, 1000)
    monkeypatch.setattr(_trace, "_time", lambda: 1.8e9 + 7.5)
    trace.event("run_end", {})
    stamps = [json.loads(line)["at"] for line in trace.lines]
    assert stamps == [
        "2027-01-15T08:00:00.250Z",
        "2027-01-15T08:00:00.250Z",
        "2027-01-15T08:00:07.500Z",
    ]
    assert [json.loads(line)["seq"] for line in trace.lines] == [1, 2, 3]


def test_a_traces_now_is_utc_now_iso_from_its_cache(tmp_path: Path) -> None:
    trace = TraceWriter(None)
    before = utc_now_iso()
    first = trace.now_iso()
    trace.event("probe", {})
    second = trace.now_iso()  # the cache now holds this second's text
    after = utc_now_iso()
    assert before <= first <= second <= after  # ISO-8601 texts sort as the times they name
    assert len(first) == len(before) and first.endswith("Z")
    line = json.loads(trace.lines[0])
    assert first <= line["at"] <= second
