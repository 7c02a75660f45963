"""Judged checks: the scripted judge grades CRM rubric items, judgement.json is byte-identical
across repeats, result.json is untouched, several judges report agreement, and verdicts are
cached by content."""

from __future__ import annotations

from pathlib import Path

import pytest

import silo
from silo.judges import RubricItem, Verdict, judge_run
from silo.judges.judgement import resolve_judges
from silo.judges.rubric import Material

PROJECT = Path(__file__).resolve().parents[2]
CALLS: list[str] = []


class Contrarian:
    """A judge that fails everything and counts its calls (for agreement and the cache)."""

    name = "contrarian"
    model: str | None = "none"
    deterministic = True

    def __call__(self, item: RubricItem, material: Material) -> Verdict:
        CALLS.append(item.id)
        return Verdict("fail", "always fails", self.model, {"totalTokens": 3})


def contrarian() -> Contrarian:
    return Contrarian()


def _run(tmp_path: Path, task: str, agent: str) -> silo.RolloutResult:
    return silo.run_task(env="crm", task=task, agent=agent, project_dir=PROJECT, runs_dir=tmp_path)


@pytest.mark.parametrize("task", ["TASK-007", "TASK-011#5"])
def test_the_scripted_judge_passes_the_solver_and_fails_the_noop_agent(
    tmp_path: Path, task: str
) -> None:
    judges = resolve_judges(["scripted"])
    solved = judge_run(_run(tmp_path, task, "solver").run_dir or Path(), silo.load_environment(
        "crm", PROJECT).task(task), judges)  # fmt: skip
    assert [i["id"] for i in solved["items"]] == ["asked-which-deal", "confirmed-amount"]
    assert (solved["passed"], solved["failed"]) == (2, 0)
    idle_run = _run(tmp_path, task, "noop")
    idle = judge_run(idle_run.run_dir or Path(), idle_run.task, judges)
    assert (idle["passed"], idle["failed"]) == (0, 2)
    assert idle["items"][0]["verdicts"][0] == {
        "judge": "scripted", "verdict": "fail", "model": None, "usage": {},
        "reason": "update_opportunity was never called",
    }  # fmt: skip


def test_judgement_is_byte_identical_and_result_json_is_untouched(tmp_path: Path) -> None:
    judged, plain = _run(tmp_path, "TASK-007", "solver"), _run(tmp_path, "TASK-007", "solver")
    folder = judged.run_dir or Path()
    before = (folder / "result.json").read_bytes()
    judge_run(folder, judged.task, resolve_judges(["scripted"]))
    first = (folder / "judgement.json").read_bytes()
    judge_run(folder, judged.task, resolve_judges(["scripted"]))
    assert (folder / "judgement.json").read_bytes() == first
    assert (folder / "result.json").read_bytes() == before
    assert before == ((plain.run_dir or Path()) / "result.json").read_bytes()
    assert not ((plain.run_dir or Path()) / "judgement.json").exists()


def test_several_judges_report_agreement_and_verdicts_are_cached(tmp_path: Path) -> None:
    run = _run(tmp_path / "runs", "TASK-007", "solver")
    judges = resolve_judges(["scripted", f"{__name__}:contrarian"])
    CALLS.clear()
    document = judge_run(run.run_dir or Path(), run.task, judges, tmp_path / "cache")
    assert document["judges"] == ["scripted", "contrarian"]
    assert [i["agreement"] for i in document["items"]] == [0.5, 0.5]
    assert document["items"][1]["verdicts"][1]["usage"] == {"totalTokens": 3}
    assert len(CALLS) == 2
    again = judge_run(run.run_dir or Path(), run.task, judges, tmp_path / "cache")
    assert again == document and len(CALLS) == 2  # judged the same content: no call


class Broken:
    """A judge of the user's that raises, and one that returns no Verdict."""

    name = "broken"
    model: str | None = None
    deterministic = True

    def __init__(self, returns: object = None) -> None:
        self.returns = returns

    def __call__(self, item: RubricItem, material: Material) -> Verdict:
        if self.returns is None:
            raise ValueError("no such\nthing")
        return self.returns  # type: ignore[return-value]


def broken() -> Broken:
    return Broken()


def sloppy() -> Broken:
    return Broken(returns="pass")


def test_a_judge_that_raises_or_returns_junk_is_a_judge_error(tmp_path: Path) -> None:
    run = _run(tmp_path / "runs", "TASK-007", "solver")
    folder = run.run_dir or Path()
    document = judge_run(folder, run.task, resolve_judges([f"{__name__}:broken"]), tmp_path / "c")
    assert document["judgeErrors"] == ["judge=broken raised ValueError: no such thing"]
    assert (document["passed"], document["failed"], document["abstained"]) == (0, 0, 0)
    junk = judge_run(folder, run.task, resolve_judges([f"{__name__}:sloppy", "scripted"]))
    assert junk["judgeErrors"] == [
        "judge=broken returned 'str', not a Verdict of pass, fail or abstain"
    ]
    assert junk["passed"] == 2  # the scripted judge still graded both items
    assert not (tmp_path / "c").exists()  # errors are never cached
