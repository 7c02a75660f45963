"""``judgement.json``: the judges' verdicts on a run's rubric items, and their agreement.

Contract: :func:`judge_run` has every judge (:func:`silo.judges.resolve.resolve_judges`,
re-exported here) grade every rubric item of the run's task and writes ``judgement.json``
into the run folder: ``{"judges", "items": [{"id", "assertion", "about", "verdicts":
[{"judge", "verdict", "reason", "model", "usage"}], "agreement"}], "passed", "failed",
"abstained", "agreement", "judgeErrors"}``. A judge that failed (its endpoint:
:class:`~silo.judges.rubric.JudgeError`, or a bug: :mod:`silo.judges.calls`) gives the verdict
``error``, its one line in ``judgeErrors``: the judge failed, not the agent, and an item only
errors counts in no total. ``agreement`` is the share of the judges that gave a verdict (not
``abstain`` or ``error``) agreeing with the most common one (1.0 when at most one did). The
calls a judge made are appended to the run's ``trace.jsonl`` (``judge_step`` events,
redacted, numbered after the run's own). A verdict is cached in ``cache_dir`` by the judge,
its model (and a model judge's endpoint), the item and the material's digest, so judging the
same runs again calls no judge; errors are not cached. :func:`judgement_of` gives the same
document for a rollout kept in memory (a baseline's), writing nothing. :func:`judge_runs` judges many runs at
once: every call a model judge makes for them is in flight together on the model loop. A
task that declares a ``combinedReward`` (:mod:`silo.judges.reward`) also gets
``combinedReward`` in ``judgement.json`` and ``run.json``. Nothing in ``judgement.json``
depends on time or the process: the same verdicts give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from silo.artifacts.atomic import write_text_atomic
from silo.jsonio import canonical, pretty
from silo.judges.calls import Call, grade_all
from silo.judges.resolve import model_judges, resolve_judges
from silo.judges.reward import Formula, combine, combined_formula
from silo.judges.rubric import Judge, Material, RubricItem, Verdict, material_of, rubric_items
from silo.redact import redact_value
from silo.tasks import Task

__all__ = [
    "JUDGEMENT",
    "judge_run",
    "judge_runs",
    "judgement_of",
    "model_judges",
    "resolve_judges",
]

JUDGEMENT = "judgement.json"


def _cache_path(judge: Judge, item: RubricItem, material: Material, cache_dir: Path) -> Path:
    """Where the verdict of ``judge`` on ``item`` for ``material`` is cached."""
    key: dict[str, Any] = {"judge": judge.name, "model": judge.model}
    identity = getattr(judge, "identity", None)  # a model judge's endpoint, temperature, seed
    if isinstance(identity, Mapping):
        key["identity"] = dict(identity)
    key_text = canonical({**key, "item": item.to_json(), "m": material.digest()})
    return cache_dir / f"{hashlib.sha256(key_text.encode()).hexdigest()}.json"


def _verdicts(calls: Sequence[Call], cache_dir: Path | None) -> list[Verdict]:
    """Every call's verdict: from the cache, else graded (all at once), then cached."""
    paths = [_cache_path(*call, cache_dir) if cache_dir else None for call in calls]
    found: dict[int, Verdict] = {}
    for index, path in enumerate(paths):
        if path is not None and path.is_file():
            raw = json.loads(path.read_text(encoding="utf-8"))
            found[index] = Verdict(raw["verdict"], raw["reason"], raw["model"], raw["usage"])
    todo = [index for index in range(len(calls)) if index not in found]
    for index, verdict in zip(todo, grade_all([calls[i] for i in todo]), strict=True):
        found[index] = verdict
        path = paths[index]
        if path is not None and verdict.verdict != "error":  # an error is never cached
            path.parent.mkdir(parents=True, exist_ok=True)
            record = {"verdict": verdict.verdict, "reason": verdict.reason,
                      "model": verdict.model, "usage": dict(verdict.usage)}  # fmt: skip
            write_text_atomic(path, pretty(record))
    return [found[index] for index in range(len(calls))]


def _agreement(verdicts: Sequence[str]) -> float:
    given = [v for v in verdicts if v not in ("abstain", "error")]
    if len(given) <= 1:
        return 1.0
    return round(Counter(given).most_common(1)[0][1] / len(given), 4)


def _majority(verdicts: Sequence[str]) -> str:
    """The item's verdict: the most common of those given, ``error`` when every judge failed."""
    given = [v for v in verdicts if v != "error"]
    return Counter(given).most_common(1)[0][0] if given else "error"


def append_steps(run_dir: Path, steps: Sequence[Mapping[str, Any]]) -> None:
    """Append ``steps`` to the run's ``trace.jsonl``, numbered after its last event, redacted."""
    if not steps:
        return
    from silo.redact import redact
    from silo.rollout.trace import event_json, utc_now_iso

    path = run_dir / "trace.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    last = json.loads(lines[-1]).get("seq", 0) if lines and lines[-1].strip() else 0
    text = []
    for offset, step in enumerate(steps, start=1):
        head = {"seq": int(last) + offset, "type": step["type"], "at": utc_now_iso()}
        text.append(redact(event_json({**head, **{k: v for k, v in step.items() if k != "type"}})))
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("".join(f"{line}\n" for line in text))
        handle.flush()
        os.fsync(handle.fileno())


def judge_run(
    run_dir: Path, task: Task, judges: Sequence[Judge], cache_dir: Path | None = None
) -> dict[str, Any]:
    """Judge ``task``'s rubric on the run in ``run_dir``; write and return ``judgement.json``."""
    return judge_runs([(run_dir, task)], judges, cache_dir)[0]


def judge_runs(
    runs: Sequence[tuple[Path, Task]], judges: Sequence[Judge], cache_dir: Path | None = None
) -> list[dict[str, Any]]:
    """:func:`judge_run` for many runs, their model judges' calls all in flight at once."""
    plans = [(run_dir, task, material_of(run_dir), rubric_items(task)) for run_dir, task in runs]
    calls: list[Call] = [
        (judge, item, material) for _, _, material, items in plans for item in items
        for judge in judges
    ]  # fmt: skip
    verdicts = iter(_verdicts(calls, cache_dir))
    return [
        _write(run_dir, task, judges, [(item, [next(verdicts) for _ in judges]) for item in items])
        for run_dir, task, _, items in plans
    ]


def _write(
    run_dir: Path,
    task: Task,
    judges: Sequence[Judge],
    graded: Sequence[tuple[RubricItem, list[Verdict]]],
) -> dict[str, Any]:
    """One run's ``judgement.json`` from its items' verdicts (one per judge, in order)."""
    append_steps(run_dir, [step for _, verdicts in graded for v in verdicts for step in v.steps])
    document = _document(judges, graded)
    formula = combined_formula(task)
    if formula is not None:
        document["combinedReward"] = _combined(run_dir, formula, document)
    safe: dict[str, Any] = redact_value(document)  # a reason may quote whatever it was sent
    write_text_atomic(run_dir / JUDGEMENT, pretty(safe))
    return safe


def judgement_of(
    task: Task, judges: Sequence[Judge], material: Material, checks_reward: float
) -> dict[str, Any]:
    """The ``judgement.json`` document of a rollout kept in memory (a baseline's), uncached.

    The same document :func:`judge_run` writes, but nothing is written: no folder, no
    ``judge_step`` events, no ``run.json``.
    """
    items = rubric_items(task)
    verdicts = iter(_verdicts([(j, item, material) for item in items for j in judges], None))
    document = _document(judges, [(item, [next(verdicts) for _ in judges]) for item in items])
    formula = combined_formula(task)
    if formula is not None:
        passed, failed = document["passed"], document["failed"]
        document["combinedReward"] = combine(formula, checks_reward, passed, failed)
    safe: dict[str, Any] = redact_value(document)
    return safe


def _document(
    judges: Sequence[Judge], graded: Sequence[tuple[RubricItem, list[Verdict]]]
) -> dict[str, Any]:
    """``judgement.json`` but ``combinedReward``: the verdicts, counts, agreement and errors."""
    items: list[dict[str, Any]] = []
    errors: list[str] = []
    for item, verdicts in graded:
        for v in verdicts:
            if v.verdict == "error" and v.reason not in errors:
                errors.append(v.reason)
        items.append(
            {
                **item.to_json(),
                "verdicts": [
                    {
                        "judge": judge.name,
                        "verdict": v.verdict,
                        "reason": v.reason,
                        "model": v.model,
                        "usage": dict(v.usage),
                    }  # fmt: skip
                    for judge, v in zip(judges, verdicts, strict=True)
                ],
                "agreement": _agreement([v.verdict for v in verdicts]),
            }
        )
    majority = [_majority([v["verdict"] for v in i["verdicts"]]) for i in items]
    return {
        "judges": [judge.name for judge in judges],
        "items": items,
        "passed": majority.count("pass"),
        "failed": majority.count("fail"),
        "abstained": majority.count("abstain"),
        "agreement": round(sum(i["agreement"] for i in items) / len(items), 4) if items else 1.0,
        "judgeErrors": errors,
    }


def _combined(run_dir: Path, formula: Formula, document: Mapping[str, Any]) -> dict[str, Any]:
    """The task's combined reward for this run, also recorded in its ``run.json``."""
    result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    found = combine(formula, float(result["reward"]), document["passed"], document["failed"])
    run_path = run_dir / "run.json"
    if run_path.is_file():
        run = json.loads(run_path.read_text(encoding="utf-8"))
        if run.get("combinedReward") != found:
            write_text_atomic(run_path, pretty({**run, "combinedReward": found}))
    return found
