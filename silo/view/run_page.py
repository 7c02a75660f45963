"""One run folder as HTML: the run part of ``silo-view`` reports.

Contract: a run folder is read by :func:`silo.artifacts.run_reader.load_run` (re-exported here
with :class:`RunFolder`), which never raises for a damaged file. :func:`run_section` renders the run — header (task, verdict,
reward, checks passed, termination, tool calls and errors, agent, environment, duration,
started at, run id, error), instruction, the conversation of a conversational task
(:func:`silo.view.dialogue.conversation`), checks (failed required ones highlighted, failed
optional ones shaded), the timeline (:func:`silo.view.trace.timeline`), the state diff
(collections with added/removed/changed row ids, scalars with from/to) and the resolved config
— with every HTML id prefixed by ``prefix`` so that several runs fit on one page. A verdict is
``PASS``/``FAIL`` from ``result.json`` (else the trace's ``verifier_result``), or
``UNFINISHED``. Numbers and text come from the files only: no clock, no absolute folder path.
"""

from __future__ import annotations

from collections.abc import Mapping

from silo.artifacts.run_reader import RUN_FILES, RunFolder, load_run
from silo.json_types import JSON
from silo.view.dialogue import conversation, has_conversation
from silo.view.html import (
    anchor,
    badge,
    esc,
    fmt_ms,
    json_block,
    json_text,
    kv_table,
    mapping,
    records,
    table,
    text_block,
)
from silo.view.html import facts as grid
from silo.view.trace import timeline

__all__ = ["RUN_FILES", "RunFolder", "load_run", "run_section", "verdict"]


def verdict(run: RunFolder) -> str:
    """``PASS``, ``FAIL``, or ``UNFINISHED`` when neither result.json nor the trace graded it."""
    passed = (run.result or run.event("verifier_result")).get("passed")
    return "UNFINISHED" if passed is None else "PASS" if passed else "FAIL"


def _facts(run: RunFolder) -> dict[str, JSON]:
    """Header values: run.json and result.json first, else what the trace recorded."""
    start, end, graded = run.event("run_start"), run.event("run_end"), run.event("verifier_result")
    meta: Mapping[str, JSON] = run.run or {}
    result: Mapping[str, JSON] = run.result or {}
    task = meta.get("task") or start.get("task") or {}
    return {
        "task": mapping(task),
        "agent": meta.get("agent", start.get("agent")),
        "environment": meta.get("environment", start.get("environment")),
        "reward": result.get("reward", graded.get("reward")),
        "terminationReason": result.get("terminationReason", end.get("terminationReason")),
        "error": result.get("error", end.get("error")),
        "toolCalls": result.get("toolCalls", end.get("toolCalls", run.count("tool_call"))),
        "toolErrors": result.get(
            "toolErrors", end.get("toolErrors", run.count("tool_result", True))
        ),
        "durationMs": meta.get("durationMs", end.get("durationMs")),
        "runId": meta.get("runId") or start.get("runId") or run.folder.name,
        "startedAt": meta.get("startedAt", start.get("at")),
        "config": meta.get("config", start.get("config")),
        "checks": records(result.get("checks", graded.get("checks"))),
    }


def _value(value: JSON) -> str:
    return '<span class="muted">-</span>' if value is None else esc(value)


def _header(run: RunFolder, facts: dict[str, JSON], prefix: str) -> str:
    task, reward, error = facts["task"], facts["reward"], facts["error"]
    checks = facts["checks"]
    required = [c for c in checks if c.get("required", True)]
    pairs = [
        ("reward", "-" if not isinstance(reward, (int, float)) else f"{reward:.2f}"),
        ("checks passed", f"{_passed(checks)} ({_passed(required)} required)" if checks else "-"),
        ("termination", _value(facts["terminationReason"])),
        ("tool calls", f"{_value(facts['toolCalls'])} ({_value(facts['toolErrors'])} errors)"),
        ("agent", _value(facts["agent"])),
        ("environment", _value(facts["environment"])),
        ("duration", esc(fmt_ms(facts["durationMs"]))),
        ("started at", _value(facts["startedAt"])),
        ("run id", f"<code>{_value(facts['runId'])}</code>"),
    ]
    if error:
        pairs.append(("!error", f'<span class="err">{esc(error)}</span>'))
    sections = ("instruction", "checks", "timeline", "diff", "config")
    nav = "".join(f'<a href="#{anchor(prefix, s)}">{s}</a>' for s in sections)
    warnings = "".join(f'<p class="err">{esc(p)}</p>' for p in run.problems)
    if run.run is None:
        warnings += (
            '<p class="err">No run.json: the run did not finish; shown from what it wrote.</p>'
        )
    title = f"{task.get('id', '?')} — {task.get('title', '')}"
    return f"<h1>{badge(verdict(run))}{esc(title)}</h1>{grid(pairs)}{warnings}<nav>{nav}</nav>"


def _passed(checks: list[dict[str, JSON]]) -> str:
    return f"{sum(1 for c in checks if c.get('passed'))}/{len(checks)}" if checks else "-"


def _checks(facts: dict[str, JSON]) -> str:
    checks = facts["checks"]
    if not checks:
        return '<p class="muted">No checks recorded.</p>'
    rows, classes = [], []
    for check in checks:
        passed, required = bool(check.get("passed")), check.get("required", True)
        mark = (
            '<span class="badge pass">pass</span>'
            if passed
            else '<span class="badge fail">fail</span>'
        )
        kind = "required" if required else "optional"
        rows.append([mark, esc(check.get("label", "")), kind, esc(check.get("detail", ""))])
        classes.append("" if passed else f"fail-{kind}")
    return table(["", "check", "kind", "detail"], rows, classes)


def _ids(values: JSON, css: str, sign: str) -> str:
    items = values if isinstance(values, list) else []
    return " ".join(f'<span class="{css}">{sign}{esc(v)}</span>' for v in items)


def _diff(run: RunFolder) -> str:
    diff = run.diff
    if diff is None:
        return '<p class="muted">No state-diff.json (the run did not finish).</p>'
    scalars, collections = records(diff.get("scalars")), mapping(diff.get("collections"))
    if not scalars and not collections:
        return '<p class="muted">No change: the agent only read the world.</p>'
    parts = []
    if collections:
        rows = []
        for name, found in collections.items():
            kinds = mapping(found)
            cells = [
                _ids(kinds.get(k), c, s)
                for k, c, s in (
                    ("added", "add", "+"),
                    ("removed", "rem", "-"),
                    ("changed", "chg", "~"),
                )
            ]
            rows.append(
                [f"<code>{esc(name)}</code>", *(f'<span class="ids">{c}</span>' for c in cells)]
            )
        parts.append(table(["collection", "added", "removed", "changed"], rows))
    if scalars:
        rows = [
            [
                f"<code>{esc(s.get('field'))}</code>",
                esc(s.get("change")),
                json_block(s.get("from")),
                json_block(s.get("to")),
            ]
            for s in scalars
        ]
        parts.append(table(["field", "change", "from", "to"], rows))
    return "".join(parts)


def _config(run: RunFolder, facts: dict[str, JSON]) -> str:
    config = mapping(facts["config"])
    pairs = [
        (key, f"<code>{esc(value if isinstance(value, str) else json_text(value))}</code>")
        for key, value in config.items()
    ]
    out = kv_table(pairs) if pairs else '<p class="muted">No config recorded.</p>'
    if run.run is not None:
        out += f"<details><summary>run.json</summary>{json_block(run.run)}</details>"
    return out


def run_section(run: RunFolder, prefix: str) -> str:
    """The run as an HTML fragment; its ids start with ``prefix``."""
    facts = _facts(run)
    task = facts["task"]
    instruction = task.get("instruction")
    task_file = f"<details><summary>task file</summary>{json_block(task)}</details>" if task else ""
    instruction_html = (
        text_block(str(instruction)) if instruction else '<p class="muted">No task recorded.</p>'
    )
    sections = [("instruction", "Instruction", instruction_html + task_file)]
    if has_conversation(run.trace):  # a conversational task: the talk is half of the story
        sections.append(("conversation", "Conversation", conversation(run.trace)))
    sections += [
        ("checks", "Checks", _checks(facts)),
        ("timeline", "Timeline", timeline(run.trace)),
        ("diff", "State diff", _diff(run)),
        ("config", "Resolved config", _config(run, facts)),
    ]
    body = "".join(
        f'<h2 id="{anchor(prefix, key)}">{esc(title)}</h2>{html}' for key, title, html in sections
    )
    return _header(run, facts, prefix) + body
