"""Rubric items, what a judge reads about a run, and the verdict it gives.

Contract: a task file's ``rubric`` is a list of objects ``{"id", "assertion", "about",
"scripted"?}``: ``about`` is ``conversation`` (the messages with the simulated user),
``answer`` (the agent's final output) or ``changes`` (``state-diff.json``); ``scripted`` holds
the rules the scripted judge applies (see :mod:`silo.judges.scripted`). In a template the
rubric's placeholders are filled like the instruction's. :func:`material_of` reads a run
folder (:func:`material_from`: a rollout's events kept in memory) into the :class:`Material`
every judge is given; its :meth:`Material.digest` (with the
item's) keys the cache.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from silo.artifacts.run_reader import load_run
from silo.errors import SiloException, TaskError
from silo.jsonio import canonical
from silo.tasks import Task

__all__ = [
    "ABOUT",
    "Judge",
    "JudgeError",
    "Material",
    "RubricItem",
    "Verdict",
    "material_from",
    "material_of",
    "rubric_items",
]

ABOUT = ("conversation", "answer", "changes")


@dataclass(frozen=True)
class RubricItem:
    """One assertion a judge grades: its id, text, what it is about and scripted rules."""

    id: str
    assertion: str
    about: str
    scripted: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The item as the task file states it."""
        return {"id": self.id, "assertion": self.assertion, "about": self.about,
                **({"scripted": dict(self.scripted)} if self.scripted else {})}  # fmt: skip


@dataclass(frozen=True)
class Verdict:
    """A judge's grade of one item: ``pass``, ``fail`` or ``abstain``, and why.

    ``steps`` are the trace events of the calls it took (a model judge's ``judge_step``), for
    the run's ``trace.jsonl``; they are neither cached nor part of ``judgement.json``.
    """

    verdict: str
    reason: str
    model: str | None = None
    usage: Mapping[str, int] = field(default_factory=dict)
    steps: tuple[Mapping[str, Any], ...] = field(default=(), repr=False, compare=False)


@dataclass(frozen=True)
class Material:
    """What a judge reads: the conversation, the answer, the state diff and the tool calls."""

    conversation: tuple[Mapping[str, Any], ...]  # {"role", "text", "seq"}, the opening first
    answer: str
    state_diff: Mapping[str, Any]
    tool_calls: tuple[Mapping[str, Any], ...]  # {"tool", "seq"}

    def digest(self) -> str:
        """A hash of everything here: equal material, equal digest, in any process."""
        text = canonical(
            {
                "conversation": list(self.conversation),
                "answer": self.answer,
                "stateDiff": dict(self.state_diff),
                "toolCalls": list(self.tool_calls),
            }
        )
        return hashlib.sha256(text.encode()).hexdigest()


class JudgeError(SiloException):
    """A judge failed to grade (a model judge's endpoint); ``steps`` are the events it made."""

    def __init__(self, message: str, steps: tuple[Mapping[str, Any], ...] = ()) -> None:
        super().__init__(message)
        self.steps = steps


class Judge(Protocol):
    """What grades rubric items: a callable with a name, a model (or None) and determinism."""

    name: str
    model: str | None
    deterministic: bool

    def __call__(self, item: RubricItem, material: Material) -> Verdict:
        """The verdict on ``item`` from ``material``."""
        ...


def rubric_items(task: Task) -> list[RubricItem]:
    """The task's rubric items; a malformed rubric raises ``task_invalid`` naming the file."""
    raw = task.extra.get("rubric", [])
    where = f"{task.source}: rubric"
    if not isinstance(raw, list):
        raise TaskError("task_invalid", f"{where} must be a list of objects")
    items = []
    for index, entry in enumerate(raw):
        ok = isinstance(entry, Mapping) and all(
            isinstance(entry.get(k), str) and entry.get(k) for k in ("id", "assertion")
        )
        if not ok or entry.get("about", "conversation") not in ABOUT:
            raise TaskError(
                "task_invalid", f"{where}[{index}] needs an id, an assertion and about: "
                "conversation, answer or changes",
            )  # fmt: skip
        scripted = entry.get("scripted", {})
        items.append(
            RubricItem(
                entry["id"],
                entry["assertion"],
                entry.get("about", "conversation"),
                scripted if isinstance(scripted, Mapping) else {},
            )  # fmt: skip
        )
    return items


def material_of(run_dir: Path) -> Material:
    """The :class:`Material` of a finished run folder (read as the viewer reads it)."""
    run = load_run(run_dir)
    return material_from(run.events(), run.diff or {})


def material_from(events: Iterable[Mapping[str, Any]], state_diff: Mapping[str, Any]) -> Material:
    """The :class:`Material` of a run's trace events and state diff (a rollout kept in memory)."""
    conversation, calls, answer = [], [], ""
    for event in events:
        kind = event.get("type")
        if kind == "user_message":
            conversation.append(
                {"role": event.get("role"), "text": event.get("text", ""), "seq": event["seq"]}
            )
        elif kind == "tool_call":
            calls.append({"tool": event.get("tool"), "seq": event["seq"]})
        elif kind == "agent_output":
            output = event.get("output")
            answer = output if isinstance(output, str) else canonical(output)
    return Material(tuple(conversation), answer, state_diff, tuple(calls))
