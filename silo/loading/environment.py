"""The one environment loader: raise the first problem, or collect every one of them.

Contract: an environment folder holds an optional manifest ``silo.environment.json`` (``name``,
``template``, ``templateVersion``, ``entrypoint`` = ``./env.py`` by default, ``tools``,
``idPatterns``, ``reward``: ``weighted`` or ``binary`` for its tasks), a Python
entrypoint inside the folder exporting ``create_state()``, ``bind_tools(state)`` and
``verifiers`` (and ``generators`` when task templates name them), ``data/*.json`` and
``tasks/*.json`` (tasks and task templates). :func:`read_environment` checks the
manifest, every task file and the entrypoint's exports in that order. Without ``on_problem`` it
raises the first problem as a :class:`~silo.errors.SiloError` subclass naming the file and the
fix; with ``on_problem`` it hands over each problem and goes on, returning whatever it could
load as :class:`EnvironmentParts` (``silo-validate`` reports them all this way). Codes:
``manifest_invalid``, ``task_invalid`` (:class:`~silo.errors.TaskError`),
``entrypoint_outside_environment``, ``entrypoint_not_found``, ``module_load_failed``,
``runtime_contract_invalid`` and ``verifier_invalid``.

:func:`load_environment` returns a complete :class:`Environment` from an
:class:`EnvironmentCache` — an explicit object keyed by folder, so repeated rollouts pay the
import once; :data:`SHARED_ENVIRONMENTS` is the one callers get when they bring none.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from silo.errors import EnvironmentLoadError, SiloError
from silo.json_types import JSON
from silo.loading.definition import DEFAULT_ENTRYPOINT, MANIFEST, Environment, Manifest
from silo.loading.modules import load_file, package_for_dir
from silo.loading.project import (
    available_environments,
    find_project_dir,
    list_environments,
    resolve_environment_dir,
)
from silo.safe_files import UnreadableFile, malformed_file, read_json_file, refuse_special
from silo.schema.check import schema_mistake
from silo.tasks import Task, load_tasks
from silo.tools import Tool
from silo.variants import Generator, Template, load_templates
from silo.verifiers import REWARD_MODES, Verifier

__all__ = [
    "DEFAULT_ENTRYPOINT",
    "MANIFEST",
    "SHARED_ENVIRONMENTS",
    "Environment",
    "EnvironmentCache",
    "EnvironmentParts",
    "Manifest",
    "OnProblem",
    "available_environments",
    "check_tools",
    "find_project_dir",
    "list_environments",
    "load_environment",
    "read_environment",
    "read_manifest",
    "resolve_environment_dir",
    "tool_mistake",
]

OnProblem = Callable[[SiloError], None]
"""Receives each problem a collecting load finds, instead of it being raised."""

_FIX = "a runnable environment exports create_state(), bind_tools(state) and verifiers"


def _manifest_error(root: Path, problem: str, malformed: bool = False) -> EnvironmentLoadError:
    message = f"environments/{root.name}/{MANIFEST}{problem}"
    return EnvironmentLoadError(
        "manifest_invalid", message, malformed_file() if malformed else None
    )


def read_manifest(root: Path) -> Manifest:
    """``root``'s manifest, or the defaults when it has none; a bad one is ``manifest_invalid``."""
    path = root / MANIFEST
    if not os.path.lexists(path):
        return Manifest(name=root.name)
    try:
        raw = read_json_file(path)
    except UnreadableFile as exc:
        raise _manifest_error(
            root, f" {exc.why}; fix it or delete it to use the defaults", malformed=True
        ) from None
    except json.JSONDecodeError as exc:
        raise _manifest_error(
            root,
            f" is not valid JSON (line {exc.lineno}: {exc.msg}); fix it or delete it to use "
            "the defaults",
            malformed=True,
        ) from None
    if not isinstance(raw, dict):
        raise _manifest_error(
            root,
            " must hold a JSON object with name, template, templateVersion, entrypoint and tools",
            malformed=True,
        )

    def text(key: str) -> str | None:
        value = raw.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise _manifest_error(root, f': "{key}" must be a string')
        return value.strip() or None

    tools = raw.get("tools", [])
    if not isinstance(tools, list):
        raise _manifest_error(root, ': "tools" must be a list of strings')
    patterns = raw.get("idPatterns", [])
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise _manifest_error(root, ': "idPatterns" must be a list of regular expressions')
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise _manifest_error(
                root, f': idPatterns entry "{pattern}" is not a regular expression ({exc})'
            ) from None
    reward = raw.get("reward", "weighted")
    if reward not in REWARD_MODES:
        raise _manifest_error(root, f': "reward" is {reward!r}; use one of weighted, binary')
    combined = raw.get("combinedReward")
    if combined is not None and not isinstance(combined, dict):
        raise _manifest_error(
            root, ': "combinedReward" must be an object like {"checks": 0.8, "judged": 0.2}'
        )
    return Manifest(
        name=text("name") or root.name,
        template=text("template"),
        template_version=text("templateVersion"),
        entrypoint=text("entrypoint") or DEFAULT_ENTRYPOINT,
        tools=tuple(t for t in tools if isinstance(t, str)),
        present=True,
        id_patterns=tuple(patterns),
        reward=reward,
        combined_reward=combined,
    )


@dataclass
class EnvironmentParts:
    """What a load got from a folder: ``None`` where a step failed (collecting loads only).

    ``declared_verifiers`` counts the items of the exported ``verifiers``, valid or not.
    """

    root: Path
    manifest: Manifest
    tasks: dict[str, Task]
    templates: dict[str, Template]
    entry: Path | None = None
    package: str = ""
    create_state: Callable[[], Any] | None = None
    bind_tools: Callable[[Any], list[Tool]] | None = None
    verifiers: list[Verifier] | None = None
    declared_verifiers: int = 0
    generators: Mapping[str, Generator] | None = None

    @property
    def name(self) -> str:
        """The environment's name: the manifest's, else the folder's."""
        return self.manifest.name if self.manifest.present else self.root.name

    def environment(self) -> Environment:
        """The :class:`Environment` these parts make; only complete parts make one.

        Raises:
            ValueError: a step failed (only a collecting load returns such parts).
        """
        if self.create_state is None or self.bind_tools is None or self.verifiers is None:
            raise ValueError(f"environment {self.root} did not load completely")
        return Environment(
            name=self.name,
            root=self.root,
            manifest=self.manifest,
            tasks=self.tasks,
            create_state=self.create_state,
            bind_tools=self.bind_tools,
            verifiers={v.id: v for v in self.verifiers},
            package=self.package,
            templates=self.templates,
            generators=self.generators or {},
        )


def read_environment(root: Path, on_problem: OnProblem | None = None) -> EnvironmentParts:
    """Load ``root`` step by step; raise the first problem, or hand each to ``on_problem``."""

    def problem(error: SiloError) -> None:
        if on_problem is None:
            raise error
        on_problem(error)

    label = root.name
    try:
        manifest = read_manifest(root)
    except EnvironmentLoadError as exc:
        problem(exc)
        manifest = Manifest(name=label)
    tasks = load_tasks(root / "tasks", label, on_error=None if on_problem is None else problem)
    templates = load_templates(
        root / "tasks", label, tasks, on_error=None if on_problem is None else problem
    )
    parts = EnvironmentParts(root, manifest, tasks, templates)
    entry = (root / manifest.entrypoint).resolve()
    if not entry.is_relative_to(root):
        problem(
            EnvironmentLoadError(
                "entrypoint_outside_environment",
                f'environments/{label}/{MANIFEST}: entrypoint "{manifest.entrypoint}" resolves '
                "outside the environment folder; point it at a file inside it",
            )
        )
        return parts
    if not entry.is_file():
        problem(
            EnvironmentLoadError(
                "entrypoint_not_found",
                f"environments/{label}: entrypoint {manifest.entrypoint} does not exist; create "
                f'it or set "entrypoint" in {MANIFEST}',
            )
        )
        return parts
    parts.entry = entry
    try:  # the environment's code reads its data as it likes: nothing there may block it
        refuse_special(root / "data")
    except UnreadableFile as exc:
        where = f"environments/{label}/data/{exc.path.name}"
        problem(
            EnvironmentLoadError(
                "module_load_failed", f"{where} {exc.why}; replace it", malformed_file()
            )
        )
        return parts
    parts.package = package_for_dir(root, label)
    try:
        module = load_file(entry, f"{parts.package}.{entry.stem}", reload=True)
    except EnvironmentLoadError as exc:
        problem(exc)
        return parts
    _read_exports(module, parts, f"environments/{label}/{entry.name}", problem)
    return parts


def _read_exports(
    module: ModuleType, parts: EnvironmentParts, where: str, problem: OnProblem
) -> None:
    for attr in ("create_state", "bind_tools"):
        value = getattr(module, attr, None)
        if callable(value):
            setattr(parts, attr, value)
        else:
            problem(
                EnvironmentLoadError(
                    "runtime_contract_invalid", f"{where} does not export {attr}(); {_FIX}"
                )
            )
    generators = getattr(module, "generators", {})
    if isinstance(generators, Mapping) and all(callable(g) for g in generators.values()):
        parts.generators = generators
    else:
        problem(
            EnvironmentLoadError(
                "runtime_contract_invalid",
                f"{where}: generators must map names to functions fn(world, seed) -> parameters",
            )
        )
    raw = getattr(module, "verifiers", None)
    if isinstance(raw, Mapping):
        raw = list(raw.values())
    if not isinstance(raw, (list, tuple)):
        problem(
            EnvironmentLoadError(
                "runtime_contract_invalid",
                f"{where} does not export a verifiers list (of define_verifier(...) results); "
                f"{_FIX}",
            )
        )
        return
    parts.declared_verifiers = len(raw)
    parts.verifiers = []
    for index, item in enumerate(raw):
        if isinstance(item, Verifier):
            parts.verifiers.append(item)
        else:
            problem(
                EnvironmentLoadError(
                    "verifier_invalid",
                    f"{where}: verifiers[{index}] is a {type(item).__name__}, not a "
                    "define_verifier(...) result",
                )
            )


def tool_mistake(tools: list[JSON]) -> str | None:
    """The first tool with a malformed name or input schema, as one line; None when all are fine.

    Binding tools needs a state, so the rollout core runs this once per world pool, when an
    environment's tools first exist: a typo in a schema then stops the run before any call,
    instead of failing the first call and being blamed on the agent.
    """
    for index, item in enumerate(tools):
        if not isinstance(item, Tool):
            return (
                f"bind_tools() returned a {type(item).__name__} at position {index}, not a Tool; "
                "return define_tool(...) or @tool results"
            )
        if not isinstance(item.name, str) or not item.name.isprintable():
            return f"tool {item.name!r} needs a name of printable text; rename it"
        try:
            item.name.encode("utf-8")
        except UnicodeEncodeError:
            return f"tool {item.name!r} has a name that is not valid Unicode; rename it"
        mistake = schema_mistake(item.input_schema)
        if mistake is not None:
            return (
                f'tool "{item.name}" {mistake}; fix the schema (silo-validate lists every problem)'
            )
    return None


def check_tools(environment: str, tools: list[JSON], mistake: str | None = None) -> None:
    """Raise ``tool_schema_invalid`` naming the environment, tool and field, if a tool is bad.

    ``mistake`` is :func:`tool_mistake` of ``tools`` when the caller already has it ("": none).
    """
    found = mistake if mistake is not None else tool_mistake(tools)
    if found:
        raise EnvironmentLoadError("tool_schema_invalid", f"environments/{environment}: {found}")


class EnvironmentCache:
    """Loaded environments by folder, so a sweep or a session imports each entrypoint once.

    Thread-safe. Holding one's own cache isolates a caller (e.g. a test) from the shared one.
    """

    def __init__(self) -> None:
        """Start empty."""
        self._loaded: dict[Path, Environment] = {}
        # The folder an absolute spelling (a name with an absolute project folder, or an
        # absolute path) was found to be: a session per episode must not look for the same
        # folder again each time (a system call per part of each path).
        self._folders: dict[tuple[str, str], Path] = {}
        self._lock = threading.Lock()

    def load(self, root: Path, *, reload: bool = False) -> Environment:
        """The environment in folder ``root``, loaded now if not yet (or if ``reload``)."""
        return self.find(root, reload=reload)

    def find(
        self, name: str | Path, project_dir: Path | None = None, *, reload: bool = False
    ) -> Environment:
        """The environment ``name`` names from ``project_dir`` (see :func:`load_environment`)."""
        spelling = _absolute_spelling(name, project_dir)
        folder = None if spelling is None or reload else self._folders.get(spelling)
        if folder is None:
            root = name if isinstance(name, Path) else resolve_environment_dir(name, project_dir)
            folder = root.resolve()
            if spelling is not None:
                with self._lock:
                    self._folders[spelling] = folder
        return self._load_folder(folder, reload)

    def _load_folder(self, folder: Path, reload: bool) -> Environment:
        found = None if reload else self._loaded.get(folder)
        if found is None:
            found = read_environment(folder).environment()
            with self._lock:
                self._loaded[folder] = found
        return found

    def clear(self) -> None:
        """Forget every loaded environment: the next load imports the files again."""
        with self._lock:
            self._loaded.clear()
            self._folders.clear()


def _absolute_spelling(name: str | Path, project_dir: Path | None) -> tuple[str, str] | None:
    """``(name, project)`` when they name one folder whatever the working folder, else None."""
    if isinstance(name, Path):
        return (str(name), "") if name.is_absolute() else None
    if project_dir is None or not Path(project_dir).is_absolute():
        return None  # found from the working folder (or SILO_PROJECT_DIR), which may change
    return (name, str(project_dir))


SHARED_ENVIRONMENTS = EnvironmentCache()
"""The cache of callers that bring none (a cache of definitions, never results)."""


def load_environment(
    name: str | Path,
    project_dir: Path | None = None,
    *,
    reload: bool = False,
    cache: EnvironmentCache | None = None,
) -> Environment:
    """Load (or fetch from ``cache``) an environment by name or folder; raise its first problem."""
    return (cache or SHARED_ENVIRONMENTS).find(name, project_dir, reload=reload)
