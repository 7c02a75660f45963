"""silo.view.site: reports of real runs and groups, read back with html.parser as a browser would."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from silo import SiloError
from silo.batch.sweep import Point
from silo.rollout.run import Budget, run_task
from silo.view.site import REPORT_NAME, folder_kind, render, resolve, write_report
from tests.batch.test_compare import make_group, point

HOSTILE = "<script>alert('pwned')</script>"
_VOID = {"meta", "br", "hr", "img", "input", "link", "col"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""
    children: list[Element] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


class Page(HTMLParser):
    """Every element of a document with its attributes and text (its descendants' included)."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self._open: list[Element] = []
        self.feed(html)
        self.close()
        assert not self._open, [e.tag for e in self._open]  # every element was closed

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        if self._open:
            self._open[-1].children.append(element)
        self.elements.append(element)
        if tag not in _VOID:
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        assert self._open and self._open[-1].tag == tag, (tag, [e.tag for e in self._open])
        self._open.pop()

    def handle_data(self, data: str) -> None:
        for element in self._open:
            element.text += data

    def find(self, tag: str | None = None, cls: str | None = None) -> list[Element]:
        return [
            e
            for e in self.elements
            if (tag is None or e.tag == tag) and (cls is None or cls in e.classes)
        ]

    def by_id(self, ident: str) -> Element:
        (found,) = [e for e in self.elements if e.attrs.get("id") == ident]
        return found

    @property
    def text(self) -> str:
        return self.find("body")[0].text


def verdict(page: Page) -> str:
    (badge,) = page.find("span", "verdict")
    return badge.text


def tool_cards(page: Page) -> list[Element]:
    return page.find("div", "call")


def descendants(element: Element) -> list[Element]:
    found = []
    for child in element.children:
        found += [child, *descendants(child)]
    return found


def tool_name(card: Element) -> str:
    return next(e.text for e in descendants(card) if e.tag == "code")


def _hostile_agent(inp: Any) -> str:
    """A model-like agent: a model step, a good call, an invalid one, a refused one."""
    inp.emit(
        "model_step",
        {
            "turn": 1,
            "request": {"model": "fake-model", "messages": 2, "tools": 4},
            "response": {
                "text": f"I will bump C-1 {HOSTILE}",
                "toolCalls": [{"name": "bump", "arguments": '{"id": "C-1"}'}],
                "finishReason": "tool_calls",
            },
            "usage": {"promptTokens": 11, "completionTokens": 7, "totalTokens": 18},
            "latencyMs": 12.5,
        },
    )
    inp.call_tool("bump", {"id": "C-1"})
    inp.call_tool("bump", {"id": "not a counter"})  # fails the schema's pattern
    inp.call_tool("refuse", {})
    inp.emit("scratchpad", {"note": f"thinking {HOSTILE}"})
    return f"done {HOSTILE}"


def _raising_agent(inp: Any) -> str:
    inp.call_tool("read", {"id": "C-1"})
    raise RuntimeError(f"gave up {HOSTILE}")


def _run(project: Path, agent: Any, task: str = "TASK-001") -> Path:
    result = run_task("toy", task, agent, project_dir=project, agent_label="custom")
    assert result.run_dir is not None
    return result.run_dir


def test_passing_run(toy_project: Path) -> None:
    folder = _run(toy_project, "solver")
    html = render(folder)
    page = Page(html)
    assert verdict(page) == "PASS"
    assert page.find("title")[0].text == f"{folder.name} PASS — silo-view"
    assert "TASK-001 — Toy task 1" in page.find("h1")[0].text
    assert "Bump counter C-1 by 2 and report its value." in page.text
    cards = tool_cards(page)
    assert [tool_name(c) for c in cards] == ["bump", "bump"]
    assert not any("error" in c.classes for c in cards)
    assert not page.find("tr", "fail-required")
    diff = page.text
    assert "~C-1" in diff and "+LOG-001" in diff and "+LOG-002" in diff
    assert "C-1 is now 3" in page.find("div", "output")[0].text
    assert "maxToolCalls" in page.text and "timeoutMs" in page.text
    # self-contained: no network, no external asset
    lowered = html.lower()
    assert "http://" not in lowered and "https://" not in lowered
    assert " src=" not in lowered and "<link" not in lowered and "@import" not in lowered
    assert render(folder) == html  # deterministic


def test_noop_run_fails_and_highlights_failed_required_checks(toy_project: Path) -> None:
    page = Page(render(_run(toy_project, "noop")))
    assert verdict(page) == "FAIL"
    (failed,) = page.find("tr", "fail-required")
    assert "C-1 went up by 2" in failed.text and "1 -> 1" in failed.text
    assert [r.text for r in page.find("tr", "fail-optional")] == [
        "failanswer mentions the new valueoptional"
    ]
    assert not tool_cards(page)
    assert "No change: the agent only read the world." in page.text


def test_tool_errors_model_steps_custom_events_and_escaping(toy_project: Path) -> None:
    folder = _run(toy_project, _hostile_agent)
    html = render(folder)
    assert HOSTILE not in html and "&lt;script&gt;" in html
    page = Page(html)
    assert len(page.find("script")) == 1  # the report's own, nothing from the run
    cards = tool_cards(page)
    assert len(cards) == 3
    ok, invalid, refused = cards
    assert "error" not in ok.classes and '{"id": "C-1", "value": 2}' in ok.text
    assert "error" in invalid.classes and "isError: invalid_input" in invalid.text
    assert "not a counter" in invalid.text and "does not match" in invalid.text
    assert "error" in refused.classes and "isError: not_allowed" in refused.text
    assert "Refused on purpose." in refused.text
    (model,) = page.find("div", "model")
    assert f"I will bump C-1 {HOSTILE}" in model.text
    assert "turn 1" in model.text and "totalTokens 18" in model.text
    assert '{"id": "C-1"}' in model.text and "fake-model" in model.text
    (custom,) = [c for c in page.find("div", "ev") if "scratchpad" in c.text]
    assert f"thinking {HOSTILE}" in custom.text
    assert f"done {HOSTILE}" in page.find("div", "output")[0].text
    assert "tool calls" in page.text and "3 (2 errors)" in page.text


def test_agent_that_raises(toy_project: Path) -> None:
    page = Page(render(_run(toy_project, _raising_agent)))
    assert verdict(page) == "FAIL"
    errors = [e.text for e in page.find("span", "err")]
    assert any(f"RuntimeError: gave up {HOSTILE}" in text for text in errors)
    assert "agent_error" in page.text
    assert "null: the agent returned nothing, raised or was abandoned" in page.text
    (end,) = [c for c in page.find("div", "ev") if "run end" in c.text]
    assert "error" in end.classes


def test_unfinished_run_with_a_truncated_trace_line(toy_project: Path, tmp_path: Path) -> None:
    source = _run(toy_project, "solver")
    killed = tmp_path / "killed"
    killed.mkdir()
    lines = (source / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    cut = lines[3][: len(lines[3]) // 2]  # the second tool_call, cut mid-write
    (killed / "trace.jsonl").write_text("\n".join([*lines[:3], cut]), encoding="utf-8")
    assert folder_kind(killed) == "run"
    page = Page(render(killed))
    assert verdict(page) == "UNFINISHED"
    (warning,) = page.find("div", "warning")
    assert "trace line 4 is not valid JSON" in warning.text and cut in warning.text
    (call,) = tool_cards(page)
    assert "bump" in call.text and "C-1" in call.text
    assert "No run.json: the run did not finish" in page.text
    assert "tool calls1 (0 errors)" in page.text  # counted from the trace
    assert "No state-diff.json" in page.text and "No checks recorded." in page.text


def _garbage_agent(inp: Any) -> str:
    """Events an agent may emit under any name, with fields of any shape."""
    inp.emit("tool_call", {"callId": {"x": 1}, "tool": ["bump"], "input": 5})
    inp.emit("run_start", {"tools": 7, "task": "no"})
    inp.emit("verifier_result", {"checks": 3.5, "passed": "maybe"})
    inp.emit("model_step", {"response": {"toolCalls": "nope", "text": 4}, "usage": [1]})
    inp.emit("tool_result", {"callId": None, "output": None, "isError": True})
    inp.call_tool("bump", {"id": "C-1"})
    return "ok"


def test_events_of_any_shape_render(toy_project: Path) -> None:
    page = Page(render(_run(toy_project, _garbage_agent)))
    assert verdict(page) == "FAIL"  # from result.json, not from the emitted verifier_result
    calls = tool_cards(page)
    assert len(calls) == 2 and "No result: the run ended" in calls[0].text
    assert "bump" in tool_name(calls[1]) and '{"id": "C-1", "value": 2}' in calls[1].text


def test_group_without_summary_and_a_damaged_run(toy_project: Path) -> None:
    group = make_group(toy_project, "g", [point("TASK-001", "solver", "solver")], runs=2)
    (group / "summary.json").unlink()
    damaged = sorted(group.glob("run_*"))[1]
    (damaged / "result.json").write_text('{"reward": "high"}', encoding="utf-8")
    page = Page(render(group))
    assert "Summary read from the run folders (no readable summary.json)" in page.text
    (row,) = page.find("tbody")[1].children
    assert [c.text for c in row.children[1:4]] == ["solver", "1", "1"]
    (other,) = [d for d in page.find("details", "run") if damaged.name in d.children[0].text]
    assert other.children[0].text.startswith("UNFINISHED")
    assert page.by_id("other-runs").tag == "h2"


def test_group_summary_links_to_collapsed_runs_and_lists_infra_errors(toy_project: Path) -> None:
    points = [
        point("TASK-001", "solver", "solver"),
        point("TASK-001", "noop", "noop"),
        Point("toy", "TASK-001", {"path": "missing.py"}, "missing", Budget(), seed=0),
    ]
    group = make_group(toy_project, "g", points, runs=2)
    partial = group / "run_zz_killed"  # a rollout killed before its end
    partial.mkdir()
    first_trace = sorted(group.glob("run_*/trace.jsonl"))[0].read_text(encoding="utf-8")
    (partial / "trace.jsonl").write_text("".join(first_trace.splitlines(True)[:3]), "utf-8")
    assert folder_kind(group) == "group"
    html = render(group)
    assert render(group) == html
    page = Page(html)
    rows = page.find("tbody")[1].children  # agents table first, then the summary
    assert [r.children[0].text + " " + r.children[1].text for r in rows] == [
        "TASK-001 missing",
        "TASK-001 noop",
        "TASK-001 solver",
    ]
    missing, noop, solver = rows
    assert [c.text for c in noop.children[2:10]] == [
        "2", "2", "0", "0", "0.00", "0.33", "0.0", "completed:2"
    ]  # fmt: skip
    # rollouts, graded, passes, not graded, then no rates: nothing of it was graded
    assert [c.text for c in missing.children[2:7]] == ["2", "0", "0", "2", "-"]
    assert solver.children[10].text == "k=1:1.00 k=2:1.00"
    assert "fail-required" in noop.classes and not solver.classes
    rows = [noop, solver]
    runs = page.find("details", "run")
    assert len(runs) == 5 and not any("open" in d.attrs for d in runs)
    for row in rows:
        links = [a.attrs["href"] for a in descendants(row) if a.tag == "a"]
        assert len(links) == 3  # the task cell, then one per run
        cell = page.by_id(links[0][1:])
        assert cell.tag == "h3"
        for href in links[1:]:
            run = page.by_id(href[1:])
            assert run.tag == "details" and row.children[1].text in run.text
    summaries = [d.children[0].text for d in runs]
    assert sum(s.startswith("PASS") for s in summaries) == 2
    assert sum(s.startswith("FAIL") for s in summaries) == 2
    assert summaries[-1].startswith("UNFINISHED") and "run_zz_killed" in summaries[-1]
    assert "repeat 1" in summaries[0] and "repeat 2" in summaries[1]
    infra = page.by_id("infra")
    assert infra.tag == "h2"
    assert page.text.count("missing.py does not exist") == 2
    assert (
        "3 rollouts" not in page.text
        and "6 rollouts: 2 passed, 2 failed, 2 could not start" in page.text
    )


def test_resolve_and_write_report_guard(toy_project: Path) -> None:
    folder = _run(toy_project, "solver")
    assert resolve(folder.name, toy_project) == (folder, "run")
    with pytest.raises(SiloError, match="is not a run, group or sweep folder"):
        resolve("environments", toy_project)
    with pytest.raises(SiloError, match='no folder "nope"'):
        resolve("nope", toy_project)
    html = render(folder)
    target = write_report(html, folder / REPORT_NAME)
    assert target.read_text(encoding="utf-8") == html
    assert write_report(html, target) == target  # its own report is replaced
    assert folder_kind(folder) == "run" and render(folder) == html  # the report is not read
    before = (folder / "result.json").read_bytes()
    with pytest.raises(SiloError, match="exists and is not a silo-view report"):
        write_report(html, folder / "result.json")
    assert (folder / "result.json").read_bytes() == before
    with pytest.raises(SiloError, match="exists and is not a silo-view report"):
        write_report(html, folder.parent)
    with pytest.raises(SiloError, match="does not exist"):
        write_report(html, folder / "missing" / "r.html")
