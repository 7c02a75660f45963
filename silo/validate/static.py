"""The static half of validation: reading an environment's files and exports one by one.

Contract: each ``check_*`` function adds findings to a :class:`~silo.validate.report.Report` and never
raises for a problem in the environment; together they fill a :class:`Loaded` with whatever
could be loaded (``None`` where loading failed), so later checks can go on without it. The
finding codes are listed in :mod:`silo.validate.report`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from silo.errors import SiloError
from silo.loading.environment import MANIFEST, Manifest, read_manifest
from silo.loading.modules import describe_exception, load_file, package_for_dir
from silo.tasks import Task, load_tasks
from silo.tools import Tool
from silo.verifiers import Verifier

if TYPE_CHECKING:
    from silo.validate.report import Report

__all__ = [
    "Loaded",
    "check_data",
    "check_entrypoint",
    "check_manifest",
    "check_runtime",
    "check_tasks",
    "check_wiring",
]


@dataclass
class Loaded:
    """What the static checks managed to load (None where loading failed)."""

    root: Path
    manifest: Manifest
    tasks: dict[str, Task]
    entry: Path | None = None
    package: str = ""
    create_state: Any = None
    bind_tools: Any = None
    verifiers: list[Verifier] | None = None
    tools: list[Tool] | None = None


def _read_json(path: Path) -> tuple[Any, str | None]:
    """``(value, None)``, or ``(None, why)`` when ``path`` is not valid JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except json.JSONDecodeError as exc:
        return None, f"line {exc.lineno}, column {exc.colno}: {exc.msg}"
    except UnicodeDecodeError:
        return None, "not UTF-8 text"


def check_data(root: Path, where: str, report: Report) -> None:
    data = root / "data"
    if not data.is_dir():
        report.warn("data_dir_missing", f"{where} has no data/ folder for its JSON datasets")
        return
    for path in sorted(data.glob("*.json")):
        _, problem = _read_json(path)
        if problem:
            report.error(
                "data_invalid_json", f"{where}/data/{path.name} is not valid JSON ({problem})"
            )
        else:
            report.counts["data"] += 1


def check_manifest(root: Path, where: str, report: Report) -> Manifest:
    try:
        manifest = read_manifest(root)
    except SiloError as exc:
        report.error("manifest_invalid", exc.message)
        return Manifest(name=root.name)
    if not manifest.present:
        report.warn(
            "manifest_missing",
            f"{where} has no {MANIFEST}; defaults apply (entrypoint ./env.py). Add one with "
            "name, template, templateVersion, entrypoint and tools",
        )
    elif manifest.name != root.name:
        report.warn(
            "manifest_name_mismatch",
            f'{where}/{MANIFEST} names the environment "{manifest.name}" but its folder is '
            f'"{root.name}" (a copied environment?); set "name" to "{root.name}"',
        )
    return manifest


def check_tasks(root: Path, where: str, report: Report) -> dict[str, Task]:
    """Every loadable task; each bad task file is one ``task_invalid`` finding."""
    return load_tasks(
        root / "tasks", root.name, on_error=lambda exc: report.error("task_invalid", exc.message)
    )


def check_entrypoint(root: Path, where: str, loaded: Loaded, report: Report) -> None:
    entrypoint = loaded.manifest.entrypoint
    entry = (root / entrypoint).resolve()
    if not entry.is_relative_to(root):
        report.error(
            "runtime_load_failed",
            f'{where}/{MANIFEST}: entrypoint "{entrypoint}" resolves outside the environment '
            "folder; point it at a file inside it",
        )
        return
    if not entry.is_file():
        report.error(
            "runtime_load_failed",
            f'{where}: entrypoint {entrypoint} does not exist; create it or set "entrypoint" '
            f"in {MANIFEST}",
        )
        return
    loaded.entry = entry
    loaded.package = package_for_dir(root, root.name)
    try:
        module = load_file(entry, f"{loaded.package}.{entry.stem}", reload=True)
    except SiloError as exc:
        report.error(
            "runtime_load_failed", f"the entrypoint does not import: {_short(exc.message, loaded)}"
        )
        return
    except SystemExit:
        report.error("runtime_load_failed", f"{where}/{entry.name} called exit() on import")
        return
    fix = "a runnable environment exports create_state(), bind_tools(state) and verifiers"
    for attr in ("create_state", "bind_tools"):
        value = getattr(module, attr, None)
        if callable(value):
            setattr(loaded, attr, value)
        else:
            report.error(
                "runtime_load_failed", f"{where}/{entry.name} does not export {attr}(); {fix}"
            )
    raw = getattr(module, "verifiers", None)
    if isinstance(raw, Mapping):
        raw = list(raw.values())
    if not isinstance(raw, (list, tuple)):
        report.error(
            "runtime_load_failed", f"{where}/{entry.name} does not export a verifiers list; {fix}"
        )
        return
    report.counts["verifiers"] = len(raw)
    loaded.verifiers = []
    for index, item in enumerate(raw):
        if isinstance(item, Verifier):
            loaded.verifiers.append(item)
        else:
            report.error(
                "verifier_invalid",
                f"{where}/{entry.name}: verifiers[{index}] is a {type(item).__name__}, not a "
                "define_verifier(...) result",
            )


def _short(message: str, loaded: Loaded) -> str:
    """``message`` with the environment's absolute folder written as ``environments/<name>``."""
    root = loaded.root
    return message.replace(f"{root}{os.sep}", f"environments/{root.name}/")


def check_runtime(loaded: Loaded, report: Report) -> None:
    if loaded.create_state is None:
        return
    try:
        state = loaded.create_state()
    except Exception as exc:
        report.error(
            "create_state_failed",
            f"create_state() raised {_short(describe_exception(exc, loaded.entry), loaded)}",
        )
        return
    if loaded.bind_tools is None:
        return
    try:
        tools = loaded.bind_tools(state)
    except Exception as exc:
        report.error(
            "bind_tools_failed",
            f"bind_tools(state) raised {_short(describe_exception(exc, loaded.entry), loaded)}",
        )
        return
    if not isinstance(tools, (list, tuple)):
        report.error(
            "bind_tools_failed",
            f"bind_tools(state) returned a {type(tools).__name__}; return a list of tools",
        )
        return
    report.counts["tools"] = len(tools)
    loaded.tools = []
    seen: dict[str, int] = {}
    for number, item in enumerate(tools, start=1):
        if not isinstance(item, Tool):
            report.error(
                "tool_invalid",
                f"bind_tools(state) item #{number} is a {type(item).__name__}, not a Tool; "
                "build tools with define_tool(...) or @tool",
            )
            continue
        loaded.tools.append(item)
        _check_tool(item, number, seen, report)


def _check_tool(item: Tool, number: int, seen: dict[str, int], report: Report) -> None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    name = item.name
    if not isinstance(name, str) or not name.strip():
        report.error("tool_unnamed", f"tool #{number} has no name; give it one the agent can call")
        label = f"#{number}"
    else:
        label = name
        if name in seen:
            report.error(
                "tool_duplicate_name",
                f'tools #{seen[name]} and #{number} are both named "{name}"; the agent can reach '
                "only one of them — rename the other",
            )
        else:
            seen[name] = number
    description = item.description
    if not isinstance(description, str) or not description.strip():
        report.warn(
            "tool_no_description",
            f'tool "{label}" has no description; the agent sees it — say what the tool does',
        )
    schema = item.input_schema
    if not isinstance(schema, Mapping):
        problem = f"it is a {type(schema).__name__}, not a JSON object"
    else:
        try:
            Draft202012Validator.check_schema(dict(schema))
            problem = None
        except SchemaError as exc:
            at = "/".join(str(p) for p in exc.path)
            problem = f"{exc.message}" + (f" (at {at})" if at else "")
        if problem is None and schema.get("type") != "object":
            problem = 'tool input is always a JSON object; declare "type": "object"'
    if problem:
        report.error(
            "tool_schema_invalid",
            f'tool "{label}": input schema is not a valid JSON Schema (Draft 2020-12) for an '
            f"object: {problem}",
        )


def check_wiring(loaded: Loaded, report: Report) -> None:
    """Verifiers against tasks: duplicates, orphans, unresolved and mismatched references."""
    by_id: dict[str, Verifier] = {}
    for verifier in loaded.verifiers or ():
        if verifier.id in by_id:
            report.error(
                "verifier_duplicate_id",
                f'two verifiers have the id "{verifier.id}" ("{by_id[verifier.id].name}" and '
                f'"{verifier.name}"); one would silently replace the other — rename one',
            )
            continue
        by_id[verifier.id] = verifier
        if not verifier.task_id:
            continue  # linked by the tasks' verifierId alone: checked below
        task = loaded.tasks.get(verifier.task_id)
        if task is None:
            report.warn(
                "verifier_orphan",
                f'verifier "{verifier.id}" grades task "{verifier.task_id}", which does not '
                f"exist; add tasks/{verifier.task_id}.json or remove the verifier",
            )
        elif task.verifier_id != verifier.id:
            report.warn(
                "verifier_unused",
                f'verifier "{verifier.id}" grades task "{task.id}", but {task.source} names '
                f'"{task.verifier_id}"; this verifier never runs',
            )
    if loaded.verifiers is None:
        return  # the export itself is missing: already reported
    for task in loaded.tasks.values():
        grader = by_id.get(task.verifier_id)
        if grader is None:
            known = ", ".join(by_id) or "none"
            report.error(
                "task_verifier_unresolved",
                f'{task.source}: verifierId "{task.verifier_id}" is not among the exported '
                f"verifiers (known: {known}); export it or fix the id",
            )
        elif grader.task_id and grader.task_id != task.id:
            report.error(
                "verifier_task_mismatch",
                f'{task.source}: verifier "{grader.id}" grades task "{grader.task_id}", not '
                f'"{task.id}"; point verifierId at this task\'s verifier',
            )
    named = {task.verifier_id for task in loaded.tasks.values()}
    for verifier in by_id.values():
        if not verifier.task_id and verifier.id not in named:
            report.warn(
                "verifier_unused",
                f'verifier "{verifier.id}" is named by no task\'s verifierId, so it never runs; '
                "set a task's verifierId to it or remove it",
            )
