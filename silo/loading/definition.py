"""What an environment is once loaded: its manifest and its definition, no state of any run.

Contract: :class:`Manifest` is ``silo.environment.json`` as read (defaults when absent);
:class:`Environment` is a definition — name, folder, tasks, verifiers and the entrypoint's
``create_state``/``bind_tools`` — and holds no worlds of its own: whoever runs rollouts keeps
the worlds (see :mod:`silo.world.pool`). Its templates' instances (``TASK-010#17``) are made
on first use from one initial world it keeps for that, and kept, since they never change.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from silo.errors import TaskError
from silo.json_types import JSON
from silo.tasks import Task
from silo.tools import Tool
from silo.variants import Generator, Template, instance_count, instantiate, split_instance_id
from silo.verifiers import Verifier

__all__ = ["DEFAULT_ENTRYPOINT", "MANIFEST", "Environment", "Manifest", "solver_file"]

MANIFEST = "silo.environment.json"
DEFAULT_ENTRYPOINT = "./env.py"
AGENTS_DIR = "agents"
"""The folder of an environment's scripted agents (solver, probes and their helpers)."""


def solver_file(root: Path) -> Path:
    """Where the reference solver of the environment in ``root`` lives (it may not exist).

    By convention ``agents/solver.py``, beside the environment's other scripted agents; an
    environment without an ``agents/`` solver keeps it at its root (``solver.py``).
    """
    in_agents = root / AGENTS_DIR / "solver.py"
    return in_agents if in_agents.is_file() else root / "solver.py"


@dataclass(frozen=True)
class Manifest:
    """``silo.environment.json``: the entrypoint to load and what the template was.

    ``present`` is false when the folder has no manifest and these are the defaults.
    ``id_patterns`` (``idPatterns``) are regular expressions of the record ids task
    instructions may name, beside the shapes ``silo-validate`` infers from the data.
    ``reward`` is how its tasks' checks become a reward (``weighted`` or ``binary``) unless a
    task file says otherwise. ``combined_reward`` (``combinedReward``) is the formula its judged
    tasks mix the checks' reward and judged items with, unless a task file gives its own
    (checked where it is used, :mod:`silo.judges.reward`); None: the checks' reward alone.
    """

    name: str
    template: str | None = None
    template_version: str | None = None
    entrypoint: str = DEFAULT_ENTRYPOINT
    tools: tuple[str, ...] = ()
    present: bool = False
    id_patterns: tuple[str, ...] = ()
    reward: str = "weighted"
    combined_reward: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass
class Environment:
    """A loaded environment: its manifest, tasks, verifiers and the entrypoint's functions."""

    name: str
    root: Path
    manifest: Manifest
    tasks: dict[str, Task]
    create_state: Callable[[], Any]
    bind_tools: Callable[[Any], list[Tool]]
    verifiers: dict[str, Verifier]
    package: str
    templates: dict[str, Template] = field(default_factory=dict)
    # The entrypoint's ``generators``: name -> fn(initial_world, seed) -> parameters.
    generators: Mapping[str, Generator] = field(default_factory=dict)
    _instances: dict[str, Task] = field(default_factory=dict, init=False, repr=False, compare=False)
    _world: list[JSON] = field(default_factory=list, init=False, repr=False, compare=False)
    _lock: threading.Lock = field(
        default_factory=threading.Lock, init=False, repr=False, compare=False
    )

    def reward_mode(self, task: Task) -> str:
        """How ``task``'s checks become its reward: the task's choice, else the manifest's."""
        return task.reward or self.manifest.reward

    def task(self, task_id: str) -> Task:
        """The task ``task_id``, or an instance ``TASK-010#17`` of a template.

        A template's id alone names its instance #0. An unknown id raises :class:`TaskError`
        listing the known ones.
        """
        if not self.tasks and not self.templates:
            raise TaskError(
                "no_tasks", f'environment "{self.name}" has no tasks; add tasks/<ID>.json files'
            )
        base, number = split_instance_id(task_id)
        if number is None and base in self.tasks:
            return self.tasks[base]
        if base in self.templates:
            return self.instance(base, number or 0)
        known = ", ".join([*self.tasks, *(f"{t}#<n>" for t in self.templates)])
        raise TaskError(
            "task_not_found",
            f'unknown task "{task_id}" in environment "{self.name}"; known: {known}',
        )

    def initial_world(self) -> Any:
        """The initial world generators read (made once; never handed to a rollout)."""
        with self._lock:
            if not self._world:
                self._world.append(self.create_state())
            return self._world[0]

    def instance(self, template_id: str, number: int) -> Task:
        """Instance ``number`` of template ``template_id`` (made once, then kept)."""
        key = f"{template_id}#{number}"
        found = self._instances.get(key)
        if found is None:
            found = instantiate(
                self.templates[template_id], number, self.initial_world(), self.generators
            )
            with self._lock:
                self._instances[key] = found
        return found

    def instance_count(self, template_id: str) -> int | None:
        """How many distinct instances template ``template_id`` makes, when known."""
        return instance_count(self.templates[template_id], self.initial_world(), self.generators)

    def verifier_for(self, task: Task) -> Verifier:
        """The verifier ``task`` names; one the entrypoint does not export is a TaskError."""
        verifier = self.verifiers.get(task.verifier_id)
        if verifier is None:
            raise TaskError(
                "verifier_not_found",
                f'task "{task.id}" names verifier "{task.verifier_id}", which environment '
                f'"{self.name}" does not export; add it to the verifiers list',
            )
        return verifier

    def tools(self) -> list[Tool]:
        """The tools bound to a fresh initial state (for listing and checking them, not for rollouts)."""
        return list(self.bind_tools(self.create_state()))

    @property
    def solver_path(self) -> Path:
        """Where the environment's reference solver lives (see :func:`solver_file`)."""
        return solver_file(self.root)

    @property
    def solver_module(self) -> str:
        """The module name the solver is imported as, inside the environment's package.

        So its relative imports reach its neighbours (``from .solver_kit import ...``).
        """
        relative = self.solver_path.relative_to(self.root).with_suffix("")
        return ".".join((self.package, *relative.parts))

    def tool_specs(self) -> list[dict[str, JSON]]:
        """The specs of the tools bound to a fresh initial state, as agents are offered them."""
        return [tool.spec() for tool in self.tools()]
