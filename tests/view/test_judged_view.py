"""silo-view shows judged items apart from the checks and pools a template's instances with a
link to each instance's runs: the one-page report of a group and of a run, and the site."""

from __future__ import annotations

import json
import re
from pathlib import Path

import silo
from silo.batch.judging import judge_folder
from silo.batch.summary import write_summary
from silo.judges.judgement import resolve_judges
from silo.view.build import build_site
from silo.view.group_page import group_body
from silo.view.run_detail import run_detail

PROJECT = Path(__file__).resolve().parents[2]


def _group(folder: Path, judged: bool) -> Path:
    points = [silo.Point("crm", t, "solver", "solver", silo.Budget())
              for t in ("TASK-007", "TASK-011#0", "TASK-011#1")]  # fmt: skip
    silo.run_points(points, 1, project_dir=PROJECT, group_dir=folder, group_id=folder.name)
    if judged:
        judge_folder(folder, folder.parent, resolve_judges(["scripted"]))
    write_summary(folder)
    return folder


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_a_judged_groups_report_has_a_judged_column_and_pooled_templates(tmp_path: Path) -> None:
    _, body = group_body(_group(tmp_path / "group_judged", judged=True))
    assert "<th>judged</th>" in body
    assert "TASK-007 solver 1 1 1 0 1.00 1.00 3.0 completed:1 k=1:1.00 2/2 pass" in _text(body)
    templates = body.split('<h2 id="templates">', 1)[1].split("</table>", 1)[0]
    assert "TASK-011 solver 2 2 2 1.00 1.00 k=1:1.00 4/4 pass #0 #1" in _text(templates)
    links = re.findall(r'href="#([^"]+)">#(\d)', templates)
    for cell, number in links:  # each instance links to the heading of its row's runs
        heading = body.split(f'<h3 id="{cell}">', 1)[1].split("</h3>", 1)[0]
        assert heading.startswith(f"TASK-011#{number} ")
    assert len(links) == 2


def test_an_unjudged_group_has_no_judged_column(tmp_path: Path) -> None:
    _, body = group_body(_group(tmp_path / "group_plain", judged=False))
    assert "<th>judged</th>" not in body and "Judged items" not in body
    assert '<h2 id="templates">' in body  # instances are pooled whether judged or not


def test_a_judged_runs_page_lists_items_verdicts_and_reasons_apart(tmp_path: Path) -> None:
    folder = _group(tmp_path / "group_run", judged=True)
    run_dir = next(p.parent for p in folder.rglob("run.json")
                   if json.loads(p.read_text())["taskId"] == "TASK-007")  # fmt: skip
    _, body = run_detail(run_dir)
    judged = _text(body.split('<h2 id="judged">', 1)[1].split("</table>", 1)[0])
    assert judged.startswith("Judged items (apart from the checks) 2 pass, 0 fail, 0 abstain")
    assert "confirmed-amount The agent confirmed the new amount" in judged
    assert "scripted: pass said [&#x27;132500&#x27;] 1.00" in judged
    assert body.index("checks") < body.index('<h2 id="judged">')


def test_the_site_pools_templates_and_rerenders_a_run_once_judged(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    folder = _group(runs / "group_site", judged=False)
    site = tmp_path / "site"
    build_site(runs, site)
    page = (site / "groups" / "group_site" / "index.html").read_text()
    templates = page.split('<h2 id="templates">', 1)[1].split("</table>", 1)[0]
    for name in re.findall(r'href="(run_[^"]+)\.html">#\d', templates):
        assert "TASK-011#" in (site / "groups" / "group_site" / f"{name}.html").read_text()
    judge_folder(folder, folder.parent, resolve_judges(["scripted"]))
    again = build_site(runs, site)
    assert again.rendered_runs == 3  # every run's task has a rubric: each was judged
    pages = sorted((site / "groups" / "group_site").glob("run_*.html"))
    assert all("Judged items (apart from the checks)" in p.read_text() for p in pages)
