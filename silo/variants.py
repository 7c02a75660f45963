"""Task templates and their instances: one task file, many distinct tasks.

Contract: a task file with a ``template`` block is a :class:`Template`. The block names the
``parameters`` its placeholders use and where their values come from: ``generator`` (the name
of a function in the environment's exported ``generators``, called as ``fn(world, seed)`` with
the initial world and the instance number, returning the parameters) or ``values`` (an
explicit list of parameter objects, instance *n* being item *n*). ``{name}`` placeholders in
the ``title``, ``instruction``, ``difficulty``, ``entities``, ``user`` block and ``rubric`` are filled from
the parameters; a string that is exactly one placeholder takes the parameter's value as is
(a number stays a number). The generator may return ``difficulty`` (easy|medium|hard), which
the instance then carries: the template's difficulty knob.

An instance is named ``TASK-010#17`` (:func:`instance_id`); it is a plain
:class:`~silo.tasks.Task` whose ``params`` are the parameters, so verifiers read
``context.params`` (and the filled ``entities``) and grading is unchanged. Generation uses
no hash of Python objects and no clock: the same seed gives the same instance in every
process, hash seed and machine. :func:`candidates_generator` turns a list of every valid
parameter set into a generator that visits them in a fixed shuffled order, so instances
``0..n-1`` are distinct and :func:`instance_count` knows ``n``.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from silo.errors import TaskError
from silo.json_types import JSON
from silo.tasks import DIFFICULTIES, Task, load_task_files, parse_task, read_task_file

__all__ = [
    "Generator",
    "Template",
    "candidates_generator",
    "instance_count",
    "instance_id",
    "instantiate",
    "load_templates",
    "parse_template",
    "placeholders",
    "random_instance",
    "split_instance_id",
]

Generator = Callable[[Mapping[str, JSON], int], Mapping[str, JSON]]
"""An environment's parameter generator: ``fn(initial_world, seed)`` → the parameters."""

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_FILLED = ("title", "instruction", "difficulty", "entities", "user", "rubric")


@dataclass(frozen=True)
class Template:
    """A templated task: its raw file, the parameters it declares and where they come from."""

    id: str
    raw: Mapping[str, JSON]
    parameters: tuple[str, ...]
    source: str
    generator: str = ""
    values: tuple[Mapping[str, JSON], ...] = ()

    @property
    def verifier_id(self) -> str:
        """The verifier every instance is graded by."""
        return str(self.raw["verifierId"])

    @property
    def title(self) -> str:
        """The template's title, placeholders unfilled."""
        return str(self.raw["title"])


def placeholders(value: Any) -> set[str]:
    """Every ``{name}`` used anywhere in ``value`` (strings, lists and objects, recursively)."""
    if isinstance(value, str):
        return set(_PLACEHOLDER.findall(value))
    if isinstance(value, Mapping):
        return set().union(*(placeholders(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(placeholders(v) for v in value)) if value else set()
    return set()


def parse_template(raw: Mapping[str, JSON], source: str) -> Template:
    """The :class:`Template` of a task file whose ``template`` block is set; bad ones raise."""
    block = raw["template"]
    where = f"{source}: template"
    if not isinstance(block, Mapping):
        raise TaskError("task_invalid", f"{where} must be an object with parameters and generator")
    unknown = sorted(set(block) - {"parameters", "generator", "values"})
    if unknown:
        raise TaskError(
            "task_invalid", f'{where} has an unknown key "{unknown[0]}"; use parameters, '
            "generator or values",
        )  # fmt: skip
    names = block.get("parameters")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise TaskError("task_invalid", f'{where}: "parameters" must be a non-empty list of names')
    generator, values = block.get("generator", ""), block.get("values")
    if bool(generator) == (values is not None):
        raise TaskError(
            "task_invalid", f'{where} needs exactly one of "generator" (a function the '
            'environment exports in generators) or "values" (a list of parameter objects)',
        )  # fmt: skip
    if generator and not isinstance(generator, str):
        raise TaskError("task_invalid", f'{where}: "generator" must be a function name')
    if values is not None and (
        not isinstance(values, list) or not values or not all(isinstance(v, dict) for v in values)
    ):
        raise TaskError("task_invalid", f'{where}: "values" must be a non-empty list of objects')
    parse_task({k: v for k, v in raw.items() if k != "template"}, source)  # the usual keys
    used = placeholders({k: raw.get(k) for k in _FILLED})
    undeclared = sorted(used - set(names) - {"difficulty"})
    if undeclared:
        raise TaskError(
            "task_invalid", f'{where}: placeholder "{{{undeclared[0]}}}" is not among '
            f"parameters; declare it or remove it",
        )  # fmt: skip
    template = Template(
        str(raw["id"]), dict(raw), tuple(names), source, generator or "",
        tuple(values or ()),
    )  # fmt: skip
    for index, item in enumerate(template.values):
        _checked(template, item, f"{where}.values[{index}]")
    return template


def _checked(template: Template, params: Any, where: str) -> dict[str, JSON]:
    if not isinstance(params, Mapping):
        raise TaskError("task_invalid", f"{where} must be an object of parameters")
    missing = [name for name in template.parameters if name not in params]
    if missing:
        raise TaskError("task_invalid", f'{where} lacks parameter "{missing[0]}"')
    difficulty = params.get("difficulty", "unspecified")
    if difficulty not in DIFFICULTIES:
        raise TaskError(
            "task_invalid", f"{where}: difficulty {difficulty!r} is not easy|medium|hard"
        )
    return dict(params)


def _fill(value: Any, params: Mapping[str, JSON]) -> Any:
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value)
        if whole is not None and whole.group(1) in params:
            return params[whole.group(1)]
        return _PLACEHOLDER.sub(
            lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), value
        )
    if isinstance(value, Mapping):
        return {k: _fill(v, params) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, params) for v in value]
    return value


def instance_id(template_id: str, number: int) -> str:
    """``TASK-010#17``: the id of instance ``number`` of ``template_id``."""
    return f"{template_id}#{number}"


def split_instance_id(task_id: str) -> tuple[str, int | None]:
    """``("TASK-010", 17)`` for ``TASK-010#17``; ``(task_id, None)`` for a plain id.

    Raises:
        TaskError: the part after ``#`` is not a whole number >= 0.
    """
    base, sep, number = task_id.partition("#")
    if not sep:
        return task_id, None
    if not number.isdigit() or not number.isascii():
        raise TaskError(
            "task_not_found", f'"{task_id}": an instance is named <template>#<n>, n a whole '
            "number >= 0, e.g. TASK-010#17",
        )  # fmt: skip
    return base, int(number)


def instantiate(
    template: Template, number: int, world: Mapping[str, JSON], generators: Mapping[str, Generator]
) -> Task:
    """Instance ``number`` of ``template``, its parameters made from the initial ``world``."""
    tid = instance_id(template.id, number)
    if template.values:
        if number >= len(template.values):
            raise TaskError(
                "task_not_found", f'"{tid}": template {template.id} lists '
                f"{len(template.values)} instances (#0 to #{len(template.values) - 1})",
            )  # fmt: skip
        params = dict(template.values[number])
    else:
        generate = generators.get(template.generator)
        if not callable(generate):
            raise TaskError(
                "verifier_not_found", f'{template.source}: generator "{template.generator}" is '
                "not in the environment's exported generators; add it there",
            )  # fmt: skip
        params = _checked(template, generate(world, number), f"{tid}: the generator's result")
    raw = {k: v for k, v in template.raw.items() if k != "template"}
    raw.update({k: _fill(raw[k], params) for k in _FILLED if k in raw})
    if "difficulty" in params:
        raw["difficulty"] = params["difficulty"]
    raw["id"] = tid
    task = parse_task(raw, template.source)
    return replace(task, params=params, template_id=template.id, variant=number)


def instance_count(
    template: Template, world: Mapping[str, JSON], generators: Mapping[str, Generator]
) -> int | None:
    """How many distinct instances ``template`` can make, when that is known (else None)."""
    if template.values:
        return len({_key(v) for v in template.values})
    count = getattr(generators.get(template.generator), "count", None)
    return int(count(world)) if callable(count) else None


def _key(params: Mapping[str, JSON]) -> str:
    from silo.jsonio import canonical

    return canonical(dict(params))


def random_instance(template_id: str, seed: int, count: int | None) -> int:
    """The instance ``variant=random`` picks for ``seed``: fixed per (template, seed)."""
    digest = hashlib.sha256(f"{template_id}:{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % (count or 1_000_000)


@dataclass(frozen=True)
class _FromCandidates:
    """A generator visiting every candidate in one fixed shuffled order (see module doc)."""

    candidates: Callable[[Mapping[str, JSON]], Sequence[Mapping[str, JSON]]]

    def count(self, world: Mapping[str, JSON]) -> int:
        return len(self.candidates(world))

    def __call__(self, world: Mapping[str, JSON], seed: int) -> Mapping[str, JSON]:
        found = list(self.candidates(world))
        if not found:
            raise TaskError("task_invalid", "the generator found no valid parameters in this world")
        order = sorted(range(len(found)), key=lambda i: _key(found[i]))
        random.Random(len(found)).shuffle(order)  # fixed: seeded by the size, never by time
        return found[order[seed % len(found)]]


def candidates_generator(
    candidates: Callable[[Mapping[str, JSON]], Sequence[Mapping[str, JSON]]],
) -> Generator:
    """A generator from ``candidates(world)``: every valid parameter set, in any order.

    Instance *n* is candidate ``n mod count`` of a fixed shuffle (by canonical JSON, so the
    order the function lists them in does not matter): instances ``0..count-1`` are distinct.
    """
    return _FromCandidates(candidates)


def load_templates(
    tasks_dir: Path,
    env_name: str,
    taken: Mapping[str, Task],
    on_error: Callable[[TaskError], None] | None = None,
) -> dict[str, Template]:
    """Every template in ``tasks_dir``, sorted by id; ``taken`` are the fixed tasks' ids.

    A bad file raises :class:`~silo.errors.TaskError`; with ``on_error`` it is reported there
    and skipped (as :func:`silo.tasks.load_tasks` does).
    """
    return load_task_files(tasks_dir, env_name, partial(_load_template, taken=taken), on_error)


def _load_template(
    path: Path, source: str, found: dict[str, Template], taken: Mapping[str, Task]
) -> Template | None:
    try:
        raw = read_task_file(path, source)
    except TaskError:
        return None  # silo.tasks.load_tasks reports a file that is not JSON
    if not isinstance(raw, dict) or "template" not in raw:
        return None
    template = parse_template(raw, source)
    if "#" in template.id:
        raise TaskError("task_invalid", f'{source}: a template id may not contain "#"')
    clash = found[template.id].source if template.id in found else None
    clash = clash or (taken[template.id].source if template.id in taken else None)
    if clash:
        raise TaskError(
            "task_invalid", f'task id "{template.id}" is declared twice: {clash} and '
            f"{source}; give one of them another id",
        )  # fmt: skip
    return template
