"""The trace: every event of a rollout, one JSON object per line, streamed.

Contract: events get ``seq`` from 1 and ``at`` (UTC ISO-8601, milliseconds). With a path, each
line is written and flushed as it happens, so a process killed mid-run leaves every event so
far; without one, lines are kept in memory. Tool events are assembled from pre-serialised JSON
so the hot path serialises each input and output exactly once; ``durationMs`` is milliseconds
with three decimals (to the microsecond).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from silo._jsonio import compact_encoder

__all__ = ["TraceWriter", "utc_now_iso"]

_dumps = compact_encoder(json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=repr))
_time = time.time
_OPEN_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)

# The formatted whole second of the last timestamp: events come many per second, and
# strftime is most of the cost of a timestamp. One tuple, so threads never see half of it.
_SECOND: tuple[int, str] = (-1, "")
# "000" to "999": a lookup is ~50x cheaper than formatting ``:03d`` on every event. Built by
# the first event that needs it (building it costs ~0.1 ms, which importing must not pay).
_DIGITS3: tuple[str, ...] = ()


def _digits3() -> tuple[str, ...]:
    global _DIGITS3
    _DIGITS3 = tuple([str(n)[1:] for n in range(1000, 2000)])
    return _DIGITS3


# The last timestamp and the times that certainly share its text: (from, until, text). A tool
# call's two events are mostly microseconds apart, so the second is usually this text again.
_MILLI: tuple[float, float, str] = (0.0, 0.0, "")


def utc_now_iso(now: float | None = None) -> str:
    global _SECOND, _MILLI
    t = _time() if now is None else now
    cached = _MILLI
    if cached[0] <= t < cached[1]:
        return cached[2]
    whole = int(t)
    second = _SECOND
    if second[0] == whole:
        prefix = second[1]
    else:
        prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
        _SECOND = (whole, prefix)
    ms = int((t - whole) * 1000)
    if 0 <= ms < 1000:
        text = f"{prefix}.{(_DIGITS3 or _digits3())[ms]}Z"
        # Any later time up to a microsecond before the next millisecond has the same text:
        # ``t - whole`` is exact, and the microsecond dwarfs the rounding of ``until``.
        _MILLI = (t, whole + (ms + 0.999) / 1000, text)
        return text
    return f"{prefix}.{ms:03d}Z"  # a time before 1970: the same text as it always had


_NAMES: dict[str, str] = {}


def _name_json(tool: str) -> str:
    """The JSON text of a tool name (cached: the same few names recur on every call)."""
    if type(tool) is not str:
        return _dumps(tool)
    found = _NAMES.get(tool)
    if found is None:
        found = _dumps(tool)
        if len(_NAMES) < 4096:
            _NAMES[tool] = found
    return found


def _finish(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class TraceWriter:
    __slots__ = ("seq", "_fd", "lines")

    def __init__(self, path: Path | None) -> None:
        self.seq = 0
        # A raw descriptor: each line is one write(2), which is what a flush per line costs
        # anyway, without the buffered text layer in between. Closed by close().
        self._fd: int | None = os.open(path, _OPEN_FLAGS, 0o666) if path else None
        self.lines: list[str] = []

    def _write(self, line: str) -> None:
        fd = self._fd
        if fd is None:
            self.lines.append(line)
            return
        data = (line + "\n").encode("utf-8")
        written = os.write(fd, data)
        if written < len(data):  # a short write (rare on regular files): finish it
            _finish(fd, data[written:])

    def event(self, kind: str, fields: dict[str, Any]) -> None:
        self.seq += 1
        head = {"seq": self.seq, "type": kind, "at": utc_now_iso()}
        self._write(_dumps({**head, **{k: v for k, v in fields.items() if k not in head}}))

    def event_with_json(
        self, kind: str, fields: dict[str, Any], key: str, raw: str, raw_utf8: bytes
    ) -> None:
        """Like :meth:`event` with one more, last, field ``key`` whose JSON text is ``raw``.

        ``raw_utf8`` is ``raw`` encoded, so a large cached value is written without copies.
        """
        self.seq += 1
        head = {"seq": self.seq, "type": kind, "at": utc_now_iso()}
        text = _dumps({**head, **{k: v for k, v in fields.items() if k not in head}})
        start = f"{text[:-1]},{_dumps(key)}:"
        fd = self._fd
        if fd is None:
            self.lines.append(f"{start}{raw}}}")
            return
        parts = [start.encode("utf-8"), raw_utf8, b"}\n"]
        written = os.writev(fd, parts)
        total = sum(len(p) for p in parts)
        if written < total:
            _finish(fd, b"".join(parts)[written:])

    # The two events of every tool call: one f-string each, sharing _tool_head (these run
    # twice per call, so every copy saved shows in the per-call overhead).

    def _tool_head(self, kind: str, call_id: int, tool: str) -> str:
        self.seq = seq = self.seq + 1
        name = _NAMES.get(tool) if type(tool) is str else None
        t, milli = _time(), _MILLI  # utc_now_iso's cache, read here to save a call
        at = milli[2] if milli[0] <= t < milli[1] else utc_now_iso(t)
        return (
            f'{{"seq":{seq},"type":"{kind}","at":"{at}","callId":{call_id},'
            f'"tool":{name or _name_json(tool)}'
        )

    def tool_call(self, call_id: int, tool: str, input_json: str) -> None:
        self._write(f'{self._tool_head("tool_call", call_id, tool)},"input":{input_json}}}')

    def tool_result(
        self, call_id: int, tool: str, output_json: str, is_error: bool, duration_ns: int
    ) -> None:
        """``durationMs`` is ``duration_ns`` in milliseconds to the microsecond ("12.345").

        Integer arithmetic and a table, not float formatting: the same text for the same
        microseconds, at a fraction of the cost.
        """
        us = (duration_ns + 500) // 1000
        digits = _DIGITS3 or _digits3()
        self._write(
            f'{self._tool_head("tool_result", call_id, tool)},"output":{output_json},'
            f'"isError":{"true" if is_error else "false"},'
            f'"durationMs":{us // 1000}.{digits[us % 1000]}}}'
        )

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
