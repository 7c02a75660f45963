"""The site in headless Chromium: what a person would check, after the page's scripts ran."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from silo.view.build import build_site
from tests.view.chromium import SKIP, dump_dom
from tests.view.test_site import _all, _loose, _runs, _sweep, index_rows
from tests.view.test_view import Page

pytestmark = [SKIP, pytest.mark.slow]  # a real browser: slow (.ci/run runs it)


def _rows(page: Page) -> list[list[str]]:
    body = [e for e in page.elements if e.attrs.get("id") == "rows"][0]
    return [[c.text for c in tr.children] for tr in body.children]


def test_index_filters_narrow_the_list(toy_project: Path, tmp_path: Path) -> None:
    _sweep(toy_project)
    loose = _loose(toy_project, "noop", "TASK-002")
    build_site(_runs(toy_project), tmp_path / "site")
    index = tmp_path / "site" / "index.html"
    everything = Page(dump_dom(index.as_uri()))
    assert len(_rows(everything)) == 9
    assert everything.by_id("count").text == "9 of 9 runs match"
    failed = Page(dump_dom(index.as_uri() + "#outcome=FAIL&task=TASK-002"))
    rows = _rows(failed)
    assert len(rows) == 5 and all(r[5] == "FAIL" and r[3] == "TASK-002" for r in rows)
    assert failed.by_id("f-outcome").attrs.get("id") == "f-outcome"
    found = Page(dump_dom(index.as_uri() + f"#q={loose.name[-6:]}"))
    assert [r[0] for r in _rows(found)] == [loose.name]  # search finds the one run
    links = [a.attrs["href"] for a in _all(found.by_id("rows")) if a.tag == "a"]
    assert links == [row[0] for row in index_rows(index.read_text("utf-8")) if row[1] == loose.name]


def test_a_failed_check_is_visible_on_the_run_page(toy_project: Path, tmp_path: Path) -> None:
    folder = _loose(toy_project, "noop")
    build_site(_runs(toy_project), tmp_path / "site")
    page = Page(dump_dom((tmp_path / "site" / "runs" / f"{folder.name}.html").as_uri()))
    (badge,) = page.find("span", "verdict")
    assert badge.text == "FAIL"
    (failed,) = page.find("tr", "fail-required")
    assert "C-1 went up by 2" in failed.text
    assert page.find("html")[0].attrs.get("data-loaded-ms", "").isdigit()  # the page loaded


def test_sweep_chart_has_one_bar_per_task(toy_project: Path, tmp_path: Path) -> None:
    _sweep(toy_project)
    build_site(_runs(toy_project), tmp_path / "site")
    url = (tmp_path / "site" / "groups" / "sweep_demo" / "index.html").as_uri()
    page = Page(dump_dom(url))
    charts = {f.children[0].text: f for f in page.find("figure", "chart")}
    bars = [e for e in _all(charts["pass rate by task"]) if e.tag == "rect"]
    assert len(bars) == 2  # TASK-001 and TASK-002


def test_a_long_list_draws_the_newest_hundred_and_offers_more(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    for n in range(130):  # finished runs as their artifacts say, without running 130 rollouts
        folder = runs / f"run_20261101{n:06d}_abcdef"
        folder.mkdir(parents=True)
        meta = {"environment": "toy", "taskId": "TASK-001", "agent": "noop"}
        meta["startedAt"] = f"2026-11-01T00:{n // 60:02d}:{n % 60:02d}.000Z"
        (folder / "run.json").write_text(json.dumps(meta), encoding="utf-8")
        (folder / "result.json").write_text('{"passed": false, "reward": 0.0}', "utf-8")
    build_site(runs, tmp_path / "site")
    page = Page(dump_dom((tmp_path / "site" / "index.html").as_uri()))
    rows = _rows(page)
    assert len(rows) == 100 and rows[0][0] == "run_20261101000129_abcdef"  # newest first
    assert page.by_id("count").text == "130 of 130 runs match (the newest 100 shown)"
    assert "hidden" not in page.by_id("more").attrs


def test_the_table_survives_a_malformed_url_fragment(toy_project: Path, tmp_path: Path) -> None:
    _loose(toy_project)
    build_site(_runs(toy_project), tmp_path / "site")
    page = Page(dump_dom((tmp_path / "site" / "index.html").as_uri() + "#q=%E0%A4%A"))
    assert page.by_id("count").text == "0 of 1 runs match"  # the script ran to the end
