"""``trace.jsonl`` as HTML: the timeline of ``silo-view`` run reports.

Contract: a trace is read by :func:`silo.artifacts.run_reader.read_trace` (re-exported here with
:class:`BadLine`), which never raises for damage.
:func:`timeline` renders the events in file order as cards: each ``tool_call`` with its
``tool_result`` paired by ``callId`` (tool, input, output — collapsed when long —, duration,
``isError`` in red with the error's ``code``; a call with no result says so, a result with no
call stands alone), ``model_step`` (turn, assistant text, tool calls, usage, latency),
``agent_output``, ``run_start``/``run_end``/``verifier_result`` on one line, any other event with
its fields, and a bad line as a warning. Times are offsets from the first event's ``at``.
"""

from __future__ import annotations

import json
from contextlib import suppress
from datetime import datetime

from silo.artifacts.run_reader import BadLine, read_trace
from silo.json_types import JSON
from silo.view.html import esc, fmt_ms, json_block, mapping, records, table, text_block

__all__ = ["BadLine", "read_trace", "timeline"]

_SKIP = ("seq", "type", "at")  # event keys shown in the card's head
_NO_OUTPUT = '<p class="muted">null: the agent returned nothing, raised or was abandoned</p>'


def _offset(at: JSON, origin: datetime | None) -> str:
    """``at`` as ``+12.0 ms`` after the first event, else as written."""
    try:
        moment = datetime.fromisoformat(str(at))
        return "+" + esc(fmt_ms((moment - origin).total_seconds() * 1000)) if origin else esc(at)
    except (TypeError, ValueError):  # not a time, or a naive and an aware one
        return "" if at is None else esc(at)


def _card(
    css: str, kind: str, head: str, body: str, event: dict[str, JSON], origin: datetime | None
) -> str:
    seq = f'<span class="muted">#{esc(event["seq"])}</span>' if "seq" in event else ""
    at = _offset(event.get("at"), origin)
    return (
        f'<div class="ev {css}"><div class="ev-head">{seq}<span class="ev-kind">{esc(kind)}</span>'
        f'{head}<span class="at">{at}</span></div>{body}</div>'
    )


def _tool_card(
    call: dict[str, JSON], result: dict[str, JSON] | None, origin: datetime | None
) -> str:
    """A ``tool_call`` with its ``tool_result`` (``None``: the run ended before it came)."""
    bits = [f"call {call.get('callId', '?')}"]
    body = f'<div class="label">input</div>{json_block(call.get("input"))}'
    css, error = "call", ""
    if result is None:
        body += '<p class="err">No result: the run ended before the tool returned.</p>'
    else:
        output = result.get("output")
        bits.append(fmt_ms(result.get("durationMs")))
        if result.get("isError"):
            code = output.get("code", "error") if isinstance(output, dict) else "error"
            css, error = "call error", f' <span class="err">isError: {esc(code)}</span>'
        body += f'<div class="label">output</div>{json_block(output)}'
    name = f"<code>{esc(call.get('tool', '?'))}</code>"
    head = f'<span>{name} <span class="muted">{esc(" · ".join(bits))}</span>{error}</span>'
    return _card(css, "tool call", head, body, call, origin)


def _model_card(event: dict[str, JSON], origin: datetime | None) -> str:
    response, usage = mapping(event.get("response")), mapping(event.get("usage"))
    bits = [f"turn {event.get('turn', '?')}", fmt_ms(event.get("latencyMs"))]
    bits += [f"{k} {v}" for k, v in usage.items()]
    if response.get("finishReason"):
        bits.append(f"finish: {response['finishReason']}")
    body = ""
    if response.get("text"):
        body += f'<div class="label">assistant</div>{text_block(str(response["text"]))}'
    for call in records(response.get("toolCalls")):
        arguments = call.get("arguments")
        if isinstance(arguments, str):
            with suppress(json.JSONDecodeError):  # else shown as the model wrote it
                arguments = json.loads(arguments)
        body += f'<div class="label">calls <code>{esc(call.get("name", "?"))}</code></div>'
        body += json_block(arguments)
    extra = {
        k: v
        for k, v in event.items()
        if k not in (*_SKIP, "turn", "response", "usage", "latencyMs")
    }
    if extra:  # the request summary, attempts, and whatever else the agent recorded
        body += f'<div class="label">{_inline(extra)}</div>'
    head = f'<span class="muted">{esc(" · ".join(bits))}</span>'
    return _card("model", "model step", head, body, event, origin)


def _inline(fields: dict[str, JSON]) -> str:
    """Fields as ``key: value`` on a line (values as compact JSON), in a muted span."""
    pairs = (f"{k}: {json.dumps(v, ensure_ascii=False, default=str)}" for k, v in fields.items())
    return f'<span class="muted">{esc(" · ".join(pairs))}</span>'


def _event_card(event: dict[str, JSON], origin: datetime | None) -> str:
    """Any event but a paired tool call or a model step; the run's own ones on one line."""
    kind = str(event.get("type", "event"))
    fields = {k: v for k, v in event.items() if k not in _SKIP}
    if kind == "agent_output":
        output = fields.get("output")
        shown = json_block(output) if output is not None else _NO_OUTPUT
        return _card("output", "agent output", "", shown, event, origin)
    if kind == "run_start":
        tools = records(fields.get("tools"))
        fields = {k: fields.get(k) for k in ("agent", "environment", "groupId")}
        rows = [
            [f"<code>{esc(t.get('name'))}</code>", esc(t.get("description", ""))] for t in tools
        ]
        listing = table(["tool", "description"], rows)
        listing = f"<details><summary>{len(rows)} tools offered</summary>{listing}</details>"
        return _card("", "run start", _inline(fields), listing, event, origin)
    if kind in ("run_end", "verifier_result"):
        if "checks" in fields:
            fields["checks"] = len(records(fields["checks"]))
        css = "error" if fields.get("error") or fields.get("passed") is False else ""
        return _card(css, kind.replace("_", " "), _inline(fields), "", event, origin)
    return _card("", kind.replace("_", " "), "", json_block(fields), event, origin)


def _call_key(event: dict[str, JSON]) -> str:
    """What pairs a call with its result: its ``callId`` (any JSON value, as text)."""
    return json.dumps(event.get("callId"), sort_keys=True, default=str)


def timeline(trace: list[dict[str, JSON] | BadLine]) -> str:
    """The trace as event cards, in file order."""
    results: dict[JSON, dict[str, JSON]] = {}
    for event in trace:
        if isinstance(event, dict) and event.get("type") == "tool_result":
            results.setdefault(_call_key(event), event)
    paired: set[int] = set()
    first = next((e for e in trace if isinstance(e, dict)), {})
    try:
        origin = datetime.fromisoformat(str(first.get("at")))
    except ValueError:
        origin = None
    cards = []
    for event in trace:
        if isinstance(event, BadLine):
            cards.append(
                f'<div class="ev warning"><div class="ev-head"><span class="ev-kind">warning</span>'
                f"<span>trace line {event.number} is not valid JSON (the run was probably killed "
                f"while writing it)</span></div>{text_block(event.raw)}</div>"
            )
        elif event.get("type") == "tool_call":
            result = results.get(_call_key(event))
            if result is not None:
                paired.add(id(result))
            cards.append(_tool_card(event, result, origin))
        elif event.get("type") == "tool_result":
            if id(event) not in paired:
                cards.append(_event_card(event, origin))
        elif event.get("type") == "model_step":
            cards.append(_model_card(event, origin))
        else:
            cards.append(_event_card(event, origin))
    return "".join(cards) or '<p class="muted">The trace is empty or missing.</p>'
