"""Record ids named by task instructions, checked against the initial world.

Contract: :func:`check_task_ids` warns (``task_unknown_id``) when an instruction names a record
id that the initial world does not contain. What counts as a record id comes from the
environment, never from the framework: the shapes of the ids in its data — the keys of
top-level object collections and the string ``id`` of top-level array rows, a digit run read
as "any digits" (``OPP-005`` gives ``OPP-<digits>``) — plus the regular expressions of the
manifest's ``idPatterns``. An environment whose ids have no digits and no ``idPatterns`` gets
no such warnings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from silo.loading.environment import EnvironmentParts

if TYPE_CHECKING:
    from silo.validate.report import Report

__all__ = ["check_task_ids", "id_pattern", "record_ids"]

_DIGITS = re.compile(r"\d+")
_SHAPED = re.compile(r"[A-Za-z][\w-]*\d")  # starts with a letter and holds a digit: not a date


def record_ids(state: Any) -> Iterator[str]:
    """The ids of the state's records: keys of top-level objects, ``id`` of top-level rows."""
    if not isinstance(state, dict):
        return
    for collection in state.values():
        if isinstance(collection, dict):
            yield from (key for key in collection if isinstance(key, str))
        elif isinstance(collection, list):
            for row in collection:
                if isinstance(row, dict) and isinstance(row.get("id"), str):
                    yield row["id"]


def id_pattern(ids: Iterator[str], declared: tuple[str, ...] = ()) -> re.Pattern[str] | None:
    """One pattern for every id shape in ``ids`` and every ``declared`` regex (None: no shape)."""
    shapes = {
        r"\d+".join(re.escape(part) for part in _DIGITS.split(record))
        for record in ids
        if _SHAPED.match(record)
    }
    alternatives = sorted(shapes | set(declared), key=lambda text: (-len(text), text))
    if not alternatives:
        return None
    return re.compile(r"(?<![\w-])(?:" + "|".join(alternatives) + r")(?![\w-])")


def check_task_ids(parts: EnvironmentParts, report: Report) -> None:
    """Warn when an instruction names a record id the initial world lacks.

    Peer benchmarks shipped tasks about records that did not exist; this catches the typo or
    the stale id before anyone evaluates on it.
    """
    if parts.create_state is None or "create_state_failed" in report.codes():
        return
    try:
        state = parts.create_state()
        world = json.dumps(state, default=str)
    except Exception:  # create_state() problems are reported by check_runtime
        return
    pattern = id_pattern(record_ids(state), parts.manifest.id_patterns)
    if pattern is None:
        return
    for task in parts.tasks.values():
        named = dict.fromkeys(match.group(0) for match in pattern.finditer(task.instruction))
        missing = [record for record in named if f'"{record}"' not in world]
        if missing:
            report.warn(
                "task_unknown_id",
                f"{task.source}: the instruction names {', '.join(missing)}, which the initial "
                "world does not contain; fix the id or the data",
            )
