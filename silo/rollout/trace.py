"""The trace: every event of a rollout, one JSON object per line, streamed.

Contract: events get ``seq`` from 1 and ``at`` (UTC ISO-8601, milliseconds). With a path, each
line is written and flushed as it happens, so a process killed mid-run leaves every event so
far; without one, lines are kept in memory. Tool events are assembled from pre-serialised JSON
so the hot path serialises each input and output exactly once; ``durationMs`` is milliseconds
with three decimals (to the microsecond). Every line passes through :func:`silo.redact.redact`
first: no secret an agent, its endpoint or its configuration holds reaches the file.
"""

from __future__ import annotations

import functools
import json
import os
import time
from pathlib import Path

from silo.artifacts.atomic import create_file, write_all
from silo.json_types import JSON
from silo.jsonio import compact_encoder
from silo.redact import redact

__all__ = ["Timestamps", "TraceWriter", "event_json", "utc_now_iso"]

event_json = compact_encoder(
    json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=repr)
)
_time = time.time


@functools.cache
def _digit_table() -> tuple[str, ...]:
    """Digits "000" to "999": a lookup instead of formatting ``:03d`` on every event.

    Built by the first trace that needs it (so importing does not pay for it) and shared
    read-only afterwards.
    """
    return tuple([str(n)[1:] for n in range(1000, 2000)])


def utc_now_iso(now: float | None = None) -> str:
    """``now`` (default: the current time) as UTC ISO-8601 to the millisecond, e.g. for run.json."""
    t = _time() if now is None else now
    whole = int(t)
    prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
    return f"{prefix}.{int((t - whole) * 1000):03d}Z"


class Timestamps:
    """The ``at`` texts of one trace, cached.

    Events come many per second, a tool call's two events mostly microseconds apart, and
    strftime is most of the cost of a timestamp.

    One per :class:`TraceWriter`, so rollouts in flight on other threads never share (or
    race on) a cache; each cache is one tuple, replaced whole.
    """

    __slots__ = ("digits", "milli", "second")

    def __init__(self) -> None:
        self.digits = _digit_table()
        # The formatted whole second of the last timestamp: (second, text).
        self.second: tuple[int, str] = (-1, "")
        # The last timestamp and the times that certainly share its text: (from, until, text).
        self.milli: tuple[float, float, str] = (0.0, 0.0, "")

    def at(self, t: float) -> str:
        """The text of time ``t``, exactly what :func:`utc_now_iso` gives for it."""
        cached = self.milli
        if cached[0] <= t < cached[1]:
            return cached[2]
        whole = int(t)
        second = self.second
        if second[0] == whole:
            prefix = second[1]
        else:
            prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
            self.second = (whole, prefix)
        ms = int((t - whole) * 1000)
        if 0 <= ms < 1000:
            text = f"{prefix}.{self.digits[ms]}Z"
            # Any later time up to a microsecond before the next millisecond has the same text:
            # ``t - whole`` is exact, and the microsecond dwarfs the rounding of ``until``.
            self.milli = (t, whole + (ms + 0.999) / 1000, text)
            return text
        return f"{prefix}.{ms:03d}Z"  # a time before 1970: the same text as it always had


@functools.lru_cache(maxsize=4096)
def _name_json(tool: str) -> str:
    """The JSON text of a tool name (cached: the same few names recur on every call)."""
    return str(event_json(tool))


def _tool_line(
    stamps: Timestamps,
    kind: str,
    seq: int,
    t: float,
    call_id: int,
    tool: str,
    key: str,
    json_text: str | bytes,
    is_error: bool,
    duration_ns: int,
) -> str:
    """The line of a ``tool_call`` (``key`` "input") or ``tool_result`` (``key`` "output").

    ``durationMs`` is ``duration_ns`` in milliseconds to the microsecond ("12.345"), with
    integer arithmetic and a table rather than float formatting: the same text for the same
    microseconds, at a fraction of the cost.
    """
    # UTF-8 from orjson, decoded only now that it is needed.
    text = json_text.decode() if isinstance(json_text, bytes) else json_text
    milli = stamps.milli  # the cache of stamps.at, read here to save a call
    at = milli[2] if milli[0] <= t < milli[1] else stamps.at(t)
    head = (
        f'{{"seq":{seq},"type":"{kind}","at":"{at}","callId":{call_id},'
        f'"tool":{_name_json(tool) if type(tool) is str else event_json(tool)},"{key}":{text}'
    )
    if key == "input":
        return head + "}"
    us = (duration_ns + 500) // 1000
    digits = stamps.digits
    return (
        f'{head},"isError":{"true" if is_error else "false"},'
        f'"durationMs":{us // 1000}.{digits[us % 1000]}}}'
    )


class TraceWriter:
    """One rollout's trace: a file it streams to, or lines kept in memory (``path`` None)."""

    __slots__ = ("seq", "stamps", "_fd", "_lines")

    def __init__(self, path: str | Path | None) -> None:
        self.seq = 0
        self.stamps = Timestamps()
        # A raw descriptor: each line is one write(2), which is what a flush per line costs
        # anyway, without the buffered text layer in between. Closed by close().
        self._fd: int | None = create_file(os.fspath(path)) if path else None
        # In memory, a tool event is kept as the arguments of _tool_line until lines is read.
        self._lines: list[JSON] = []

    @property
    def lines(self) -> list[str]:
        """Every line so far (in memory; empty when streaming to a file).

        Tool events kept in memory are rendered here, on first read, into exactly the text a
        file gets: a rollout whose trace nobody reads (a training loop without artifacts)
        never formats them.
        """
        lines = self._lines
        for index, line in enumerate(lines):
            if type(line) is tuple:
                lines[index] = redact(_tool_line(self.stamps, *line))
        return lines

    def now_iso(self) -> str:
        """The current time as :func:`utc_now_iso` writes it, from this trace's cache.

        For the times a record keeps beside its events (``startedAt``, ``finishedAt``): they
        fall in the second of an event, whose formatted text the cache already holds.
        """
        return self.stamps.at(_time())

    def _write(self, line: str) -> None:
        line = redact(line)
        fd = self._fd
        if fd is None:
            self._lines.append(line)
            return
        write_all(fd, (line + "\n").encode("utf-8"))

    def event(self, kind: str, fields: dict[str, JSON]) -> None:
        """Write one event: ``seq``, ``type`` and ``at`` first, then ``fields``."""
        self._write(self._line(kind, fields))

    def events(self, *events: tuple[str, dict[str, JSON]]) -> None:
        """Write events that happen at one moment (``(kind, fields)`` each) in one write.

        Each line is what :meth:`event` writes; the file gets them in one system call.
        """
        lines = [redact(self._line(kind, fields)) for kind, fields in events]
        if self._fd is None:
            self._lines.extend(lines)
        else:
            self._write("\n".join(lines))

    def _line(self, kind: str, fields: dict[str, JSON]) -> str:
        self.seq += 1
        head = {"seq": self.seq, "type": kind, "at": self.stamps.at(_time())}
        return event_json({**head, **{k: v for k, v in fields.items() if k not in head}})

    def event_with_json(
        self, kind: str, fields: dict[str, JSON], key: str, raw: str, raw_utf8: bytes
    ) -> None:
        """Like :meth:`event` with one more, last, field ``key`` whose JSON text is ``raw``.

        ``raw_utf8`` is ``raw`` encoded, so a large cached value is written without copies.
        """
        self.seq += 1
        head = {"seq": self.seq, "type": kind, "at": self.stamps.at(_time())}
        text = event_json({**head, **{k: v for k, v in fields.items() if k not in head}})
        start = redact(f"{text[:-1]},{event_json(key)}:")
        fd = self._fd
        if fd is None:
            self._lines.append(f"{start}{raw}}}")
            return
        write_all(fd, b"".join((start.encode("utf-8"), raw_utf8, b"}\n")))

    # The two events of every tool call (twice per call: every copy saved shows in the
    # per-call overhead). In memory they are recorded as fields and rendered when read.

    def tool_call(self, call_id: int, tool: str, input_json: str) -> None:
        """Write the ``tool_call`` event of call ``call_id`` (``input_json`` is JSON text)."""
        self.seq = seq = self.seq + 1
        event = ("tool_call", seq, _time(), call_id, tool, "input", input_json, False, 0)
        if self._fd is None:
            self._lines.append(event)
        else:
            self._write(_tool_line(self.stamps, *event))

    def tool_result(
        self, call_id: int, tool: str, output_json: str | bytes, is_error: bool, duration_ns: int
    ) -> None:
        """Write the ``tool_result`` event of call ``call_id`` with its duration."""
        self.seq = seq = self.seq + 1
        event = (
            "tool_result", seq, _time(), call_id, tool, "output", output_json, is_error,
            duration_ns,
        )  # fmt: skip
        if self._fd is None:
            self._lines.append(event)
        else:
            self._write(_tool_line(self.stamps, *event))

    def close(self) -> None:
        """Close the trace file (kept lines stay readable); safe to call twice."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
