"""Many judge calls at once: model judges concurrently on the model loop, others in turn.

Contract: :func:`grade_all` returns one :class:`~silo.judges.rubric.Verdict` per
``(judge, item, material)`` call, in order. A judge with an ``agrade(item, material)``
coroutine (the model judges) is awaited on the process's model loop
(:mod:`silo.agents.model_loop`), at most :data:`IN_FLIGHT` calls at once, each request still
going through its endpoint's shared connection limit and backoff; any other judge is called
in turn on this thread. A :class:`~silo.judges.rubric.JudgeError` becomes the verdict ``error``
(its line as the reason, its recorded steps kept): a judge that failed, not a failed item. So
does a judge that raises anything else or returns no :class:`Verdict` of ``pass``, ``fail`` or
``abstain`` (one line naming the judge).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any

from silo.judges.rubric import Judge, JudgeError, Material, RubricItem, Verdict

__all__ = ["IN_FLIGHT", "Call", "grade_all"]

IN_FLIGHT = 64
"""Judge calls awaited at once: enough to keep a remote endpoint busy, few enough that one
judging step never opens more connections than a sweep of model agents would."""

Call = tuple[Judge, RubricItem, Material]


def _error(judge: Judge, exc: JudgeError) -> Verdict:
    return Verdict("error", str(exc), judge.model, {}, exc.steps)


_VERDICTS = ("pass", "fail", "abstain")


def _checked(judge: Judge, verdict: object) -> Verdict:
    """``verdict`` when it is one; a judge that returned anything else failed."""
    if isinstance(verdict, Verdict) and verdict.verdict in _VERDICTS:
        return verdict
    got = verdict.verdict if isinstance(verdict, Verdict) else type(verdict).__name__
    return Verdict("error", f"judge={judge.name} returned {got!r}, not a Verdict of "
                   "pass, fail or abstain", judge.model)  # fmt: skip


def _crashed(judge: Judge, exc: Exception) -> Verdict:
    """A judge's own bug: its one line, blamed on the judge, never on the agent."""
    text = " ".join(str(exc).split())[:300]
    return Verdict("error", f"judge={judge.name} raised {type(exc).__name__}: {text}", judge.model)


def _one(judge: Judge, item: RubricItem, material: Material) -> Verdict:
    try:
        return _checked(judge, judge(item, material))
    except JudgeError as exc:
        return _error(judge, exc)
    except Exception as exc:  # a judge of the user's: its failure is recorded, not raised
        return _crashed(judge, exc)


def grade_all(calls: Sequence[Call]) -> list[Verdict]:
    """The verdict of every call (see the module docstring)."""
    found: dict[int, Verdict] = {}
    waiting: list[tuple[int, Judge, Callable[[], Awaitable[Verdict]]]] = []
    for index, (judge, item, material) in enumerate(calls):
        agrade: Any = getattr(judge, "agrade", None)
        if callable(agrade):
            waiting.append((index, judge, partial(agrade, item, material)))
        else:
            found[index] = _one(judge, item, material)
    if waiting:
        from silo.agents.model_loop import run_on_model_loop

        done = run_on_model_loop(_gather([(judge, start) for _, judge, start in waiting]))
        found.update(zip((index for index, _, _ in waiting), done, strict=True))
    return [found[index] for index in range(len(calls))]


async def _gather(pending: list[tuple[Judge, Callable[[], Awaitable[Verdict]]]]) -> list[Verdict]:
    """Await every pending call, at most :data:`IN_FLIGHT` at once."""
    room = asyncio.Semaphore(IN_FLIGHT)

    async def one(judge: Judge, start: Callable[[], Awaitable[Verdict]]) -> Verdict:
        async with room:
            try:
                return _checked(judge, await start())
            except JudgeError as exc:
                return _error(judge, exc)
            except Exception as exc:  # a bug in a judge: recorded as its error, not raised
                return _crashed(judge, exc)

    return list(await asyncio.gather(*(one(judge, start) for judge, start in pending)))
