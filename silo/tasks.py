"""Tasks: what the agent is asked to do, discovered from ``tasks/*.json``.

Contract: a task file is a JSON object with non-empty strings ``id``, ``title``,
``instruction`` and ``verifierId``; ``difficulty`` is optional (easy|medium|hard, default
``unspecified``); ``reward`` is optional (``weighted`` or ``binary``: how the verifier's checks
become the reward, default the environment's); ``entities`` and any other keys are kept for humans and verifiers but never
shown to the agent. An optional ``user`` block makes the task a conversation (:class:`UserSpec`:
a persona, a goal, the opening message the agent receives, facts revealed only when asked, and
how the user ends). A file with a ``template`` block is a template of many tasks
(:mod:`silo.variants`), not loaded here. Every problem raises :class:`~silo.errors.TaskError` naming the file and the
fix.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from silo.errors import TaskError
from silo.json_types import JSON
from silo.safe_files import UnreadableFile, malformed_file, read_json_file
from silo.verifiers import REWARD_MODES

__all__ = [
    "DIFFICULTIES",
    "Task",
    "UserFact",
    "UserSpec",
    "load_tasks",
    "parse_task",
    "parse_user",
    "read_task_file",
]

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
    extra: dict[str, JSON] = field(default_factory=dict, compare=False)
    source: str = field(default="", compare=False)
    # The parsed ``user`` block (also kept raw in ``extra``); None: not a conversation.
    user: UserSpec | None = field(default=None, compare=False)
    # An instance of a template (see silo.variants): its parameters, template id and number.
    params: Mapping[str, JSON] = field(default_factory=dict, compare=False)
    template_id: str = ""
    variant: int | None = None

    @property
    def reward(self) -> str | None:
        """The file's ``reward`` mode (``weighted`` or ``binary``), None: the environment's."""
        mode = self.extra.get("reward")
        return mode if isinstance(mode, str) else None

    @property
    def entities(self) -> JSON:
        """The file's ``entities``: the records the task is about, for verifiers and readers."""
        return self.extra.get("entities")

    def to_json(self) -> dict[str, JSON]:
        """The task in full, as its file says it (used in ``run.json`` and the trace)."""
        return {
            "id": self.id,
            "title": self.title,
            "instruction": self.instruction,
            "verifierId": self.verifier_id,
            "difficulty": self.difficulty,
            **self.extra,
            **(
                {"template": self.template_id, "variant": self.variant, "params": dict(self.params)}
                if self.template_id
                else {}
            ),
        }


def parse_task(raw: JSON, source: str) -> Task:
    """The :class:`Task` in ``raw`` (a task file's JSON); a bad one raises ``task_invalid``."""
    if not isinstance(raw, dict):
        raise TaskError(
            "task_invalid", f"{source}: a task file must hold one JSON object", malformed_file()
        )
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
    reward = raw.get("reward", "weighted")
    if reward not in REWARD_MODES:
        raise TaskError(
            "task_invalid", f'{source}: "reward" is {reward!r}; use one of weighted, binary'
        )
    extra = {k: v for k, v in raw.items() if k not in (*_REQUIRED, "difficulty")}
    user = parse_user(raw["user"], source) if "user" in raw else None
    return Task(
        raw["id"], raw["title"], raw["instruction"], raw["verifierId"], difficulty, extra, source,
        user,
    )  # fmt: skip


@dataclass(frozen=True)
class UserFact:
    """Something the user knows and says only when the agent's message asks for it.

    ``asked_by`` are phrases (matched case-insensitively inside the agent's message) that count
    as asking; ``value`` is what the user then says.
    """

    name: str
    value: str
    asked_by: tuple[str, ...]

    def asked_in(self, message: str) -> bool:
        """True when ``message`` contains one of the phrases that ask for this fact."""
        folded = message.casefold()
        return any(phrase.casefold() in folded for phrase in self.asked_by)


@dataclass(frozen=True)
class UserSpec:
    """A task's simulated user, as its ``user`` block declares it.

    ``opening`` is the first user message (what the agent receives as its task); ``facts`` are
    revealed only when asked; ``turns`` are scripted replies by user turn (turn 1 is the reply
    to the agent's first message) used when no fact is asked; ``fallback`` answers anything
    else. The user ends the conversation with ``end_say`` once the agent's message contains one
    of ``end_when``.
    """

    persona: str
    goal: str
    opening: str
    facts: tuple[UserFact, ...] = ()
    turns: tuple[str, ...] = ()
    fallback: str = "I'm not sure what you need from me. Could you ask me something specific?"
    end_when: tuple[str, ...] = ()
    end_say: str = "Thanks, that's everything."


def _text(raw: Mapping[str, JSON], key: str, where: str, default: str | None = None) -> str:
    value = raw.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise TaskError("task_invalid", f'{where}: "{key}" must be a non-empty string')
    return value


def _phrases(raw: JSON, where: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not raw or not all(isinstance(p, str) and p for p in raw):
        raise TaskError("task_invalid", f"{where} must be a non-empty list of phrases")
    return tuple(raw)


def parse_user(raw: JSON, source: str) -> UserSpec:
    """The :class:`UserSpec` of a task file's ``user`` block; a bad one raises ``task_invalid``."""
    where = f"{source}: user"
    if not isinstance(raw, Mapping):
        raise TaskError("task_invalid", f"{where} must be an object with persona, goal and opening")
    unknown = sorted(
        set(raw) - {"persona", "goal", "opening", "facts", "turns", "fallback", "ending"}
    )
    if unknown:
        raise TaskError(
            "task_invalid",
            f'{where} has an unknown key "{unknown[0]}"; use persona, goal, opening, facts, '
            "turns, fallback and ending",
        )
    facts_raw = raw.get("facts", [])
    if not isinstance(facts_raw, list):
        raise TaskError("task_invalid", f'{where}: "facts" must be a list of objects')
    facts = []
    for index, fact in enumerate(facts_raw):
        at = f"{where}.facts[{index}]"
        if not isinstance(fact, Mapping):
            raise TaskError("task_invalid", f"{at} must be an object with name, value and askedBy")
        facts.append(
            UserFact(
                _text(fact, "name", at),
                _text(fact, "value", at),
                _phrases(fact.get("askedBy"), f"{at}.askedBy"),
            )
        )
    turns = raw.get("turns", [])
    if not isinstance(turns, list) or not all(isinstance(t, str) for t in turns):
        raise TaskError("task_invalid", f'{where}: "turns" must be a list of strings')
    ending = raw.get("ending", {})
    if not isinstance(ending, Mapping):
        raise TaskError("task_invalid", f'{where}: "ending" must be an object with when and say')
    return UserSpec(
        persona=_text(raw, "persona", where),
        goal=_text(raw, "goal", where),
        opening=_text(raw, "opening", where),
        facts=tuple(facts),
        turns=tuple(turns),
        fallback=_text(raw, "fallback", where, UserSpec.fallback),
        end_when=_phrases(ending["when"], f"{where}.ending.when") if "when" in ending else (),
        end_say=_text(ending, "say", f"{where}.ending", UserSpec.end_say),
    )


def read_task_file(path: Path, source: str) -> JSON:
    """The JSON in task file ``path``; invalid JSON raises ``task_invalid`` naming ``source``."""
    try:
        return read_json_file(path)
    except UnreadableFile as exc:
        raise TaskError(
            "task_invalid", f"{source} {exc.why}; fix or remove it", malformed_file()
        ) from None
    except json.JSONDecodeError as exc:
        raise TaskError(
            "task_invalid",
            f"{source} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "fix the file",
            malformed_file(),
        ) from None


def _load_one(path: Path, source: str, found: dict[str, Task]) -> Task | None:
    raw = read_task_file(path, source)
    if isinstance(raw, dict) and "template" in raw:
        return None  # a template: silo.variants.load_templates reads it
    task = parse_task(raw, source)
    if task.id in found:
        raise TaskError(
            "task_invalid",
            f'task id "{task.id}" is declared twice: {found[task.id].source} and {source}; '
            "give one of them another id",
        )
    return task


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


_Item = TypeVar("_Item", bound=_Identified)


def load_task_files(
    tasks_dir: Path,
    env_name: str,
    load: Callable[[Path, str, dict[str, _Item]], _Item | None],
    on_error: Callable[[TaskError], None] | None,
) -> dict[str, _Item]:
    """``load(path, source, found)`` of every ``tasks_dir/*.json`` in name order, sorted by id.

    ``load`` returns None for a file that is not its kind; a :class:`~silo.errors.TaskError` it
    raises goes to ``on_error`` (the file skipped) or, without one, to the caller.
    """
    found: dict[str, _Item] = {}
    for path in sorted(tasks_dir.glob("*.json")) if tasks_dir.is_dir() else ():
        try:
            item = load(path, f"environments/{env_name}/tasks/{path.name}", found)
        except TaskError as exc:
            if on_error is None:
                raise
            on_error(exc)
            continue
        if item is not None:
            found[item.id] = item
    return dict(sorted(found.items()))


def load_tasks(
    tasks_dir: Path, env_name: str, on_error: Callable[[TaskError], None] | None = None
) -> dict[str, Task]:
    """All fixed tasks of an environment (templates are :mod:`silo.variants`'), sorted by id.

    A bad file raises :class:`~silo.errors.TaskError`; with ``on_error`` it is reported there and skipped,
    so a validator can list every bad file at once.
    """
    return load_task_files(tasks_dir, env_name, _load_one, on_error)
