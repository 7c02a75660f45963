"""Judged checks: rubric items graded by judges, kept apart from the exact state checks.

Contract: a task file's ``rubric`` lists natural-language assertions about the run's
conversation, answer or changes (:mod:`silo.judges.rubric`); a judge grades each:
:mod:`silo.judges.scripted` is the deterministic one tests and baselines use,
:mod:`silo.judges.model` asks a model through the model agents' endpoints and event loop (so
this package sits above :mod:`silo.agents`, imported only when a model judge is named), and
``<_target_>`` names any callable factory (:mod:`silo.judges.resolve`).
:func:`silo.judges.judgement.judge_run` writes a run folder's ``judgement.json`` (every item's
verdicts, reasons, model and usage, the judges' agreement and errors), cached by the content
judged. ``result.json``, ``state-diff.json`` and the reward never change: judged items are
reported beside the checks, never mixed into them; a task's opt-in ``combinedReward``
(:mod:`silo.judges.reward`) is recorded apart, in ``judgement.json`` and ``run.json``.
"""

from silo.judges.judgement import judge_run
from silo.judges.rubric import JudgeError, Material, RubricItem, Verdict, rubric_items
from silo.judges.scripted import ScriptedJudge

__all__ = [
    "JudgeError",
    "Material",
    "RubricItem",
    "ScriptedJudge",
    "Verdict",
    "judge_run",
    "rubric_items",
]
