"""The bridge between an agent and its world: ``call_tool``, budgets and termination.

Contract: :class:`Bridge` is the only way an agent acts. Each call is counted, recorded in the
trace (``tool_call`` then ``tool_result``), validated against the tool's schema before the tool
runs, and answered with a :class:`ToolResult` whose output is a JSON copy (never a reference
into state). Unknown tools, invalid input, refusals (``ToolError``) and crashes are error
results, never exceptions. The call over ``max_tool_calls`` is refused unrecorded, and once the
run has ended (``end``: first reason wins) every call raises :class:`RunLimitError`. Tool calls
hold ``lock``, so the engine can wait for a running tool before it grades the world.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from silo.agents.contract import CancelSignal, RunLimitError, ToolResult
from silo.jsonio import compact, json_copy, json_copy_utf8
from silo.rollout.trace import TraceWriter
from silo.schema.validator import InputValidator, validator_for
from silo.tools import Tool, ToolError
from silo.world.pool import World

__all__ = ["Bridge", "json_value"]

# Every tool input and output crosses the bridge as compact JSON text (for the trace) and a
# fresh copy read back from it (for the tool, or the agent), made in one step.
_copy = json_copy
_copy_utf8 = json_copy_utf8
_dumps = compact
_perf_ns = time.perf_counter_ns

ErrorOutput = tuple[str, Any, bool]  # (JSON text, the agent's copy, True)


def json_value(value: Any) -> Any:
    """A JSON copy of ``value`` (its ``str`` when it is not JSON), as artifacts record it."""
    try:
        return _copy(value)[1]
    except (TypeError, ValueError):
        return str(value)


class Bridge:
    """The agent's side of the rollout: ``call_tool``, budgets and termination."""

    def __init__(self, world: World, trace: TraceWriter, max_tool_calls: int) -> None:
        self.world = world
        self.trace = trace
        self.max_calls = max_tool_calls
        self.calls = 0
        self.errors = 0
        self.reason: str | None = None
        self.signal = CancelSignal()
        self.lock = threading.Lock()
        self.usage: dict[str, float] = {}

    def end(self, reason: str) -> None:
        """First reason wins: a run stopped by its tool limit stays ``max_tool_calls``."""
        if self.reason is None:
            self.reason = reason
            self.signal._abort(reason)

    def call_tool(self, name: str, input: Any = None) -> ToolResult:
        # One function for the whole common path (valid input, the tool returns JSON): every
        # call saved shows in the per-call overhead. Refusals and failures build their error
        # output in the helpers below.
        with self.lock:
            if self.reason is not None:
                raise RunLimitError(self.reason, f"Run ended: {self.reason}.")
            if self.calls >= self.max_calls:
                self.end("max_tool_calls")
                raise RunLimitError(
                    "max_tool_calls", f"Tool call limit exceeded ({self.max_calls})."
                )
            self.calls = call_id = self.calls + 1
            args: Any
            if input is None or (type(input) is dict and not input):
                input_json, args = "{}", {}
            else:
                try:
                    input_json, args = _copy(input)
                except (TypeError, ValueError):
                    input_json, args = _dumps(repr(input)), None
            trace = self.trace
            trace.tool_call(call_id, name, input_json)
            started = _perf_ns()
            try:
                tool = self.world.tools.get(name)
            except TypeError:  # an unhashable name is just another unknown tool
                tool = None
            refusal: ErrorOutput | None
            if tool is None or type(args) is not dict:
                refusal = _refusal(name, tool)
            else:
                run = tool.run
                validator = validator_for(tool.input_schema)
                quick = validator.quick  # the generated check, called without problems()
                refusal = (
                    None if quick is not None and quick(args) else _invalid(name, validator, args)
                )
            output: Any
            output_json: str | bytes
            if refusal is not None:
                output_json, output, is_error = refusal
            else:
                try:
                    raw = run(self.world.state, args)
                except ToolError as exc:
                    output_json, output, is_error = _error_output(exc.to_output())
                except RunLimitError:
                    raise
                except Exception as exc:
                    output_json, output, is_error = _error(
                        "tool_crashed", f"{type(exc).__name__}: {exc}"
                    )
                else:
                    try:
                        output_json, output = _copy_utf8(raw)  # decoded when the trace is
                        is_error = False
                    except (TypeError, ValueError) as exc:
                        output_json, output, is_error = _error(
                            "tool_crashed", f'"{name}" returned a value that is not JSON: {exc}'
                        )
            elapsed = _perf_ns() - started
            if is_error:
                self.errors += 1
            trace.tool_result(call_id, name, output_json, is_error, elapsed)
            return ToolResult(output=output, isError=is_error)

    def emit(self, kind: str, data: Mapping[str, Any]) -> None:
        with self.lock:
            self.trace.event(kind, dict(data))
            usage = data.get("usage") if kind == "model_step" else None
            if isinstance(usage, Mapping):
                for key, value in usage.items():
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        self.usage[key] = self.usage.get(key, 0) + value


def _refusal(name: Any, tool: Tool | None) -> ErrorOutput:
    """An unknown tool, or input that is not an object."""
    if tool is None:
        return _error("tool_not_found", f'Unknown tool "{name}"; call one of the tools offered.')
    return _error(
        "invalid_input",
        f'Invalid arguments for "{name}": input must be a JSON object.',
        {"problems": ["input must be a JSON object"]},
    )


def _invalid(name: Any, validator: InputValidator, args: dict[str, Any]) -> ErrorOutput | None:
    """The invalid_input error listing every problem, or None when ``args`` is valid after all."""
    problems = validator.problems(args)
    if not problems:
        return None
    return _error(
        "invalid_input",
        f'Invalid arguments for "{name}": {"; ".join(problems)}.',
        {"problems": problems},
    )


def _error_output(output: dict[str, Any]) -> ErrorOutput:
    try:
        text, copy = _copy(output)
    except (TypeError, ValueError):  # non-JSON details: keep the code and the message
        text, copy = _copy({"code": output.get("code"), "message": str(output.get("message"))})
    return text, copy, True


def _error(code: str, message: str, details: dict[str, Any] | None = None) -> ErrorOutput:
    output: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        output["details"] = details
    return _error_output(output)
