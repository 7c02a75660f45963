"""Recorded baselines: a rollout's oracle documents as an exact regression oracle.

Contract:

* A golden is ``<baselines>/<env>/<agent>/<TASK>.<kind>.json`` for the kinds ``result`` and
  ``state-diff``, plus ``state-changes`` and ``tool-events`` when a :class:`Target` pins them
  (the config pins ``state-changes`` by default), and ``instance`` for an instance of a task
  template (``TASK-010#3``: its template, number and parameters, so an instance the generator
  now makes differently is a DRIFT of its own). A target with (deterministic) judges also pins ``judgement``
  for each task with a rubric: the ``judgement.json`` :func:`silo.judges.judgement.judgement_of`
  gives for the rollout kept in memory, the bytes ``silo-run ... judge=`` writes. Its text is exactly
  what the rollout's artifact would hold (:func:`silo.jsonio.pretty`), so two rollouts of a
  deterministic agent give the same bytes. ``tool-events`` are the trace's ``tool_call`` and
  ``tool_result`` events without ``at`` and ``durationMs``.
* The committed config ``<project>/baselines/silo-baselines.yaml`` lists :class:`Entry` items
  (``env``, ``agent``, optional ``tasks``, ``tool_events``, ``state_changes``, ``overrides``);
  :func:`load_entries` reads it and :func:`select_entries` narrows it to a selection.
* :func:`record_goldens` runs every point of a target in memory (``write_artifacts=False``) and writes a
  golden only when its bytes change: ``created``, ``changed`` (with an explanation) or ``same``.
  :func:`check_goldens` reruns them and compares byte for byte: ``ok``, ``DRIFT`` (one per file, with
  the changed fields; ``state-changes`` drift is explained field by field with before and after
  values by :mod:`silo.batch.baseline_changes`), ``MISSING`` (no golden; the rollout is skipped when none exists).
  Both report ``STALE`` goldens: a task no longer in the environment within the target's task
  scope, or pinned tool events the target no longer asks for. A rollout that is not graded
  (:mod:`silo.batch.outcomes`: it could not start, its verifier or ``create_state()`` raised,
  its model endpoint failed) is ``ERROR`` with its one-line reason, never ``DRIFT``, and
  ``record`` writes no golden for it. Nothing here prints; callers format the
  :class:`GoldenOutcome` records.
* :func:`require_deterministic` refuses agents whose ``ResolvedAgent.deterministic`` is false.

The engine knows nothing of Hydra; ``silo.cli.baseline`` turns overrides into targets.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from silo.agents.resolve import resolve_agent
from silo.artifacts.atomic import write_text_atomic
from silo.artifacts.run_folder import unwritable
from silo.batch.baseline_changes import explain_changes
from silo.batch.baseline_config import CONFIG_NAME, Entry, config_path, load_entries, select_entries
from silo.batch.outcomes import LABELS, rollout_outcome, start_outcome
from silo.batch.point import Point, run_point
from silo.batch.sweep import ordered_map
from silo.errors import BaselineError, SiloError
from silo.json_types import JSON
from silo.jsonio import pretty
from silo.judges.judgement import judgement_of
from silo.judges.reward import judged_task
from silo.judges.rubric import Judge, material_from
from silo.loading.environment import load_environment
from silo.users.resolve import resolve_user

__all__ = [
    "CONFIG_NAME",
    "Entry",
    "GoldenOutcome",
    "Target",
    "check_goldens",
    "config_path",
    "explain",
    "load_entries",
    "record_goldens",
    "require_deterministic",
    "runnable_tasks",
    "select_entries",
    "tool_events",
]

BASE_KINDS = ("result", "state-diff")
STATE_CHANGES = "state-changes"
TOOL_EVENTS = "tool-events"
INSTANCE = "instance"  # a template instance's template, number and parameters
JUDGEMENT = "judgement"  # a judged task's judgement.json, when the target has (scripted) judges
_ALL_KINDS = (*BASE_KINDS, STATE_CHANGES, TOOL_EVENTS, INSTANCE, JUDGEMENT)
_DROPPED_EVENT_KEYS = ("at", "durationMs")
_MAX_LINES = 40  # explanation lines per file; the rest are counted
_MAX_VALUE = 120  # characters of one value in an explanation line


@dataclass(frozen=True)
class Target:
    """What to record or check: the points of one environment × agent and their golden folder."""

    env: str
    agent_label: str
    points: Sequence[Point]
    tool_events: bool = False
    scope: tuple[str, ...] = ("all",)  # task ids/globs whose orphaned goldens count as STALE
    state_changes: bool = False  # also pin state-changes.json (the config's entries default on)
    judges: tuple[Judge, ...] = ()  # deterministic judges: pin the judgement of judged tasks
    judged: frozenset[str] = frozenset()  # the ids of the tasks and templates with a rubric

    def folder(self, baselines_dir: Path) -> Path:
        """Where this target's goldens live: ``<baselines>/<env>/<agent>``."""
        return baselines_dir / self.env / self.agent_label

    @property
    def kinds(self) -> tuple[str, ...]:
        """The golden kinds pinned: always result and state-diff, the optional ones on request."""
        optional = ((STATE_CHANGES, self.state_changes), (TOOL_EVENTS, self.tool_events))
        return (*BASE_KINDS, *(kind for kind, pinned in optional if pinned))


@dataclass(frozen=True)
class GoldenOutcome:
    """One reported line: ``status`` is ok, DRIFT, MISSING, STALE, ERROR, created, changed, same."""

    status: str
    env: str
    agent: str
    task: str
    files: tuple[str, ...] = ()  # the file names concerned, e.g. ("result.json",)
    lines: tuple[str, ...] = ()  # explanation (DRIFT, changed) or the error (ERROR)
    note: str = ""  # why a golden is STALE

    @property
    def key(self) -> str:
        """``env/agent/task``: how the outcome is named in reports."""
        return f"{self.env}/{self.agent}/{self.task}"


def _is_pattern(part: str) -> bool:
    return part == "all" or any(ch in part for ch in "*?[")


def runnable_tasks(scope: Sequence[str], known: Iterable[str], folder: Path) -> list[str]:
    """The parts of a task selection to run.

    An id the environment lacks but a golden has is left out (it is reported STALE); any
    other unknown id stays, so planning names it.
    """
    known_ids = set(known)
    return [
        part
        for part in scope
        if _is_pattern(part)
        or part in known_ids
        or not any((folder / f"{part}.{kind}.json").is_file() for kind in _ALL_KINDS)
    ]


# -- the documents -----------------------------------------------------------------------------


def tool_events(trace_lines: Iterable[str]) -> list[dict[str, JSON]]:
    """The trace's tool_call/tool_result events without their timing keys."""
    events = []
    for line in trace_lines:
        if "tool_" not in line:  # cheap pre-filter; the type is checked after parsing
            continue
        event = json.loads(line)
        if event.get("type") in ("tool_call", "tool_result"):
            events.append({k: v for k, v in event.items() if k not in _DROPPED_EVENT_KEYS})
    return events


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 3] + "..."


def _path_key(path: list[JSON]) -> list[tuple[int, Any]]:
    return [(0, p) if isinstance(p, int) else (1, str(p)) for p in path]


def explain(old_text: str, new: Any) -> list[str]:
    """Readable lines for how ``new`` differs from the golden text ``old_text`` (deepdiff)."""
    try:
        old = json.loads(old_text)
    except json.JSONDecodeError as exc:
        return [f"the golden is not valid JSON (line {exc.lineno}: {exc.msg}); record it again"]
    from deepdiff import DeepDiff  # imported only when there is a difference to explain
    from deepdiff.helper import notpresent

    found = []
    for items in DeepDiff(old, new, verbose_level=2).tree.values():
        for item in items:
            if item.t1 is notpresent:
                text = f"added {_show(item.t2)}"
            elif item.t2 is notpresent:
                text = f"removed {_show(item.t1)}"
            else:
                text = f"{_show(item.t1)} -> {_show(item.t2)}"
            found.append((_path_key(item.path(output_format="list")), f"{item.path()}: {text}"))
    if not found:
        return ["same values, different text (key order or layout); record it again"]
    found.sort(key=lambda pair: pair[0])
    lines = [line for _, line in found[:_MAX_LINES]]
    if len(found) > _MAX_LINES:
        lines.append(f"... and {len(found) - _MAX_LINES} more differences")
    return lines


# -- record and check --------------------------------------------------------------------------


def require_deterministic(target: Target, project: Path) -> None:
    """Refuse an agent whose results may change from run to run (an LLM)."""
    if not target.points:
        return
    environment = load_environment(target.env, project)
    resolved = resolve_agent(target.points[0].agent, environment, project)
    if not resolved.deterministic:
        raise BaselineError(
            "agent_not_deterministic",
            f'agent "{target.agent_label}" is not deterministic (e.g. an LLM), so its results '
            "cannot be a baseline; record a scripted agent, or replay a recorded run of it: "
            "agent=replay agent.trace=.silo/runs/<run>/trace.jsonl",
        )
    for point in target.points:  # a conversational task's user must be scripted too
        user = resolve_user(point.user) if point.user is not None else None
        if user is not None and not user.deterministic:
            raise BaselineError(
                "user_not_deterministic",
                f'user "{user.label}" of {point.task} is not deterministic (e.g. an LLM), so its '
                "conversations cannot be a baseline; record with user=scripted",
            )


def kinds_of(target: Target, task: str) -> tuple[str, ...]:
    """The kinds pinned for ``task``: the target's, plus ``instance`` and ``judgement``.

    ``instance`` for a template's instance; ``judgement`` for a task with a rubric when the
    target has judges.
    """
    judged = (JUDGEMENT,) if target.judges and task.split("#")[0] in target.judged else ()
    return (*target.kinds, *((INSTANCE,) if "#" in task else ()), *judged)


def _documents_of(
    point: Point, kinds: Sequence[str], project: Path, judges: Sequence[Judge]
) -> dict[str, JSON] | str:
    """The golden documents of one in-memory rollout, or the message of why it could not start."""
    try:
        rollout = run_point(point, project_dir=project, runs_dir=None)
    except SiloError as exc:
        return f"{LABELS[start_outcome(exc)]}: {exc.message}"
    outcome, reason = rollout_outcome(rollout.run, rollout.result)
    if reason is not None:  # the environment's or the endpoint's failure: not a golden
        return f"{LABELS[outcome]}: {reason}"
    judgement: JSON = None
    if JUDGEMENT in kinds:
        task = judged_task(rollout.task, load_environment(point.env, project))
        events = (json.loads(line) for line in rollout.trace_lines)
        material = material_from(events, rollout.state_diff)
        judgement = judgement_of(task, judges, material, float(rollout.result["reward"]))
        if judgement["judgeErrors"]:  # the rubric's or the judge's failure: not a golden
            return f"judge error: {judgement['judgeErrors'][0]}"
    values: dict[str, JSON] = {
        "result": rollout.result,
        "state-diff": rollout.state_diff,
        STATE_CHANGES: rollout.state_changes,
        JUDGEMENT: judgement,
        INSTANCE: {
            "template": rollout.task.template_id,
            "variant": rollout.task.variant,
            "params": dict(rollout.task.params),
        },
    }
    if TOOL_EVENTS in kinds:
        values[TOOL_EVENTS] = tool_events(rollout.trace_lines)
    return {kind: values[kind] for kind in kinds}


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:  # a folder where the golden file should be, unreadable: one line
        raise unwritable(path, exc, "the golden file", "then record again") from None


def _explained(
    status: str, here: tuple[str, str, str], kind: str, old: bytes, new: Any
) -> GoldenOutcome:
    text = old.decode("utf-8", "replace")
    lines = explain(text, new)
    if kind == STATE_CHANGES and not lines[0].startswith("the golden is not valid JSON"):
        lines = explain_changes(json.loads(text), new, _MAX_LINES) or lines
    return GoldenOutcome(status, *here, (f"{kind}.json",), tuple(lines))


def _stale(target: Target, project: Path, baselines_dir: Path) -> Iterator[GoldenOutcome]:
    folder = target.folder(baselines_dir)
    if not folder.is_dir():
        return
    environment = load_environment(target.env, project)
    known = {*environment.tasks, *_pinned_instances(environment, folder)}
    found: dict[str, list[str]] = {}  # task -> its golden files
    for path in sorted(folder.glob("*.json")):
        for kind in _ALL_KINDS:
            if path.name.endswith(f".{kind}.json"):
                found.setdefault(path.name[: -len(kind) - 6], []).append(f"{kind}.json")
    for task, files in found.items():
        here = (target.env, target.agent_label, task)
        if task not in known:
            if any(p in ("all", task) or fnmatch.fnmatchcase(task, p) for p in target.scope):
                yield GoldenOutcome("STALE", *here, note="task no longer exists")
        elif not target.tool_events and f"{TOOL_EVENTS}.json" in files:
            yield GoldenOutcome("STALE", *here, (f"{TOOL_EVENTS}.json",), note="tool_events is off")
        elif not target.state_changes and f"{STATE_CHANGES}.json" in files:
            note = "state_changes is off"
            yield GoldenOutcome("STALE", *here, (f"{STATE_CHANGES}.json",), note=note)
        elif not target.judges and f"{JUDGEMENT}.json" in files:
            yield GoldenOutcome("STALE", *here, (f"{JUDGEMENT}.json",), note="judge is off")


def _pinned_instances(environment: Any, folder: Path) -> set[str]:
    """The golden instance ids (``TASK-010#3``) whose template still exists."""
    return {
        path.name.split(".", 1)[0]
        for path in folder.glob("*#*.json")
        if path.name.split("#", 1)[0] in environment.templates
    }


def check_goldens(
    target: Target, project: Path, baselines_dir: Path, max_concurrency: int = 1
) -> Iterator[GoldenOutcome]:
    """Rerun every point and compare with its goldens byte for byte (see the module docstring).

    ``max_concurrency`` rollouts run at once; outcomes keep the points' order.
    """
    folder = target.folder(baselines_dir)
    goldens_of = {
        p.task: {k: _read(folder / f"{p.task}.{k}.json") for k in kinds_of(target, p.task)}
        for p in target.points
    }
    rerun = [p for p in target.points if any(v is not None for v in goldens_of[p.task].values())]
    reruns = ordered_map(
        lambda p: _documents_of(p, kinds_of(target, p.task), project, target.judges),
        rerun,
        max_concurrency,
    )
    for point in target.points:
        here = (target.env, target.agent_label, point.task)
        goldens = goldens_of[point.task]
        if all(text is None for text in goldens.values()):
            yield GoldenOutcome("MISSING", *here)
            continue
        documents = next(reruns)
        if isinstance(documents, str):
            yield GoldenOutcome("ERROR", *here, lines=(documents,))
            continue
        missing, drifted = [], False
        for kind, value in documents.items():
            golden = goldens[kind]
            if golden is None:
                missing.append(f"{kind}.json")
            elif golden != pretty(value).encode("utf-8"):
                drifted = True
                yield _explained("DRIFT", here, kind, golden, value)
        if missing:
            yield GoldenOutcome("MISSING", *here, tuple(missing))
        elif not drifted:
            yield GoldenOutcome("ok", *here)
    yield from _stale(target, project, baselines_dir)


def record_goldens(target: Target, project: Path, baselines_dir: Path) -> Iterator[GoldenOutcome]:
    """Run every point and write the goldens whose bytes change (see the module docstring)."""
    folder = target.folder(baselines_dir)
    for point in target.points:
        here = (target.env, target.agent_label, point.task)
        documents = _documents_of(point, kinds_of(target, point.task), project, target.judges)
        if isinstance(documents, str):
            yield GoldenOutcome("ERROR", *here, lines=(documents,))
            continue
        created: list[str] = []
        changed: list[GoldenOutcome] = []
        for kind, value in documents.items():
            path = folder / f"{point.task}.{kind}.json"
            text = pretty(value)
            golden = _read(path)
            if golden == text.encode("utf-8"):
                continue  # identical bytes: the file is not touched
            try:
                folder.mkdir(parents=True, exist_ok=True)
                write_text_atomic(path, text)
            except OSError as exc:
                raise unwritable(folder, exc, "the baselines folder", "then record again") from None
            if golden is None:
                created.append(f"{kind}.json")
            else:
                changed.append(_explained("changed", here, kind, golden, value))
        if created:
            files = () if len(created) == len(documents) else tuple(created)
            yield GoldenOutcome("created", *here, files)
        yield from changed
        if not created and not changed:
            yield GoldenOutcome("same", *here)
    yield from _stale(target, project, baselines_dir)
