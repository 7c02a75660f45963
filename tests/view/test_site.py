"""silo.view.build: the static site of a runs folder, its incremental rebuild and its escaping."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from silo.rollout.run import run_task
from silo.view.build import MANIFEST, build_site
from tests.batch.test_compare import make_group, point
from tests.view.test_view import Page

HOSTILE = "<script>alert('pwned')</script>"


def _runs(project: Path) -> Path:
    return project / ".silo" / "runs"


def _loose(project: Path, agent: Any = "solver", task: str = "TASK-001") -> Path:
    result = run_task("toy", task, agent, project_dir=project, agent_label="custom")
    assert result.run_dir is not None
    return result.run_dir


def index_rows(html: str) -> list[list[Any]]:
    """The run records the index carries in its JSON block, as the page's script reads them."""
    found = re.search(r'<script type="application/json" id="runs-data">(.*?)</script>', html, re.S)
    assert found is not None
    rows: list[list[Any]] = json.loads(found.group(1))
    return rows


def _sweep(project: Path) -> Path:
    points = [point(t, a, a) for t in ("TASK-001", "TASK-002") for a in ("solver", "noop")]
    return make_group(project, "sweep_demo", points, runs=2)


def test_site_lists_every_run_and_group_and_links_to_their_pages(
    toy_project: Path, tmp_path: Path
) -> None:
    loose = _loose(toy_project, "noop")
    _sweep(toy_project)
    site = tmp_path / "site"
    result = build_site(_runs(toy_project), site)
    assert (result.runs, result.groups, result.rendered_runs, result.rendered_groups) == (
        9,
        1,
        9,
        1,
    )
    html = (site / "index.html").read_text(encoding="utf-8")
    rows = index_rows(html)
    assert len(rows) == 9
    assert sorted({r[7] for r in rows}) == ["FAIL", "PASS"]
    assert [r[0] for r in rows if r[1] == loose.name] == [f"runs/{loose.name}.html"]
    for row in rows:  # every link leads to a page
        assert (site / row[0]).is_file(), row[0]
    page = Page(html)
    assert [a.text for a in page.find("a") if "sweep_demo" in a.attrs.get("href", "")] == [
        "sweep_demo"
    ]
    options = {e.attrs["id"]: [o.text for o in e.children] for e in page.find("select")}
    assert options["f-outcome"] == ["all", "FAIL", "PASS"]
    assert options["f-task"] == ["all", "TASK-001", "TASK-002"]
    lowered = html.lower()
    assert "https://" not in lowered and " src=" not in lowered and "<link" not in lowered


def test_sweep_page_charts_one_bar_per_task_and_pass_hat_k_per_agent(
    toy_project: Path, tmp_path: Path
) -> None:
    _sweep(toy_project)
    build_site(_runs(toy_project), tmp_path / "site")
    page = Page((tmp_path / "site" / "groups" / "sweep_demo" / "index.html").read_text("utf-8"))
    charts = {f.children[0].text: f for f in page.find("figure", "chart")}
    rate = [e for e in _all(charts["pass rate by task"]) if e.tag == "rect"]
    assert [r.text for r in rate] == [
        "TASK-001: 0.50",
        "TASK-002: 0.00",
    ]  # TASK-001: the solver passes, noop fails; TASK-002: neither passes
    lines = [e for e in _all(charts["pass^k by k, per agent"]) if e.tag == "polyline"]
    assert len(lines) == 2  # noop and solver
    assert "runs by duration" in charts
    assert len(page.find("a")) >= 8  # back link + one per run


def _all(element: Any) -> list[Any]:
    found = []
    for child in element.children:
        found += [child, *_all(child)]
    return found


@pytest.mark.slow  # several runs and three site builds
def test_rebuild_renders_only_what_is_new(toy_project: Path, tmp_path: Path) -> None:
    _loose(toy_project)
    _sweep(toy_project)
    site = tmp_path / "site"
    build_site(_runs(toy_project), site)
    page = next((site / "runs").iterdir())
    before = page.stat().st_mtime_ns, (site / "index.html").stat().st_mtime_ns
    again = build_site(_runs(toy_project), site)
    assert (again.rendered_runs, again.rendered_groups, again.runs) == (0, 0, 9)
    assert (page.stat().st_mtime_ns, (site / "index.html").stat().st_mtime_ns) == before
    _loose(toy_project, "noop")
    third = build_site(_runs(toy_project), site)
    assert (third.rendered_runs, third.rendered_groups, third.runs) == (1, 0, 10)
    assert len(index_rows((site / "index.html").read_text(encoding="utf-8"))) == 10
    (site / MANIFEST).write_text("{not json", encoding="utf-8")  # damaged: rebuilt whole
    assert build_site(_runs(toy_project), site).rendered_runs == 10


def test_unfinished_and_damaged_runs_are_listed(toy_project: Path, tmp_path: Path) -> None:
    folder = _loose(toy_project)
    for name in ("run.json", "result.json"):
        (folder / name).unlink()
    broken = _runs(toy_project) / "run_broken"
    broken.mkdir()
    (broken / "run.json").write_text("{cut", encoding="utf-8")
    build_site(_runs(toy_project), tmp_path / "site")
    rows = index_rows((tmp_path / "site" / "index.html").read_text(encoding="utf-8"))
    outcomes = {r[1]: r[7] for r in rows}
    assert outcomes == {folder.name: "PASS", "run_broken": "UNFINISHED"}  # verdict from the trace


def _hostile_agent(inp: Any) -> str:
    inp.emit(
        "model_step",
        {
            "turn": 1,
            "request": {"model": f"fake {HOSTILE}", "messages": 2, "tools": 4},
            "response": {"text": f"bumping {HOSTILE}", "toolCalls": [{"name": "bump"}]},
            "usage": {"promptTokens": 11, "completionTokens": 7, "totalTokens": 18},
            "latencyMs": 12.5,
        },
    )
    inp.emit("user_message", {"role": "user", "content": f"please {HOSTILE}"})
    inp.call_tool("bump", {"id": "C-1"})
    return f"done {HOSTILE}"


def test_model_steps_conversation_and_hostile_text_are_escaped(
    toy_project: Path, tmp_path: Path
) -> None:
    folder = _loose(toy_project, _hostile_agent)
    meta = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    meta["agent"] = HOSTILE
    meta["identity"] = {"model": f"m {HOSTILE}"}  # an extra key a newer writer adds
    meta["schemaVersion"] = 2
    (folder / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    site = tmp_path / "site"
    build_site(_runs(toy_project), site)
    for path in (site / "index.html", site / "runs" / f"{folder.name}.html"):
        html = path.read_text(encoding="utf-8")
        assert HOSTILE not in html, path
        Page(html)  # well formed: no element opened by run text
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "\\u003cscript\\u003e" in index
    (row,) = index_rows(index)
    assert (row[5], row[6], row[11]) == (HOSTILE, f"m {HOSTILE}", 18)
    page = Page((site / "runs" / f"{folder.name}.html").read_text(encoding="utf-8"))
    steps = page.by_id("run-steps")
    assert steps.tag == "h2"
    (table,) = [t for t in page.find("table") if "bumping" in t.text and "latency" in t.text]
    assert f"bumping {HOSTILE}" in table.text and "totalTokens 18" in table.text
    (bubble,) = page.find("div", "msg")
    assert f"please {HOSTILE}" in bubble.text and "user" in bubble.classes


def test_field_level_changes_shown_when_the_run_has_them(toy_project: Path, tmp_path: Path) -> None:
    plain, detailed = _loose(toy_project), _loose(toy_project)
    (plain / "state-changes.json").unlink(missing_ok=True)  # a run from before the fifth file
    changes = [
        {
            "collection": "counters",
            "key": "C-1",
            "change": "changed",
            "fields": [{"path": "value", "before": 1, "after": 3}],
            "extra": "ignored",
        },
        {"collection": "log", "key": "LOG-001", "change": "added", "fields": []},
    ]
    (detailed / "state-changes.json").write_text(json.dumps(changes), encoding="utf-8")
    build_site(_runs(toy_project), tmp_path / "site")
    page = Page((tmp_path / "site" / "runs" / f"{detailed.name}.html").read_text("utf-8"))
    (table,) = [t for t in page.find("table") if "before" in t.text and "field" in t.text]
    rows = [r.text for r in _all(table) if r.tag == "tr"][1:]
    assert rows == ["counters~C-1changedvalue13", "log+LOG-001added"]
    other = Page((tmp_path / "site" / "runs" / f"{plain.name}.html").read_text("utf-8"))
    assert "only the row-level diff above" in other.text
    assert "~C-1" in other.text  # the row-level diff, as before


def test_a_damaged_state_changes_file_is_named_on_the_page(
    toy_project: Path, tmp_path: Path
) -> None:
    folder = _loose(toy_project)
    (folder / "state-changes.json").write_text('[{"collection": "counters", cut', "utf-8")
    build_site(_runs(toy_project), tmp_path / "site")
    page = Page((tmp_path / "site" / "runs" / f"{folder.name}.html").read_text("utf-8"))
    assert "state-changes.json unreadable: not JSON (line 1, column 29" in page.text
