"""Tasks: what the agent is asked to do, discovered from ``tasks/*.json``.

Contract: a task file is a JSON object with non-empty strings ``id``, ``title``,
``instruction`` and ``verifierId``; ``difficulty`` is optional (easy|medium|hard, default
``unspecified``); ``entities`` and any other keys are kept for humans and verifiers but never
shown to the agent. Every problem raises :class:`~silo.errors.TaskError` naming the file and the fix.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from silo.errors import TaskError

__all__ = ["Task", "load_tasks", "DIFFICULTIES"]

DIFFICULTIES = ("easy", "medium", "hard", "unspecified")
_REQUIRED = ("id", "title", "instruction", "verifierId")


@dataclass(frozen=True)
class Task:
    """One task as its file declares it; only ``instruction`` is shown to the agent.

    ``extra`` keeps the file's other keys (``entities`` and anything else) for humans and
    verifiers; ``source`` is the file's path relative to the project, for messages.
    """

    id: str
    title: str
    instruction: str
    verifier_id: str
    difficulty: str = "unspecified"
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    source: str = field(default="", compare=False)

    @property
    def entities(self) -> Any:
        """The file's ``entities``: the records the task is about, for verifiers and readers."""
        return self.extra.get("entities")

    def to_json(self) -> dict[str, Any]:
        """The task in full, as its file says it (used in ``run.json`` and the trace)."""
        return {
            "id": self.id,
            "title": self.title,
            "instruction": self.instruction,
            "verifierId": self.verifier_id,
            "difficulty": self.difficulty,
            **self.extra,
        }


def parse_task(raw: Any, source: str) -> Task:
    """The :class:`Task` in ``raw`` (a task file's JSON); a bad one raises ``task_invalid``."""
    if not isinstance(raw, dict):
        raise TaskError("task_invalid", f"{source}: a task file must hold one JSON object")
    for key in _REQUIRED:
        value = raw.get(key)
        if not isinstance(value, str) or not value.strip():
            raise TaskError(
                "task_invalid", f'{source}: missing a non-empty string "{key}"; add it to the file'
            )
    difficulty = raw.get("difficulty", "unspecified")
    if difficulty not in DIFFICULTIES:
        raise TaskError(
            "task_invalid",
            f'{source}: "difficulty" is {difficulty!r}; use one of easy, medium, hard',
        )
    extra = {k: v for k, v in raw.items() if k not in (*_REQUIRED, "difficulty")}
    return Task(
        raw["id"], raw["title"], raw["instruction"], raw["verifierId"], difficulty, extra, source
    )


def _load_one(path: Path, source: str, found: dict[str, Task]) -> Task:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TaskError(
            "task_invalid",
            f"{source} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "fix the file",
        ) from None
    task = parse_task(raw, source)
    if task.id in found:
        raise TaskError(
            "task_invalid",
            f'task id "{task.id}" is declared twice: {found[task.id].source} and {source}; '
            "give one of them another id",
        )
    return task


def load_tasks(
    tasks_dir: Path, env_name: str, on_error: Callable[[TaskError], None] | None = None
) -> dict[str, Task]:
    """All tasks of an environment, sorted by id.

    A bad file raises :class:`~silo.errors.TaskError`; with ``on_error`` it is reported there and skipped,
    so a validator can list every bad file at once.
    """
    found: dict[str, Task] = {}
    if not tasks_dir.is_dir():
        return found
    for path in sorted(tasks_dir.glob("*.json")):
        try:
            task = _load_one(path, f"environments/{env_name}/tasks/{path.name}", found)
        except TaskError as exc:
            if on_error is None:
                raise
            on_error(exc)
            continue
        found[task.id] = task
    return dict(sorted(found.items()))
