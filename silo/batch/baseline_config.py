"""The committed baselines config: which environment x agent pairs are pinned.

Contract: ``<project>/baselines/silo-baselines.yaml`` holds ``baselines:``, a list of entries
``{env, agent, tasks?, tool_events?, state_changes?, overrides?}`` (``state_changes`` defaults
to true: the field-level changes are pinned unless an entry opts out). :func:`load_entries` reads and checks it
(one-line :class:`SiloError` per problem, naming the entry: an unknown key at the top or in
an entry, with the closest known one; an entry listed twice); :func:`select_entries` narrows the
entries to a command line's ``env=``/``agent=`` choice. :func:`entries_from_text` checks a
config's text the same way (:mod:`silo.batch.baseline_record` checks an edit before writing it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from silo.errors import BaselineError

__all__ = [
    "CONFIG_NAME",
    "Entry",
    "config_path",
    "entries_from_text",
    "load_entries",
    "select_entries",
]

CONFIG_NAME = "silo-baselines.yaml"
_TOP_KEYS = ("baselines",)
_ENTRY_KEYS = ("env", "agent", "tasks", "tool_events", "state_changes", "overrides")


@dataclass(frozen=True)
class Entry:
    """One line of the baselines config: an environment × agent pair to pin."""

    env: str | None
    agent: str | None
    tasks: tuple[str, ...] = ()  # ids or globs; empty = every task
    tool_events: bool = False
    overrides: tuple[str, ...] = ()  # extra Hydra overrides (e.g. agent.trace=..., budget=quick)
    state_changes: bool = True  # pin state-changes.json too


def config_path(baselines_dir: Path) -> Path:
    """Where the committed baselines config lives in ``baselines_dir``."""
    return baselines_dir / CONFIG_NAME


def _words(value: Any, where: str, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) and v for v in items):
        raise BaselineError("baselines_config_invalid", f"{where}: {key} must be a list of strings")
    return tuple(items)


def _entry(raw: Any, where: str) -> Entry:
    if not isinstance(raw, Mapping):
        raise BaselineError(
            "baselines_config_invalid",
            f"{where}: expected a mapping like {{env: crm, agent: solver}}",
        )
    _refuse_unknown(sorted(map(str, raw)), _ENTRY_KEYS, where)
    for key in ("env", "agent"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise BaselineError("baselines_config_invalid", f"{where}: {key} must name one {key}")
    flags = {}
    for key, default in (("tool_events", False), ("state_changes", True)):
        flags[key] = raw.get(key, default)
        if not isinstance(flags[key], bool):
            raise BaselineError("baselines_config_invalid", f"{where}: {key} must be true or false")
    return Entry(
        raw["env"],
        raw["agent"],
        _words(raw.get("tasks"), where, "tasks"),
        flags["tool_events"],
        _words(raw.get("overrides"), where, "overrides"),
        flags["state_changes"],
    )


def load_entries(path: Path) -> list[Entry] | None:
    """The entries of the baselines config at ``path``; ``None`` when the file does not exist."""
    if not path.is_file():
        return None
    return entries_from_text(path.read_text(encoding="utf-8"), path.name)


def entries_from_text(text: str, name: str = CONFIG_NAME) -> list[Entry]:
    """The entries of a baselines config's ``text`` (``name`` is the file's name in errors)."""
    import yaml

    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise BaselineError(
            "baselines_config_invalid", f"{name} is not valid YAML{where}: {problem}"
        ) from None
    entries = raw.get("baselines") if isinstance(raw, Mapping) else None
    if not isinstance(entries, list):
        raise BaselineError(
            "baselines_config_invalid",
            f"{name} needs a 'baselines:' list, e.g. - {{env: crm, agent: solver}}",
        )
    assert isinstance(raw, Mapping)
    _refuse_unknown(sorted(map(str, raw)), _TOP_KEYS, name)
    loaded = [_entry(item, f"{name} baselines[{i}]") for i, item in enumerate(entries)]
    seen: dict[Entry, int] = {}
    for i, entry in enumerate(loaded):
        first = seen.setdefault(entry, i)
        if first != i:  # it would run, and be checked, twice
            raise BaselineError(
                "baselines_config_invalid",
                f"{name} baselines[{i}] repeats baselines[{first}] "
                f"({entry.env} x {entry.agent}); delete one",
            )
    return loaded


def _refuse_unknown(keys: Sequence[str], known: Sequence[str], where: str) -> None:
    """One line naming the first of ``keys`` not in ``known``, with the closest known key."""
    unknown = [k for k in keys if k not in known]
    if not unknown:
        return
    import difflib

    close = difflib.get_close_matches(unknown[0], known, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise BaselineError(
        "baselines_config_invalid",
        f"{where}: unknown key {unknown[0]!r}; {hint}known: {', '.join(known)}",
    )


def select_entries(
    entries: Iterable[Entry], envs: Sequence[str] = (), agents: Sequence[str] = ()
) -> list[Entry]:
    """The entries matching the chosen envs and agents; a pair no entry covers gets a bare entry.

    With no choice at all, every entry. A bare entry leaves an unchosen side to the config's
    default (``Entry(env, None)`` uses the default agent).
    """
    every = list(entries)
    if not envs and not agents:
        return every
    chosen = [e for e in every if (not envs or e.env in envs) and (not agents or e.agent in agents)]
    none: list[str | None] = [None]
    for env in [*envs] or none:
        for agent in [*agents] or none:
            if not any(
                (env is None or e.env == env) and (agent is None or e.agent == agent)
                for e in chosen
            ):
                chosen.append(Entry(env, agent))
    return chosen
