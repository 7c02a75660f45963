"""Judged items in summaries and silo-compare: counted per row and per template, printed apart
from the checks, and never changing a pass rate, reward, pass^k or a cell's status."""

from __future__ import annotations

import json
from pathlib import Path

import silo
from silo.batch.compare import compare
from silo.batch.judging import judge_folder
from silo.batch.summary import format_table, summarize
from silo.cli.compare import format_text
from silo.judges import RubricItem, Verdict, judge_run
from silo.judges.judgement import resolve_judges

PROJECT = Path(__file__).resolve().parents[2]


def _group(folder: Path, agent: str, judged: bool) -> Path:
    points = [silo.Point("crm", t, agent, agent, silo.Budget())
              for t in ("TASK-007", "TASK-011#0", "TASK-011#1", "TASK-004")]  # fmt: skip
    silo.run_points(points, 2, project_dir=PROJECT, group_dir=folder, group_id=folder.name)
    if judged:
        judge_folder(folder, folder.parent, resolve_judges(["scripted"]))
    return folder


def test_a_summary_counts_judged_items_per_row_and_template_apart(tmp_path: Path) -> None:
    folder = _group(tmp_path / "solver", "solver", judged=False)
    before = summarize(folder)
    judge_folder(folder, folder.parent, resolve_judges(["scripted"]))
    after = summarize(folder)
    rows = {row["task"]: row for row in after["rows"]}
    assert rows["TASK-007"]["judged"] == {
        "runs": 2, "passed": 4, "failed": 0, "abstained": 0, "judgeErrors": 0, "passRate": 1.0
    }  # fmt: skip
    assert "judged" not in rows["TASK-004"]  # no rubric: not judged
    assert after["templates"][0]["judged"]["passed"] == 8  # two instances, two runs, two items
    # Everything the checks decide is the same as before judging.
    strip = [{k: v for k, v in row.items() if k != "judged"} for row in after["rows"]]
    assert strip == before["rows"] and after["agents"] == before["agents"]
    assert "judged" not in json.dumps(before)
    table = format_table(after)
    assert (
        "judged items (apart from the checks):\n"
        "  TASK-007 solver: 4 pass, 0 fail, 0 abstain over 2 run(s)"
    ) in table
    assert "; judged 8 pass, 0 fail, 0 abstain over 4 run(s)" in table


def test_compare_shows_judged_items_and_pooled_templates_beside_the_checks(tmp_path: Path) -> None:
    a = _group(tmp_path / "a", "solver", judged=True)
    b = _group(tmp_path / "b", "solver", judged=True)
    for run_json in sorted(b.rglob("run.json")):  # B's TASK-007 judged anew by a contrarian
        run = json.loads(run_json.read_text())
        if run["taskId"] == "TASK-007":
            task = silo.load_environment("crm", PROJECT).task("TASK-007")
            judge_run(run_json.parent, task, resolve_judges(
                [f"{__name__}:contrarian"]))  # fmt: skip
    done = compare(a, b, PROJECT)
    cell = next(c for c in done.cells if c["task"] == "TASK-007")
    assert cell["status"] == "same"  # judged items never decide a status
    assert cell["delta"]["judgedPassRate"] == -1.0
    assert [t["template"] for t in done.templates] == ["TASK-011"]
    pooled = done.templates[0]
    assert pooled["instances"] == ["TASK-011#0", "TASK-011#1"]
    assert pooled["delta"] == {"passRate": 0.0, "meanReward": 0.0, "judgedPassRate": 0.0}
    text = format_text(done)
    assert (
        "template TASK-011 solver (instances A/B 2/2): rate 1.00 -> 1.00 (+0.00); "
        "judged rate 1.00 -> 1.00"
    ) in text
    assert "  TASK-007 solver: 4 pass, 0 fail (1.00) -> 0 pass, 4 fail (0.00) (-1.00)" in text
    assert done.to_json()["templates"] == done.templates


class _Contrarian:
    name = "contrarian"
    model: str | None = None
    deterministic = True

    def __call__(self, item: RubricItem, material: object) -> Verdict:
        return Verdict("fail", "always")


def contrarian() -> _Contrarian:
    return _Contrarian()
