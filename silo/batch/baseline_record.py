"""Writing what ``silo-baseline record`` recorded into the committed baselines config.

Contract: :func:`recorded_entry` is the :class:`Entry` a record ran (its environment and
agent, the tasks it was narrowed to, and the config entry's overrides with the command line's
on top, one per key). :func:`remember_entry` creates or extends
``baselines/silo-baselines.yaml`` so that it lists that entry, and says what it did:
``added`` (appended as one line, the file's comments kept; rewritten when the list is not
last in block style), ``updated`` (the config's entry that ran, whose overrides or tasks
differed, replaced; the file is rewritten) or ``None`` when the config already lists it. ``silo-baseline check`` with no arguments then
reruns exactly what was recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from silo.artifacts.atomic import write_text_atomic
from silo.batch.baseline_config import Entry, entries_from_text, load_entries
from silo.errors import SiloError
from silo.json_types import JSON

__all__ = ["entry_document", "recorded_entry", "remember_entry"]

_HEADER = (
    "# Environment x agent pairs pinned by silo-baseline (see docs/baselines.md).\n"
    "# silo-baseline record adds what it records; silo-baseline check reruns them all.\n"
)


def _key(word: str) -> str:
    return word.partition("=")[0].lstrip("+~")


def recorded_entry(
    entry: Entry,
    listed: bool,
    named: tuple[str, str],
    tasks: Sequence[str],
    overrides: Sequence[str],
) -> Entry:
    """The entry a record ran: ``entry`` with its env and agent ``named``, ``overrides`` on top.

    ``listed`` says whether ``entry`` is one of the config's; ``tasks`` are the command line's
    ``task=`` words (none: the entry's own scope). A listed entry of every task stays so; one
    narrowed to some tasks grows by those recorded; a new one lists what was recorded.
    """
    given = {_key(word) for word in overrides}
    kept = [word for word in entry.overrides if _key(word) not in given]
    scope = entry.tasks
    if tasks and (entry.tasks or not listed):
        scope = tuple(dict.fromkeys([*entry.tasks, *tasks]))
    env, agent = named
    return replace(entry, env=env, agent=agent, tasks=scope, overrides=(*kept, *overrides))


def entry_document(entry: Entry) -> dict[str, JSON]:
    """The entry as the config writes it: ``env`` and ``agent``, then only non-default keys."""
    document: dict[str, JSON] = {"env": entry.env, "agent": entry.agent}
    if entry.tasks:
        document["tasks"] = list(entry.tasks)
    if entry.tool_events:
        document["tool_events"] = True
    if not entry.state_changes:
        document["state_changes"] = False
    if entry.overrides:
        document["overrides"] = list(entry.overrides)
    return document


def _line(entry: Entry) -> str:
    import yaml

    flow: str = yaml.safe_dump(
        entry_document(entry), default_flow_style=True, sort_keys=False, width=10_000
    )
    return flow.strip()


def remember_entry(path: Path, entry: Entry, listed_as: Entry | None) -> tuple[str, str] | None:
    """Make the config at ``path`` list ``entry``; what was done and the entry's line, or None.

    ``listed_as`` is the config's entry the record ran (None: a pair it does not list), which
    ``entry`` replaces when they differ.

    Raises:
        BaselineError: the existing config does not load (its one line names the problem).
    """
    entries = load_entries(path)
    line = _line(entry)
    if entries is None:
        write_text_atomic(path, f"{_HEADER}baselines:\n  - {line}\n")
        return "added", line
    if entry in entries:
        return None
    if listed_as in entries:
        updated, action = [entry if e == listed_as else e for e in entries], "updated"
    else:
        text = path.read_text(encoding="utf-8")
        appended = f"{text.rstrip(chr(10))}\n  - {line}\n"
        try:
            fits = entries_from_text(appended, path.name) == [*entries, entry]
        except SiloError:
            fits = False
        if fits:  # a block list last in the file: appended, its comments kept
            write_text_atomic(path, appended)
            return "added", line
        updated, action = [*entries, entry], "added"
    body = "".join(f"  - {_line(e)}\n" for e in updated)
    write_text_atomic(path, f"{_HEADER}baselines:\n{body}")
    return action, line
