"""An agent that replays a recorded run's tool calls.

Contract: ``ReplayAgent(trace)`` reads a run's ``trace.jsonl`` (a path, relative to the current
folder), calls every recorded ``tool_call`` event's ``tool`` with its ``input`` in ``seq`` order
against the fresh world, and returns the recorded ``agent_output`` event's output. With a
deterministic environment and the recorded budget this reproduces the run: the same final world
and the same ``result.json``. The recorded ending is reproduced too: an ``agent_error`` is raised
again as :class:`AgentError` with the recorded message; a run stopped by ``max_tool_calls`` makes
the refused extra call again (the last recorded call; the engine refuses it without running it)
or re-raises :class:`RunLimitError` with the recorded message; a ``timeout`` that ended with an
error re-raises it (a timeout the agent survived cannot be reproduced and replays as completed).

A conversational run's messages to the user (``user_message`` events with ``role`` ``agent``)
are sent again through ``inp.user`` at their place among the tool calls, so with the scripted
user the replay reproduces the conversation and the run byte for byte; a reply that differs
from the recorded one is a ``replay_divergence`` event (``recordedMessageId``). Replaying such
a trace on a rollout without a user raises :class:`AgentError`.

When a replayed call's result differs from the recorded ``tool_result`` (the environment changed
since the recording), a ``replay_divergence`` event is added to the trace and the replay goes on.
A missing file, an invalid JSON line (named by its line number) and a trace without an
``agent_output`` event raise a one-line :class:`AgentError`. :class:`RunLimitError` from
``call_tool`` propagates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from silo.agents.contract import AgentError, AgentInput, RunLimitError
from silo.json_types import JSON
from silo.jsonio import canonical

__all__ = ["RecordedRun", "ReplayAgent", "read_recorded_run", "read_trace"]


@dataclass(frozen=True)
class RecordedRun:
    """What a replay needs from a trace: the calls in order, their results and the ending."""

    calls: list[dict[str, JSON]]  # tool_call events, by seq
    results: dict[Any, dict[str, JSON]]  # tool_result events, by callId
    output: Any  # the agent_output event's output
    termination_reason: str  # from run_end; "completed" when the trace has none
    error: str | None
    # The agent's messages to the user (user_message, role agent) and the user's replies by
    # messageId: empty for a run without a conversation.
    messages: list[dict[str, JSON]] = field(default_factory=list)
    replies: dict[Any, dict[str, JSON]] = field(default_factory=dict)

    def steps(self) -> list[dict[str, JSON]]:
        """The tool calls and the messages to the user, in the order they were made."""
        return sorted([*self.calls, *self.messages], key=lambda e: e.get("seq") or 0)


def read_recorded_run(path: Path) -> RecordedRun:
    """Parse ``trace.jsonl``; every problem is a one-line :class:`AgentError`."""
    if not path.is_file():
        raise AgentError(
            f"trace file {path} does not exist; set agent.trace=<path to a run's trace.jsonl>"
        )
    events: list[dict[str, JSON]] = []
    with path.open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError as exc:
                raise AgentError(
                    f"{path}:{lineno}: not valid JSON ({exc.msg}, column {exc.colno}); "
                    "replay an intact trace.jsonl written by a Silo run"
                ) from None
            if not isinstance(event, dict):
                raise AgentError(f"{path}:{lineno}: expected one JSON object (an event) per line")
            events.append(event)
    events.sort(key=lambda e: e["seq"] if isinstance(e.get("seq"), int) else 0)
    by_type: dict[str, list[dict[str, JSON]]] = {}
    for event in events:
        by_type.setdefault(str(event.get("type")), []).append(event)
    if "agent_output" not in by_type:
        raise AgentError(
            f"{path} has no agent_output event (the recorded run did not finish); "
            "replay the trace of a finished run"
        )
    calls = by_type.get("tool_call", [])
    for call in calls:
        if not isinstance(call.get("tool"), str) or "input" not in call:
            raise AgentError(
                f"{path}: the tool_call event with seq {call.get('seq')} lacks a tool name or "
                "an input; the trace is damaged"
            )
    end = (by_type.get("run_end") or [{}])[-1]
    said = by_type.get("user_message", [])
    return RecordedRun(
        calls=calls,
        results={e.get("callId"): e for e in by_type.get("tool_result", [])},
        output=by_type["agent_output"][-1].get("output"),
        termination_reason=str(end.get("terminationReason") or "completed"),
        error=end.get("error"),
        messages=[e for e in said if e.get("role") == "agent" and isinstance(e.get("text"), str)],
        replies={e.get("messageId"): e for e in said if e.get("role") == "user"},
    )


read_trace = read_recorded_run
"""The earlier name (silo.artifacts.run_reader.read_trace is the tolerant reader of any trace)."""


class ReplayAgent:
    """Replays a trace's tool calls; see the module docstring for the contract."""

    deterministic: ClassVar[bool] = True

    def __init__(self, trace: str | Path | None = None) -> None:
        """Replay ``trace``; a missing path is refused here, before the run starts."""
        if trace is None or not str(trace).strip():  # checked when built: a run that cannot start
            raise AgentError("set agent.trace=<path to trace.jsonl>")
        self.trace = trace

    def __call__(self, inp: AgentInput) -> dict[str, JSON]:
        """Make the recorded calls against ``inp``'s world and end as the recording ended."""
        recorded = read_recorded_run(Path(self.trace).expanduser())
        if recorded.messages and inp.user is None:
            raise AgentError(
                f"{self.trace} is a conversation with a simulated user, but this rollout has no "
                "user; replay it on the same conversational task (user=scripted)"
            )
        for call in recorded.steps():
            if call.get("type") == "user_message":
                _resend(inp, call, recorded.replies.get(call.get("messageId")))
                continue
            result = inp.call_tool(call["tool"], call["input"])
            expected = recorded.results.get(call.get("callId"))
            if expected is not None:
                before = {
                    "output": expected.get("output"),
                    "isError": bool(expected.get("isError")),
                }
                _report_divergence(inp, call, before, result)
        reason, error = recorded.termination_reason, recorded.error
        if reason == "agent_error":
            raise AgentError(error or "the recorded agent failed")
        if reason == "max_tool_calls" and error is None and recorded.calls:
            last = recorded.calls[-1]
            try:  # the recorded agent's refused call: it ended the run and then returned
                result = inp.call_tool(last["tool"], last["input"])
            except RunLimitError:
                return {"output": recorded.output}
            _report_divergence(inp, {**last, "callId": None}, {"refused": True}, result)
        elif reason in ("max_tool_calls", "timeout") and error is not None:
            raise RunLimitError(reason, error)
        return {"output": recorded.output}


def _resend(inp: AgentInput, message: dict[str, JSON], expected: dict[str, JSON] | None) -> None:
    """Send a recorded message to the user again; a different reply is a divergence."""
    assert inp.user is not None
    reply = inp.user.send(message["text"])
    if expected is None:
        return
    before = {"text": expected.get("text"), "ended": bool(expected.get("ended"))}
    after = {"text": reply.text, "ended": reply.ended}
    if canonical(before) != canonical(after):
        inp.emit(
            "replay_divergence",
            {"recordedMessageId": message.get("messageId"), "recorded": before, "replayed": after},
        )


def _report_divergence(
    inp: AgentInput, call: dict[str, JSON], before: dict[str, JSON], result: Any
) -> None:
    """Emit ``replay_divergence`` when a replayed call's result differs from the recording."""
    after = {"output": result.get("output"), "isError": bool(result.get("isError"))}
    if canonical(before) != canonical(after):
        inp.emit(
            "replay_divergence",
            {
                "recordedCallId": call.get("callId"),
                "tool": call["tool"],
                "recorded": before,
                "replayed": after,
            },
        )
