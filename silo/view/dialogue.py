"""What a model was sent and answered, and the conversation, of a run's trace as HTML.

Contract: :func:`model_steps` renders every ``model_step`` event as one table row — turn,
model, messages sent, latency, tokens, finish reason, the assistant's text and the tools it
asked for — so the model's side of a run reads at a glance apart from the tool cards.
:func:`conversation` renders the trace's conversation events (any event with a ``role`` and a
``content`` or ``text``, such as a simulated user's ``user_message``) as one bubble per
message in order, then who ended the conversation and why (``conversation_end``); a run
without any says so. :func:`has_conversation` tells whether a trace holds a simulated user's
conversation. Every value is escaped.
"""

from __future__ import annotations

from silo.json_types import JSON
from silo.view.html import esc, fmt_ms, json_text, mapping, records, table, text_block
from silo.view.trace import BadLine

__all__ = ["conversation", "has_conversation", "model_steps"]


def _events(trace: list[dict[str, JSON] | BadLine]) -> list[dict[str, JSON]]:
    return [event for event in trace if isinstance(event, dict)]


def model_steps(trace: list[dict[str, JSON] | BadLine]) -> str:
    """The trace's ``model_step`` events as a table; a sentence when there is none."""
    steps = [e for e in _events(trace) if e.get("type") == "model_step"]
    if not steps:
        return '<p class="muted">No model steps: this agent called no model.</p>'
    rows = []
    for step in steps:
        request, response = mapping(step.get("request")), mapping(step.get("response"))
        usage = mapping(step.get("usage"))
        calls = ", ".join(str(c.get("name", "?")) for c in records(response.get("toolCalls")))
        text = response.get("text")
        rows.append(
            [
                esc(step.get("turn", "")),
                esc(request.get("model", "")),
                esc(request.get("messages", "")),
                esc(fmt_ms(step.get("latencyMs"))),
                esc(" · ".join(f"{k} {v}" for k, v in usage.items())),
                esc(response.get("finishReason", "")),
                text_block(str(text)) if text else "",
                f"<code>{esc(calls)}</code>" if calls else "",
            ]
        )
    headers = ["turn#", "model", "sent#", "latency#", "usage", "finish", "assistant", "calls"]
    return table(headers, rows)


def has_conversation(trace: list[dict[str, JSON] | BadLine]) -> bool:
    """True when the trace holds a conversation with a simulated user."""
    return any(event.get("type") == "user_message" for event in _events(trace))


def conversation(trace: list[dict[str, JSON] | BadLine]) -> str:
    """The conversation events as bubbles in order; a sentence when there is none."""
    bubbles = []
    for event in _events(trace):
        if event.get("type") == "conversation_end":
            by, reason = event.get("endedBy", "?"), event.get("reason", "")
            held = event.get("heldForCallId")
            wait = f" (waited for tool call {held})" if held is not None else ""
            bubbles.append(f'<p class="muted">Ended by {esc(by)}: {esc(reason)}{esc(wait)}</p>')
            continue
        content = event.get("content", event.get("text"))
        if "role" not in event or content is None or event.get("type") == "model_step":
            continue
        role = str(event.get("role"))
        shown = content if isinstance(content, str) else json_text(content)
        css = "user" if role == "user" else "assistant"
        bubbles.append(
            f'<div class="msg {css}"><div class="label">{esc(role)}</div>{text_block(shown)}</div>'
        )
    if not bubbles:
        return '<p class="muted">No conversation events: the task has no simulated user.</p>'
    return "".join(bubbles)
