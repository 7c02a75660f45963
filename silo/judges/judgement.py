"""``judgement.json``: the judges' verdicts on a run's rubric items, and their agreement.

Contract: :func:`resolve_judges` turns ``judge=`` choices into judges: ``scripted`` or a
``pkg.module:attr`` target (a factory called with no argument, returning a callable
``judge(item, material) -> Verdict`` with ``name``, ``model`` and ``deterministic``).
``openai`` and ``anthropic`` are refused with a one-line :class:`~silo.errors.ConfigError`
until model judges share the model agents' endpoint helper. :func:`judge_run` has every judge
grade every rubric item of the run's task and writes ``judgement.json`` into the run folder:
``{"judges", "items": [{"id", "assertion", "about", "verdicts": [{"judge", "verdict",
"reason", "model", "usage"}], "agreement"}], "passed", "failed", "abstained", "agreement"}``.
``agreement`` is the share of the judges that gave a verdict (not ``abstain``) agreeing with
the most common one (1.0 when at most one did). A verdict is cached in ``cache_dir`` by the
judge, the item and the material's digest, so judging the same runs again calls no judge.
Nothing in it depends on time or the process: the same run gives the same bytes.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from silo.artifacts.atomic import write_text_atomic
from silo.errors import ConfigError
from silo.jsonio import canonical, pretty
from silo.judges.rubric import Judge, Material, RubricItem, Verdict, material_of, rubric_items
from silo.judges.scripted import ScriptedJudge
from silo.tasks import Task

__all__ = ["JUDGEMENT", "judge_run", "resolve_judges"]

JUDGEMENT = "judgement.json"


def resolve_judges(specs: Sequence[str]) -> list[Judge]:
    """The judges ``specs`` name (see the module docstring); a bad one is one line."""
    judges: list[Judge] = []
    for spec in specs:
        if spec == "scripted":
            judges.append(ScriptedJudge())
        elif spec in ("openai", "anthropic"):
            raise ConfigError(
                "config_invalid",
                f"judge={spec}: model judges are not available in this version; use "
                "judge=scripted or judge=<pkg.module:factory>",
            )
        elif ":" in spec:
            module, _, attr = spec.partition(":")
            try:
                factory = getattr(importlib.import_module(module), attr)
            except (ImportError, AttributeError) as exc:
                raise ConfigError(
                    "config_invalid", f"judge={spec} cannot be imported ({exc})"
                ) from None
            judges.append(factory())
        else:
            raise ConfigError(
                "config_invalid", f"judge={spec!r}: use scripted or a target pkg.module:factory"
            )
    return judges


def _cached(judge: Judge, item: RubricItem, material: Material, cache_dir: Path | None) -> Verdict:
    key_text = canonical(
        {"judge": judge.name, "model": judge.model, "item": item.to_json(), "m": material.digest()}
    )
    path = None
    if cache_dir is not None:
        path = cache_dir / f"{hashlib.sha256(key_text.encode()).hexdigest()}.json"
        if path.is_file():
            raw = json.loads(path.read_text(encoding="utf-8"))
            return Verdict(raw["verdict"], raw["reason"], raw["model"], raw["usage"])
    verdict: Verdict = judge(item, material)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {"verdict": verdict.verdict, "reason": verdict.reason,
                  "model": verdict.model, "usage": dict(verdict.usage)}  # fmt: skip
        write_text_atomic(path, pretty(record))
    return verdict


def _agreement(verdicts: Sequence[str]) -> float:
    given = [v for v in verdicts if v != "abstain"]
    if len(given) <= 1:
        return 1.0
    return round(Counter(given).most_common(1)[0][1] / len(given), 4)


def judge_run(
    run_dir: Path, task: Task, judges: Sequence[Judge], cache_dir: Path | None = None
) -> dict[str, Any]:
    """Judge ``task``'s rubric on the run in ``run_dir``; write and return ``judgement.json``."""
    material = material_of(run_dir)
    items = []
    for item in rubric_items(task):
        verdicts = [(judge, _cached(judge, item, material, cache_dir)) for judge in judges]
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
                    for judge, v in verdicts
                ],
                "agreement": _agreement([v.verdict for _, v in verdicts]),
            }
        )
    majority = [Counter(v["verdict"] for v in i["verdicts"]).most_common(1)[0][0] for i in items]
    document = {
        "judges": [judge.name for judge in judges],
        "items": items,
        "passed": majority.count("pass"),
        "failed": majority.count("fail"),
        "abstained": majority.count("abstain"),
        "agreement": round(sum(i["agreement"] for i in items) / len(items), 4) if items else 1.0,
    }
    write_text_atomic(run_dir / JUDGEMENT, pretty(document))
    return document
