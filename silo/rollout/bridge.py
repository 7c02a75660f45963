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

import reprlib
import threading
import time
from collections.abc import Mapping

from silo.agents.contract import CancelSignal, RunLimitError, ToolResult
from silo.json_types import JSON
from silo.jsondepth import MAX_DEPTH, NotPlain, depth_of, plain_copy_of
from silo.jsonio import compact, json_copy, json_copy_utf8
from silo.redact import redact, safe_str
from silo.rollout.trace import TraceWriter
from silo.schema.validator import InputValidator, validator_for
from silo.tools import Tool, ToolError
from silo.world.pool import World

__all__ = [
    "MAX_OUTPUT_CHARS",
    "MAX_OUTPUT_DEPTH",
    "stored_output",
    "MAX_PROBLEMS",
    "MAX_SHOWN",
    "Bridge",
    "bounded_repr",
    "bounded_text",
    "json_value",
    "recorded_error",
]

# Every tool input and output crosses the bridge as compact JSON text (for the trace) and a
# fresh copy read back from it (for the tool, or the agent), made in one step.
_copy = json_copy
_copy_utf8 = json_copy_utf8
_dumps = compact
_perf_ns = time.perf_counter_ns

ErrorOutput = tuple[str, JSON, bool]  # (JSON text, the agent's copy, True)

MAX_SHOWN = 200
"""The most characters of an agent's value (or tool name) an error message quotes."""
MAX_PROBLEMS = 20
"""The most schema problems an invalid_input error lists."""


MAX_OUTPUT_CHARS = 1_000_000
"""The most characters of an agent's final answer a rollout keeps (and grades, and stores)."""


MAX_OUTPUT_DEPTH = MAX_DEPTH - 1
"""The deepest answer a rollout keeps: with the one level of the record that holds it, every
artifact stays within :data:`silo.jsondepth.MAX_DEPTH`. Deeper containers become ``"…"``."""


def stored_output(output: JSON) -> tuple[JSON, dict[str, int] | None]:
    """The agent's answer as a rollout keeps it, and what was cut from it (None: nothing).

    ``output`` is already a JSON copy (:func:`json_value`). Lone surrogates become
    backslash escapes (no UTF-8 artifact could hold them); an answer nested deeper than
    :data:`MAX_OUTPUT_DEPTH` keeps that many levels (``keptDepth``); an answer whose JSON text
    is over :data:`MAX_OUTPUT_CHARS` is kept as the first that many characters of it, as a
    string (``chars``, ``keptChars``).
    """
    if output is None or type(output) in (bool, int, float):
        return output, None
    cut: dict[str, int] = {}
    text = output if type(output) is str else compact(output)
    # Every level of nesting takes two characters: only a long text can be too deep.
    long = type(output) is not str and len(text) > 2 * MAX_OUTPUT_DEPTH
    if long and depth_of(output, MAX_OUTPUT_DEPTH) > MAX_OUTPUT_DEPTH:
        output = plain_copy_of(output, MAX_OUTPUT_DEPTH)
        text = compact(output)
        cut["keptDepth"] = MAX_OUTPUT_DEPTH
    if len(text) <= MAX_OUTPUT_CHARS:
        try:
            text.encode("utf-8")
            return output, cut or None
        except UnicodeEncodeError:
            return _without_surrogates(output), cut or None
    kept = bounded_text(text[:MAX_OUTPUT_CHARS], MAX_OUTPUT_CHARS)
    return kept, cut | {"chars": len(text), "keptChars": len(kept)}


def _without_surrogates(value: JSON) -> JSON:
    """``value`` with every string (keys too) made UTF-8-safe by escaping lone surrogates."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_surrogates(v) for v in value]
    return value


def json_value(value: JSON) -> JSON:
    """A JSON copy of ``value`` as artifacts record it; never raises, whatever ``value`` does.

    Plain JSON nested too deeply for the fast copy is copied without recursion (one level
    past :data:`MAX_OUTPUT_DEPTH` kept, so that :func:`stored_output` sees it was deeper);
    anything else that is not JSON (a cycle, a set, an object) is recorded as its text, its
    ``repr`` when ``__str__`` raises.
    """
    try:
        return _copy(value)[1]
    except Exception:  # not JSON, too deep, or one of its own methods raised
        pass
    try:
        return plain_copy_of(value, MAX_OUTPUT_DEPTH + 1)
    except NotPlain:
        return safe_str(value)


MAX_ERROR_CHARS = 4_000
"""The most characters of an error a rollout records (an exception's message can be huge)."""


def recorded_error(error: str | None) -> str | None:
    """``error`` as a rollout records it: bounded, UTF-8-safe, secrets redacted."""
    if error is None:
        return None
    return bounded_text(redact(safe_str(error)), MAX_ERROR_CHARS)


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
        self.savepoint = world.savepoint()  # undoes a failing call (None: not journaled)

    def end(self, reason: str) -> None:
        """First reason wins: a run stopped by its tool limit stays ``max_tool_calls``."""
        if self.reason is None:
            self.reason = reason
            self.signal.abort(reason)

    def call_tool(self, name: str, input: JSON = None) -> ToolResult:
        """Run one tool call for the agent: validated, copied, counted and traced."""
        # One function for the whole common path (valid input, the tool returns JSON): every
        # call saved shows in the per-call overhead. Refusals and failures build their error
        # output in the helpers below, and nothing the agent sends or a tool does makes this
        # raise: what the agent is told is what the trace records, in memory or on file.
        with self.lock:
            if self.reason is not None:
                raise RunLimitError(self.reason, f"Run ended: {self.reason}.")
            if self.calls >= self.max_calls:
                self.end("max_tool_calls")
                raise RunLimitError(
                    "max_tool_calls", f"Tool call limit exceeded ({self.max_calls})."
                )
            self.calls = call_id = self.calls + 1
            args: JSON
            refusal: ErrorOutput | None = None
            if input is None or (type(input) is dict and not input):
                input_json, args = "{}", {}
            else:
                try:
                    text, args = _copy_utf8(input)
                    # orjson's bytes are valid UTF-8; the standard library's text may hold a
                    # lone surrogate, which no trace file (nor the agent's JSON) can carry.
                    input_json = text.decode() if isinstance(text, bytes) else _utf8_checked(text)
                except (TypeError, ValueError, RecursionError) as exc:
                    input_json, args = _dumps(bounded_repr(input)), None
                    refusal = _unreadable(name, exc)
            try:
                tool = self.world.tools.get(name)
            except TypeError:  # an unhashable name is just another unknown tool
                tool = None
            trace = self.trace
            trace.tool_call(call_id, name if tool is not None else _shown(name), input_json)
            started = _perf_ns()
            if refusal is not None:
                pass
            elif tool is None or type(args) is not dict:
                refusal = _refusal(name, tool, args)
            else:
                run = tool.run
                validator = validator_for(tool.input_schema)
                quick = validator.quick  # the generated check, called without problems()
                if quick is None or not quick(args):
                    refusal = _invalid(name, validator, args)
            output: JSON
            output_json: str | bytes
            if refusal is not None:
                output_json, output, is_error = refusal
            else:
                savepoint = self.savepoint
                if savepoint is not None:
                    savepoint.open()
                try:
                    raw = run(self.world.state, args)
                except ToolError as exc:
                    output_json, output, is_error = _error_output(exc.to_output())
                except RunLimitError:
                    if savepoint is not None:
                        savepoint.restore()
                    raise
                except Exception as exc:
                    output_json, output, is_error = _error(
                        "tool_crashed", f"{type(exc).__name__}: {bounded_text(str(exc))}"
                    )
                else:
                    try:
                        output_json, output = _copy_utf8(raw)  # decoded when the trace is
                        if type(output_json) is str:
                            _utf8_checked(output_json)
                        is_error = False
                    except (TypeError, ValueError, RecursionError) as exc:
                        output_json, output, is_error = _error(
                            "tool_crashed",
                            f'"{name}" returned a value that is not JSON: {bounded_text(str(exc))}',
                        )
                if savepoint is not None:
                    # A call that fails leaves the world as it was before the call.
                    if is_error:
                        savepoint.restore()
                    else:
                        savepoint.close()
            elapsed = _perf_ns() - started
            if is_error:
                self.errors += 1
            trace.tool_result(
                call_id, name if tool is not None else _shown(name), output_json, is_error, elapsed
            )
            return ToolResult(output=output, isError=is_error)

    def emit(self, kind: str, data: Mapping[str, JSON]) -> None:
        """Add an agent event (e.g. ``model_step``) to the trace, summing its ``usage``."""
        with self.lock:
            self.trace.event(kind, dict(data))
            usage = data.get("usage") if kind == "model_step" else None
            if isinstance(usage, Mapping):
                for key, value in usage.items():
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        self.usage[key] = self.usage.get(key, 0) + value


def bounded_text(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` cut to ``limit`` characters (saying how long it was), lone surrogates escaped.

    What an error message quotes of the agent's input: never the whole of a huge value, and
    always text a UTF-8 trace (and the agent's JSON) can hold.
    """
    if len(text) > limit:
        text = f"{text[:limit]}… ({len(text):,} characters)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _short_repr() -> reprlib.Repr:
    short = reprlib.Repr()
    short.maxlevel = 4
    short.maxstring = short.maxother = short.maxlong = MAX_SHOWN
    return short


_REPR = _short_repr()  # read-only after import


def bounded_repr(value: JSON) -> str:
    """A short, UTF-8-safe ``repr`` of any value (deep, huge or broken ones included)."""
    try:
        text = _REPR.repr(value)
    except Exception:  # a __repr__ that raises past reprlib's guard
        text = f"<{type(value).__name__}>"
    return bounded_text(text, 4 * MAX_SHOWN)


def _shown(name: JSON) -> str:
    """How an unknown tool's name is traced and quoted: text, bounded, UTF-8-safe."""
    return bounded_text(name) if type(name) is str else bounded_repr(name)


def _utf8_checked(text: str) -> str:
    """``text`` itself; a lone surrogate raises UnicodeEncodeError (a ValueError)."""
    if not text.isascii():
        text.encode("utf-8")
    return text


def _unreadable(name: JSON, exc: BaseException) -> ErrorOutput:
    """The invalid_input error of input that is not JSON at all, saying why."""
    if isinstance(exc, RecursionError):
        why = "input nests too deeply; send a flatter JSON object"
    elif isinstance(exc, UnicodeError):
        why = "input holds a lone surrogate (not valid Unicode); send UTF-8 text"
    elif isinstance(exc, ValueError) and "float" in str(exc):
        why = "input holds NaN or Infinity, which JSON does not allow; send a finite number"
    elif isinstance(exc, ValueError):
        why = f"input is not JSON ({bounded_text(str(exc))}); send a JSON object"
    else:
        why = f"input is not JSON ({bounded_text(str(exc))}); send a JSON object"
    return _error(
        "invalid_input", f"Invalid arguments for {_quoted(name)}: {why}.", {"problems": [why]}
    )


def _quoted(name: JSON) -> str:
    return f'"{_shown(name)}"'


def _refusal(name: JSON, tool: Tool | None, args: JSON) -> ErrorOutput:
    """An unknown tool, or input that is not an object."""
    if tool is None:
        return _error(
            "tool_not_found", f"Unknown tool {_quoted(name)}; call one of the tools offered."
        )
    why = f"input must be a JSON object, not {_json_kind(args)}"
    return _error(
        "invalid_input",
        f"Invalid arguments for {_quoted(name)}: {why}.",
        {"problems": [why]},
    )


def _json_kind(value: JSON) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "null" if value is None else type(value).__name__


def _invalid(name: JSON, validator: InputValidator, args: dict[str, JSON]) -> ErrorOutput | None:
    """The invalid_input error listing the problems, or None when ``args`` is valid after all.

    Each problem quotes at most :data:`MAX_SHOWN` characters of the offending value, at most
    :data:`MAX_PROBLEMS` are listed, and the message names only the first: the error stays
    small however large the input.
    """
    try:
        problems = validator.problems(args)
    except RecursionError:
        problems = ["input nests too deeply for its schema; send a flatter JSON object"]
    if not problems:
        return None
    shown = [bounded_text(p) for p in problems[:MAX_PROBLEMS]]
    if len(problems) > MAX_PROBLEMS:
        shown.append(f"... and {len(problems) - MAX_PROBLEMS} more")
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return _error(
        "invalid_input",
        f"Invalid arguments for {_quoted(name)}: {shown[0]}{more}.",
        {"problems": shown},
    )


def _error_output(output: dict[str, JSON]) -> ErrorOutput:
    try:
        text, copy = _copy(output)
        _utf8_checked(text)
    except (TypeError, ValueError, RecursionError):  # keep the code and the message
        text, copy = _copy(
            {
                "code": bounded_text(str(output.get("code"))),
                "message": bounded_text(str(output.get("message")), 64 * MAX_SHOWN),
            }
        )
    return text, copy, True


def _error(code: str, message: str, details: dict[str, JSON] | None = None) -> ErrorOutput:
    output: dict[str, JSON] = {"code": code, "message": message}
    if details is not None:
        output["details"] = details
    return _error_output(output)
