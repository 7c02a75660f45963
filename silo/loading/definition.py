"""What an environment is once loaded: its manifest and its definition, no state of any run.

Contract: :class:`Manifest` is ``silo.environment.json`` as read (defaults when absent);
:class:`Environment` is a definition — name, folder, tasks, verifiers and the entrypoint's
``create_state``/``bind_tools`` — and holds no worlds of its own: whoever runs rollouts keeps
the worlds (see :mod:`silo.world.pool`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from silo.errors import TaskError
from silo.tasks import Task
from silo.tools import Tool
from silo.verifiers import Verifier

__all__ = ["DEFAULT_ENTRYPOINT", "MANIFEST", "Environment", "Manifest"]

MANIFEST = "silo.environment.json"
DEFAULT_ENTRYPOINT = "./env.py"


@dataclass(frozen=True)
class Manifest:
    """``silo.environment.json``: the entrypoint to load and what the template was.

    ``present`` is false when the folder has no manifest and these are the defaults.
    ``id_patterns`` (``idPatterns``) are regular expressions of the record ids task
    instructions may name, beside the shapes ``silo-validate`` infers from the data.
    ``reward`` is how its tasks' checks become a reward (``weighted`` or ``binary``) unless a
    task file says otherwise.
    """

    name: str
    template: str | None = None
    template_version: str | None = None
    entrypoint: str = DEFAULT_ENTRYPOINT
    tools: tuple[str, ...] = ()
    present: bool = False
    id_patterns: tuple[str, ...] = ()
    reward: str = "weighted"


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

    def reward_mode(self, task: Task) -> str:
        """How ``task``'s checks become its reward: the task's choice, else the manifest's."""
        return task.reward or self.manifest.reward

    def task(self, task_id: str) -> Task:
        """The task ``task_id``; an unknown id raises :class:`TaskError` listing the known ones."""
        if not self.tasks:
            raise TaskError(
                "no_tasks", f'environment "{self.name}" has no tasks; add tasks/<ID>.json files'
            )
        try:
            return self.tasks[task_id]
        except KeyError:
            known = ", ".join(self.tasks)
            raise TaskError(
                "task_not_found",
                f'unknown task "{task_id}" in environment "{self.name}"; known: {known}',
            ) from None

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
        """Where the environment's reference solver lives (it may not exist)."""
        return self.root / "solver.py"

    def tool_specs(self) -> list[dict[str, Any]]:
        """The specs of the tools bound to a fresh initial state, as agents are offered them."""
        return [tool.spec() for tool in self.tools()]
