"""Reading a run folder back, for every reader above the rollout: the viewer, judges, indexes.

Contract: :func:`load_run` reads ``trace.jsonl`` (:func:`read_trace`), ``result.json``,
``state-diff.json`` and ``run.json`` from a run folder, each optional: a run killed before its
end has only a trace. It never raises for a missing, unreadable, too deep or invalid file and
never follows a symbolic link (a received run folder's links could point anywhere); what it
could not read is a sentence in :attr:`RunFolder.problems`. In the trace, a line that is not a
JSON object (one cut when the run was killed mid-write) is a :class:`BadLine` in its place, and
``run_start`` is read with its ``tools`` filled in from the specs it names
(:func:`silo.artifacts.tool_store.offered_tools`); specs that are gone add a sentence.
:func:`optional_json` reads one such optional JSON file, :func:`read_object` one that must hold
an object. Depends on the contracts only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from silo.artifacts.documents import ResultDocument, RunDocument, StateDiffDocument
from silo.artifacts.tool_store import PROJECT_FOLDER, TOOLS_FOLDER, TOOLS_KEY, offered_tools
from silo.json_types import JSON
from silo.safe_files import UnreadableFile, read_bytes_file, read_json_file

__all__ = [
    "RUN_FILES",
    "BadLine",
    "RunFolder",
    "load_run",
    "optional_json",
    "read_object",
    "read_trace",
]

RUN_FILES = ("trace.jsonl", "result.json", "state-diff.json", "run.json")


@dataclass(frozen=True)
class BadLine:
    """A ``trace.jsonl`` line that is not a JSON object."""

    number: int
    raw: str


@dataclass(frozen=True)
class RunFolder:
    """What a run folder holds; ``None`` for a file that is missing or unreadable."""

    folder: Path
    run: RunDocument | None
    result: ResultDocument | None
    diff: StateDiffDocument | None
    trace: list[dict[str, JSON] | BadLine] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def events(self) -> list[dict[str, JSON]]:
        """The trace's events in file order, without the lines that did not parse."""
        return [e for e in self.trace if isinstance(e, dict)]

    def count(self, kind: str, errors_only: bool = False) -> int:
        """How many events of type ``kind`` the trace holds (with ``isError`` set, if asked)."""
        return sum(
            1
            for e in self.events()
            if e.get("type") == kind and (e.get("isError") or not errors_only)
        )

    def event(self, kind: str) -> dict[str, JSON]:
        """The first event of type ``kind`` (``{}`` when there is none)."""
        return next((e for e in self.events() if e.get("type") == kind), {})


def optional_json(path: Path, problems: list[str] | None = None) -> JSON:
    """The JSON value in ``path``; ``None`` when it is absent or damaged (damage noted).

    A damaged file adds ``<file> unreadable: <reason>`` to ``problems`` when it is given.
    """
    try:
        return read_json_file(path, follow=False)
    except UnreadableFile as exc:
        if exc.why == "does not exist":
            return None
        reason = exc.why
    except json.JSONDecodeError as exc:
        reason = f"not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
    if problems is not None:
        problems.append(f"{path.name} unreadable: {reason}")
    return None


def read_trace(path: Path, problems: list[str]) -> list[dict[str, JSON] | BadLine]:
    """Every line of ``trace.jsonl`` as an event, or a :class:`BadLine` where it does not parse."""
    try:
        data = read_bytes_file(path, follow=False)
    except UnreadableFile as exc:
        if exc.why != "does not exist":
            problems.append(f"trace.jsonl unreadable: {exc.why}")
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    trace: list[dict[str, JSON] | BadLine] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            event = None
        if isinstance(event, dict) and event.get("type") == "run_start":
            event = _with_tools(event, path.parent, problems)
        trace.append(event if isinstance(event, dict) else BadLine(number, line))
    return trace


def _with_tools(start: dict[str, JSON], run_dir: Path, problems: list[str]) -> dict[str, JSON]:
    """``run_start`` with its ``tools``: its own, or the stored specs it names by digest."""
    if "tools" in start or TOOLS_KEY not in start:
        return start
    tools = offered_tools(run_dir, start)
    if tools is None:
        problems.append(
            f"the tool specs {PROJECT_FOLDER}/{TOOLS_FOLDER}/{start[TOOLS_KEY]}.json are missing "
            "or damaged (a run folder copied without its project's .silo/tools?)"
        )
        return start
    return {**start, "tools": tools}


def read_object(path: Path, problems: list[str] | None = None) -> dict[str, JSON] | None:
    """The JSON object in ``path``; None when it is absent, damaged or not an object (noted)."""
    if not os.path.lexists(path):
        return None
    value = optional_json(path, problems)
    if value is None:
        return None
    if not isinstance(value, dict):
        if problems is not None:
            problems.append(f"{path.name} is not a JSON object")
        return None
    return value


def load_run(folder: Path) -> RunFolder:
    """Read a run folder's four files; a missing or unreadable one is noted, never raised."""
    problems: list[str] = []
    run, result, diff = (
        read_object(folder / name, problems)
        for name in ("run.json", "result.json", "state-diff.json")
    )
    trace = read_trace(folder / "trace.jsonl", problems)
    # Typed as the writer's documents; every key is still read defensively (.get), since a
    # folder may hold hand-edited or older files.
    return RunFolder(
        folder,
        cast(RunDocument | None, run),
        cast(ResultDocument | None, result),
        cast(StateDiffDocument | None, diff),
        trace,
        problems,
    )
