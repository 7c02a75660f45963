"""Environments: loading ``environments/<name>/`` into a runnable object.

Contract: an environment folder holds an optional manifest ``silo.environment.json`` (``name``,
``template``, ``templateVersion``, ``entrypoint`` = ``./env.py`` by default, ``tools``), a Python
entrypoint inside the folder exporting ``create_state()``, ``bind_tools(state)`` and
``verifiers``, ``data/*.json`` and ``tasks/*.json``. :func:`load_environment` checks all of this
and raises one :class:`SiloError` per problem, naming the file and the fix. Loaded environments
are cached by folder, so repeated rollouts pay the import once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from silo.errors import SiloError
from silo.loading.modules import load_file, package_for_dir
from silo.tasks import Task, load_tasks
from silo.tools import Tool
from silo.verifiers import Verifier

if TYPE_CHECKING:
    from silo.world.pool import WorldPool

__all__ = [
    "Environment",
    "Manifest",
    "find_project_dir",
    "list_environments",
    "load_environment",
    "read_manifest",
]

MANIFEST = "silo.environment.json"
DEFAULT_ENTRYPOINT = "./env.py"
_MARKERS = ("environments", "conf", ".silo")


@dataclass(frozen=True)
class Manifest:
    name: str
    template: str | None = None
    template_version: str | None = None
    entrypoint: str = DEFAULT_ENTRYPOINT
    tools: tuple[str, ...] = ()
    present: bool = False


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
    _pool: WorldPool | None = field(default=None, repr=False)

    def task(self, task_id: str) -> Task:
        if not self.tasks:
            raise SiloError(
                "no_tasks", f'environment "{self.name}" has no tasks; add tasks/<ID>.json files'
            )
        try:
            return self.tasks[task_id]
        except KeyError:
            known = ", ".join(self.tasks)
            raise SiloError(
                "task_not_found",
                f'unknown task "{task_id}" in environment "{self.name}"; known: {known}',
            ) from None

    def verifier_for(self, task: Task) -> Verifier:
        verifier = self.verifiers.get(task.verifier_id)
        if verifier is None:
            raise SiloError(
                "verifier_not_found",
                f'task "{task.id}" names verifier "{task.verifier_id}", which environment '
                f'"{self.name}" does not export; add it to the verifiers list',
            )
        return verifier

    @property
    def pool(self) -> WorldPool:
        if self._pool is None:
            from silo.world.pool import WorldPool

            self._pool = WorldPool(self.create_state, self.bind_tools, self.name)
        return self._pool

    @property
    def solver_path(self) -> Path:
        return self.root / "solver.py"

    def tool_specs(self) -> list[dict[str, Any]]:
        return [tool.spec() for tool in self.pool.tools()]


def find_project_dir(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` holding ``environments/``, ``conf/`` or ``.silo/``.

    ``SILO_PROJECT_DIR`` wins when set; with no marker anywhere, ``start`` itself.
    """
    override = os.environ.get("SILO_PROJECT_DIR")
    if override:
        return Path(override).resolve()
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if any((candidate / marker).is_dir() for marker in _MARKERS):
            return candidate
    return here


def list_environments(project_dir: Path) -> list[str]:
    base = project_dir / "environments"
    if not base.is_dir():
        return []
    return sorted(
        p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
    )


def read_manifest(root: Path) -> Manifest:
    path = root / MANIFEST
    if not path.is_file():
        return Manifest(name=root.name)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SiloError(
            "invalid_json",
            f"environments/{root.name}/{MANIFEST} is not valid JSON (line {exc.lineno}: "
            f"{exc.msg}); fix it or delete it to use the defaults",
        ) from None
    if not isinstance(raw, dict):
        raise SiloError(
            "manifest_invalid",
            f"environments/{root.name}/{MANIFEST} must hold a JSON object with name, template, "
            "templateVersion, entrypoint and tools",
        )

    def text(key: str) -> str | None:
        value = raw.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise SiloError(
                "manifest_invalid",
                f'environments/{root.name}/{MANIFEST}: "{key}" must be a string',
            )
        return value.strip() or None

    tools = raw.get("tools", [])
    if not isinstance(tools, list):
        raise SiloError(
            "manifest_invalid",
            f'environments/{root.name}/{MANIFEST}: "tools" must be a list of strings',
        )
    return Manifest(
        name=text("name") or root.name,
        template=text("template"),
        template_version=text("templateVersion"),
        entrypoint=text("entrypoint") or DEFAULT_ENTRYPOINT,
        tools=tuple(t for t in tools if isinstance(t, str)),
        present=True,
    )


_CACHE: dict[Path, Environment] = {}


def resolve_environment_dir(name: str, project_dir: Path | None = None) -> Path:
    """The folder of environment ``name`` (a name under ``environments/`` or a path)."""
    project = project_dir or find_project_dir()
    candidate = Path(name)
    if os.sep in name or name.startswith("."):
        root = (project / candidate).resolve() if not candidate.is_absolute() else candidate
        if root.is_dir():
            return root
    root = project / "environments" / name
    if root.is_dir():
        return root.resolve()
    known = list_environments(project)
    hint = f"known: {', '.join(known)}" if known else "create one with: silo-init <name>"
    raise SiloError(
        "environment_not_found",
        f'unknown environment "{name}" in {project / "environments"}; {hint}',
    )


def load_environment(
    name: str | Path, project_dir: Path | None = None, *, reload: bool = False
) -> Environment:
    """Load (or fetch from cache) an environment by name or folder path."""
    root = name if isinstance(name, Path) else resolve_environment_dir(name, project_dir)
    root = root.resolve()
    if not reload and root in _CACHE:
        return _CACHE[root]
    env = _load(root)
    _CACHE[root] = env
    return env


def _load(root: Path) -> Environment:
    manifest = read_manifest(root)
    label = root.name
    entry = (root / manifest.entrypoint).resolve()
    if not entry.is_relative_to(root):
        raise SiloError(
            "entrypoint_outside_environment",
            f'environments/{label}/{MANIFEST}: entrypoint "{manifest.entrypoint}" resolves '
            "outside the environment folder; point it at a file inside it",
        )
    if not entry.is_file():
        raise SiloError(
            "entrypoint_not_found",
            f"environments/{label}: entrypoint {manifest.entrypoint} does not exist; create it or "
            f'set "entrypoint" in {MANIFEST}',
        )
    tasks = load_tasks(root / "tasks", label)
    package = package_for_dir(root, label)
    module = load_file(entry, f"{package}.{entry.stem}", reload=True)
    exports = _exports(module, label, entry.name)
    return Environment(
        name=manifest.name if manifest.present else label,
        root=root,
        manifest=manifest,
        tasks=tasks,
        create_state=exports[0],
        bind_tools=exports[1],
        verifiers=exports[2],
        package=package,
    )


def _exports(
    module: Any, label: str, filename: str
) -> tuple[Callable[[], Any], Callable[[Any], list[Tool]], dict[str, Verifier]]:
    where = f"environments/{label}/{filename}"
    fix = "a runnable environment exports create_state(), bind_tools(state) and verifiers"
    create_state = getattr(module, "create_state", None)
    bind_tools = getattr(module, "bind_tools", None)
    verifiers = getattr(module, "verifiers", None)
    for attr, value in (("create_state()", create_state), ("bind_tools(state)", bind_tools)):
        if not callable(value):
            raise SiloError("runtime_contract_invalid", f"{where} does not export {attr}; {fix}")
    if isinstance(verifiers, Mapping):
        verifiers = list(verifiers.values())
    if not isinstance(verifiers, (list, tuple)) or not all(
        isinstance(v, Verifier) for v in verifiers
    ):
        raise SiloError(
            "runtime_contract_invalid",
            f"{where} does not export a verifiers list (of define_verifier(...) results); {fix}",
        )
    return create_state, bind_tools, {v.id: v for v in verifiers}  # type: ignore[return-value]
