"""The static half of validation: reading an environment's files and exports one by one.

Contract: each ``check_*`` function adds findings to a :class:`~silo.validate.report.Report` and never
raises for a problem in the environment. :func:`check_loading` runs the one environment loader
(:func:`silo.loading.environment.read_environment`) collecting every problem, and maps its error
codes onto the finding codes; the result, a :class:`Loaded`, holds whatever could be loaded
(``None`` where loading failed), so later checks can go on without it. The finding codes are
listed in :mod:`silo.validate.report`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from silo.errors import SiloError
from silo.loading.environment import MANIFEST, EnvironmentParts, read_environment
from silo.loading.modules import describe_exception
from silo.safe_files import UnreadableFile, read_json_file
from silo.tools import Tool
from silo.verifiers import Verifier

if TYPE_CHECKING:
    from silo.validate.report import Report

__all__ = [
    "Loaded",
    "check_data",
    "check_loading",
    "check_runtime",
    "check_wiring",
    "short_paths",
]


# The loader's codes, as the validator's findings name them (findings keep their own codes).
_FINDING_CODES = {
    "manifest_invalid": "manifest_invalid",
    "task_invalid": "task_invalid",
    "entrypoint_outside_environment": "runtime_load_failed",
    "entrypoint_not_found": "runtime_load_failed",
    "module_load_failed": "runtime_load_failed",
    "runtime_contract_invalid": "runtime_load_failed",
    "verifier_invalid": "verifier_invalid",
}


@dataclass
class Loaded:
    """What the static checks got: the loader's parts, and the tools once they were bound."""

    parts: EnvironmentParts
    tools: list[Tool] | None = None


def _read_json(path: Path) -> tuple[Any, str | None]:
    """``(value, None)``, or ``(None, why)`` when ``path`` is not valid JSON."""
    try:
        return read_json_file(path), None
    except json.JSONDecodeError as exc:
        return None, f"line {exc.lineno}, column {exc.colno}: {exc.msg}"
    except UnreadableFile as exc:
        return None, exc.why


def check_data(root: Path, where: str, report: Report) -> None:
    """One finding per ``data/*.json`` that does not parse; a warning when there is no data/."""
    data = root / "data"
    if not data.is_dir():
        report.warn("data_dir_missing", f"{where} has no data/ folder for its JSON datasets")
        return
    for path in sorted(data.glob("*.json")):
        _, problem = _read_json(path)
        if problem:
            report.error(
                "data_invalid_json",
                f"{where}/data/{path.name} is not valid JSON ({problem})",
                malformed=True,
            )
        else:
            report.counts["data"] += 1


def check_loading(root: Path, where: str, report: Report) -> Loaded:
    """Run the environment loader collecting every problem: manifest, tasks, entrypoint."""
    problems: list[SiloError] = []
    parts = read_environment(root, on_problem=problems.append)
    if not parts.manifest.present and not any(p.code == "manifest_invalid" for p in problems):
        report.warn(
            "manifest_missing",
            f"{where} has no {MANIFEST}; defaults apply (entrypoint ./env.py). Add one with "
            "name, template, templateVersion, entrypoint and tools",
        )
    elif parts.manifest.name != root.name:
        report.warn(
            "manifest_name_mismatch",
            f'{where}/{MANIFEST} names the environment "{parts.manifest.name}" but its folder is '
            f'"{root.name}" (a copied environment?); set "name" to "{root.name}"',
        )
    for problem in problems:
        message = problem.message
        if problem.code == "module_load_failed":
            message = f"the entrypoint does not import: {short_paths(message, root)}"
        malformed = problem.details.get("malformed") is True
        report.error(_FINDING_CODES[problem.code], message, malformed)
    if parts.verifiers is not None:
        report.counts["verifiers"] = parts.declared_verifiers
    return Loaded(parts)


def short_paths(message: str, root: Path) -> str:
    """``message`` with the environment's absolute folder written as ``environments/<name>``."""
    return message.replace(f"{root}{os.sep}", f"environments/{root.name}/")


def check_runtime(loaded: Loaded, report: Report) -> None:
    """Call ``create_state()`` and ``bind_tools(state)``; check every tool they give."""
    parts = loaded.parts
    if parts.create_state is None:
        return
    try:
        state = parts.create_state()
    except Exception as exc:
        report.error(
            "create_state_failed",
            f"create_state() raised {short_paths(describe_exception(exc, parts.entry), parts.root)}",
        )
        return
    if parts.bind_tools is None:
        return
    try:
        tools = parts.bind_tools(state)
    except Exception as exc:
        report.error(
            "bind_tools_failed",
            f"bind_tools(state) raised {short_paths(describe_exception(exc, parts.entry), parts.root)}",
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
    parts = loaded.parts
    by_id: dict[str, Verifier] = {}
    for verifier in parts.verifiers or ():
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
        task = parts.tasks.get(verifier.task_id)
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
    if parts.verifiers is None:
        return  # the export itself is missing: already reported
    for task in parts.tasks.values():
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
    for template in parts.templates.values():
        if template.verifier_id not in by_id:
            known = ", ".join(by_id) or "none"
            report.error(
                "task_verifier_unresolved",
                f'{template.source}: verifierId "{template.verifier_id}" is not among the '
                f"exported verifiers (known: {known}); export it or fix the id",
            )
    named = {task.verifier_id for task in parts.tasks.values()}
    named |= {template.verifier_id for template in parts.templates.values()}
    for verifier in by_id.values():
        if not verifier.task_id and verifier.id not in named:
            report.warn(
                "verifier_unused",
                f'verifier "{verifier.id}" is named by no task\'s verifierId, so it never runs; '
                "set a task's verifierId to it or remove it",
            )
