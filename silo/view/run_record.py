"""One run folder as one row of the site's index: the few facts a person filters and sorts by.

Contract: :func:`read_record` reads a run folder's ``run.json`` and ``result.json`` (and, for a
run that never finished, its trace through :func:`silo.view.run_page.load_run`) and returns a
:class:`RunRecord`. Unknown keys are ignored (a ``schemaVersion``, an agent ``identity``), and
a damaged or missing file gives ``None`` fields, never an exception: the index must list every
run, including the one that broke. :func:`stamp` fingerprints the artifacts (name, size,
modification time) so that the site builder re-renders a run only when it changed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from silo.artifacts.run_reader import read_object
from silo.json_types import JSON
from silo.view.html import mapping
from silo.view.run_page import RUN_FILES, load_run, verdict

__all__ = ["ARTIFACT_FILES", "RunRecord", "read_record", "record_from_json", "stamp"]

# judgement.json is written after the run (judge=): judging a run renders its page anew.
ARTIFACT_FILES = (*RUN_FILES, "state-changes.json", "judgement.json")
_TOKEN_KEYS = ("totalTokens", "total_tokens", "tokens")


@dataclass(frozen=True)
class RunRecord:
    """What the index shows of a run; ``page`` is its page's path relative to the site root."""

    page: str
    run: str
    group: str
    environment: str
    task: str
    agent: str
    model: str
    outcome: str
    termination: str
    reward: float | None
    tool_calls: int | None
    tokens: int | None
    duration_ms: float | None
    started_at: str

    def to_json(self) -> dict[str, JSON]:
        """The record as a JSON object, as stored in the site manifest and the index data."""
        return asdict(self)


def record_from_json(value: dict[str, JSON]) -> RunRecord | None:
    """A record stored by :meth:`RunRecord.to_json`; ``None`` when it has other fields."""
    try:
        return RunRecord(**value)
    except TypeError:  # a manifest written by another version: the run is read again
        return None


def stamp(folder: Path) -> list[list[JSON]]:
    """Name, size and modification time of each artifact present: changes when a run does."""
    found = []
    for name in ARTIFACT_FILES:
        try:
            info = (folder / name).stat()
        except OSError:
            continue
        found.append([name, info.st_size, info.st_mtime_ns])
    return found


def _number(value: JSON) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return float(value) if ok else None


def _count(value: JSON) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _tokens(usage: dict[str, JSON]) -> int | None:
    for key in _TOKEN_KEYS:
        if _count(usage.get(key)) is not None:
            return int(usage[key])
    parts = [v for v in usage.values() if _count(v) is not None]
    return sum(parts) if parts else None


def _model(run: dict[str, JSON]) -> str:
    """The model an agent ran: its ``identity`` when it has one, else the agent's config."""
    identity = mapping(run.get("identity"))
    model = identity.get("model") or mapping(run.get("config")).get("model")
    return str(model) if model else ""


def read_record(folder: Path, page: str, group: str) -> RunRecord:
    """The index row of the run in ``folder``; its page will be at ``page``."""
    run = read_object(folder / "run.json") or {}
    result = read_object(folder / "result.json") or {}
    passed = result.get("passed")
    outcome = "PASS" if passed is True else "FAIL" if passed is False else ""
    termination = result.get("terminationReason") or run.get("terminationReason")
    task, agent = run.get("taskId"), run.get("agent")
    usage = mapping(run.get("usage"))
    if not (run and result):  # unfinished: what the trace recorded
        loaded = load_run(folder)
        start, end = loaded.event("run_start"), loaded.event("run_end")
        outcome = outcome or verdict(loaded)
        termination = termination or end.get("terminationReason")
        task = task or mapping(start.get("task")).get("id")
        agent = agent or start.get("agent")
        run = {**start, **run}
    return RunRecord(
        page=page,
        run=folder.name,
        group=group,
        environment=str(run.get("environment") or ""),
        task=str(task or ""),
        agent=str(agent or ""),
        model=_model(run),
        outcome=outcome or "UNFINISHED",
        termination=str(termination or ""),
        reward=_number(result.get("reward")),
        tool_calls=_count(result.get("toolCalls", run.get("toolCallCount"))),
        tokens=_tokens(usage),
        duration_ms=_number(run.get("durationMs")),
        started_at=str(run.get("startedAt") or run.get("at") or ""),
    )
