"""The trace: every event of a rollout, one JSON object per line, streamed.

Contract: events get ``seq`` from 1 and ``at`` (UTC ISO-8601, milliseconds). With a path, each
line is written and flushed as it happens, so a process killed mid-run leaves every event so
far; without one, lines are kept in memory. Tool events are assembled from pre-serialised JSON
so the hot path serialises each input and output exactly once.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import IO, Any

__all__ = ["TraceWriter", "utc_now_iso"]

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=repr).encode


def utc_now_iso(now: float | None = None) -> str:
    t = time.time() if now is None else now
    whole = int(t)
    return (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{int((t - whole) * 1000):03d}Z"
    )


class TraceWriter:
    __slots__ = ("seq", "_handle", "lines")

    def __init__(self, path: Path | None) -> None:
        self.seq = 0
        # Kept open for the whole rollout and closed by close(); a with-block cannot span it.
        self._handle: IO[str] | None = open(path, "w", encoding="utf-8") if path else None  # noqa: SIM115
        self.lines: list[str] = []

    def _write(self, line: str) -> None:
        handle = self._handle
        if handle is None:
            self.lines.append(line)
        else:
            handle.write(line + "\n")
            handle.flush()

    def event(self, kind: str, fields: dict[str, Any]) -> None:
        self.seq += 1
        head = {"seq": self.seq, "type": kind, "at": utc_now_iso()}
        self._write(_dumps({**head, **{k: v for k, v in fields.items() if k not in head}}))

    def tool_call(self, call_id: int, tool: str, input_json: str) -> None:
        self.seq += 1
        self._write(
            f'{{"seq":{self.seq},"type":"tool_call","at":"{utc_now_iso()}","callId":{call_id},'
            f'"tool":{_dumps(tool)},"input":{input_json}}}'
        )

    def tool_result(
        self, call_id: int, tool: str, output_json: str, is_error: bool, duration_ms: float
    ) -> None:
        self.seq += 1
        self._write(
            f'{{"seq":{self.seq},"type":"tool_result","at":"{utc_now_iso()}","callId":{call_id},'
            f'"tool":{_dumps(tool)},"output":{output_json},'
            f'"isError":{"true" if is_error else "false"},"durationMs":{duration_ms:.3f}}}'
        )

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
