"""Worlds: fresh state for every rollout at the cost of what the rollout touches.

Contract: :meth:`WorldPool.acquire` hands out a :class:`World` whose ``state`` equals a fresh
``create_state()`` and whose ``tools`` are bound to it. During the rollout the journal saves the
pre-image of every row (a value under a top-level dict) or log (a top-level list) before its
first change. From that the world gives, without copying the untouched world:

* :meth:`World.initial` — the state as it was when the rollout began (read-only);
* :meth:`World.diff` — the ``state-diff.json`` document;
* :meth:`World.reset` — the rollback that makes the world fresh again for the next rollout.

A state that is not made of JSON values falls back to a deep-copied snapshot and a fresh
``create_state()`` per rollout: slower, equally correct.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import Any

from silo._diff import ABSENT, diff_states, diff_value, row_keys
from silo._jsonio import canonical
from silo._tracked import (
    APPEND,
    COLL,
    DELETE,
    LIST,
    ROOT,
    NotTrackable,
    TrackedDict,
    track,
    track_root,
    track_top,
)
from silo.tools import Tool

__all__ = ["World", "WorldPool", "StateMutationError"]

_IDLE, _ACTIVE, _FROZEN = 0, 1, 2


class StateMutationError(RuntimeError):
    """Raised when a verifier (or anything after the rollout) tries to change the world."""


class _Rows:
    """Pre-images of the touched rows of one top-level dict."""

    __slots__ = ("pre", "keys_before")

    def __init__(self) -> None:
        self.pre: dict[Any, Any] = {}
        self.keys_before: list[Any] | None = None  # original key order, once one was deleted


class _Log:
    """A touched top-level list: appended to only (``prefix``) or saved whole (``pre``)."""

    __slots__ = ("prefix", "pre")

    def __init__(self, prefix: int, pre: list[Any] | None) -> None:
        self.prefix = prefix
        self.pre = pre


class _Whole:
    """A top-level key that was replaced or deleted: its original value (or ABSENT)."""

    __slots__ = ("pre",)

    def __init__(self, pre: Any) -> None:
        self.pre = pre


class _ReadOnly:
    """The journal of the initial-world views: any change is refused."""

    __slots__ = ()

    def touch(self, top: Any, row: Any, key: Any, op: Any) -> None:
        raise StateMutationError("the initial world is read-only; verifiers must not modify it")


_READ_ONLY = _ReadOnly()


class _Journal:
    __slots__ = ("root", "mode", "dirty", "recs", "root_keys", "shadows")

    def __init__(self) -> None:
        self.root: TrackedDict = TrackedDict()
        self.mode = _IDLE
        self.dirty = False
        self.recs: dict[Any, _Rows | _Log | _Whole] = {}
        self.root_keys: list[Any] | None = None
        # Per collection, a read-only dict equal to it as it was when the rollout began, kept
        # across rollouts and patched with the touched rows' pre-images only, so initial() and
        # rollback cost what the rollout touched, not the size of the collection.
        self.shadows: dict[Any, tuple[Any, TrackedDict]] = {}

    def touch(self, top: Any, row: Any, key: Any, op: Any) -> None:
        if self.mode != _ACTIVE:
            if self.mode == _FROZEN:
                raise StateMutationError(
                    "the world is read-only after the rollout; verifiers must not modify state"
                )
            self.dirty = True
            return
        if top is ROOT:
            self._touch_top(key)
        elif row is COLL:
            self._touch_row(top, key, op)
        elif row is LIST:
            self._touch_log(top, key, op)
        else:
            self._touch_row(top, row, None)

    def _touch_row(self, top: Any, row: Any, op: Any) -> None:
        rec = self.recs.get(top)
        if rec is None:
            rec = self.recs[top] = _Rows()
        elif type(rec) is not _Rows:
            return
        coll = dict.__getitem__(self.root, top)
        if row not in rec.pre:
            rec.pre[row] = track(coll[row], self, top, row) if row in coll else ABSENT
        if op is DELETE and rec.keys_before is None and rec.pre[row] is not ABSENT:
            rec.keys_before = [k for k in coll if rec.pre.get(k, k) is not ABSENT]

    def _touch_log(self, top: Any, container: Any, op: Any) -> None:
        rec = self.recs.get(top)
        if type(rec) is _Whole:
            return
        log = dict.__getitem__(self.root, top)
        appending = op is APPEND and container is log
        if rec is None:
            self.recs[top] = (
                _Log(len(log), None) if appending else _Log(0, track(log, self, top, LIST))
            )
        elif isinstance(rec, _Log) and rec.pre is None and not appending:
            rec.pre = track(log[: rec.prefix], self, top, LIST)

    def _touch_top(self, key: Any) -> None:
        if self.root_keys is None:
            self.root_keys = list(self.root)
        found = self.recs.get(key)
        if type(found) is _Whole:
            return
        if found is None:
            pre = track_top(key, self.root[key], self) if key in self.root else ABSENT
        else:
            pre = track_top(key, self.initial_value(key, found), self)
        self.recs[key] = _Whole(pre)

    def initial_value(self, top: Any, rec: _Rows | _Log | _Whole) -> Any:
        """The value ``top`` had when the rollout began (sharing untouched rows)."""
        if type(rec) is _Whole:
            return rec.pre
        current = dict.__getitem__(self.root, top)
        if type(rec) is _Log:
            return (
                list(rec.pre)
                if rec.pre is not None
                else list.__getitem__(current, slice(0, rec.prefix))
            )
        assert type(rec) is _Rows
        pre = rec.pre
        found = self.shadows.get(top)
        if found is not None and found[0] is current:
            shadow = found[1]
            for key, before in pre.items():
                if before is not ABSENT:
                    dict.__setitem__(shadow, key, before)
            return shadow
        if rec.keys_before is not None:
            value = {k: pre[k] if k in pre else current[k] for k in rec.keys_before}
        else:
            value = dict(current)
            for key, before in pre.items():
                if before is ABSENT:
                    value.pop(key, None)
                else:
                    value[key] = before
        shadow = TrackedDict()
        shadow._j, shadow._top, shadow._row = _READ_ONLY, top, COLL
        dict.update(shadow, value)
        self.shadows[top] = (current, shadow)
        return shadow

    def initial(self) -> dict[Any, Any]:
        if self.root_keys is None:
            state = dict(self.root)
            for top, rec in self.recs.items():
                state[top] = self.initial_value(top, rec)
            return state
        state = {}
        for top in self.root_keys:
            found = self.recs.get(top)
            value = self.root[top] if found is None else self.initial_value(top, found)
            if value is not ABSENT:
                state[top] = value
        return state

    def rollback(self) -> None:
        self.mode = _IDLE
        root = self.root
        for top, rec in self.recs.items():
            if type(rec) is _Whole:
                self.shadows.pop(top, None)  # a new collection object: its view is rebuilt
                if rec.pre is ABSENT:
                    dict.pop(root, top, None)
                else:
                    dict.__setitem__(root, top, rec.pre)
            elif type(rec) is _Rows:
                coll = dict.__getitem__(root, top)
                found = self.shadows.get(top)
                shadow = found[1] if found is not None and found[0] is coll else None
                for key, before in rec.pre.items():
                    if before is ABSENT:
                        dict.pop(coll, key, None)
                    else:
                        dict.__setitem__(coll, key, before)
                        if shadow is not None:
                            dict.__setitem__(shadow, key, before)
                if rec.keys_before is not None:
                    items = [(k, dict.__getitem__(coll, k)) for k in rec.keys_before]
                    dict.clear(coll)
                    dict.update(coll, items)
            elif isinstance(rec, _Log):
                log = dict.__getitem__(root, top)
                if rec.pre is not None:
                    list.__setitem__(log, slice(None), rec.pre)
                else:
                    list.__delitem__(log, slice(rec.prefix, None))
        if self.root_keys is not None:
            items = [(k, dict.__getitem__(root, k)) for k in self.root_keys]
            dict.clear(root)
            dict.update(root, items)
        self.recs.clear()
        self.root_keys = None


class World:
    """One world: ``state``, the ``tools`` bound to it, and its journal."""

    def __init__(
        self, create_state: Callable[[], Any], bind_tools: Callable[[Any], list[Tool]]
    ) -> None:
        raw = create_state()
        self._journal: _Journal | None = None
        self._snapshot: Any = None
        if type(raw) is dict:
            journal = _Journal()
            try:
                journal.root = track_root(raw, journal)
                self._journal = journal
                raw = journal.root
            except NotTrackable:
                self._journal = None
        self.state: Any = raw
        if self._journal is None:
            self._snapshot = copy.deepcopy(raw)
        self._positions: dict[Any, tuple[Any, dict[Any, int]]] = {}
        self._logs: dict[Any, tuple[Any, int, frozenset[Any]]] = {}
        tools = list(bind_tools(self.state))
        self.tools: dict[str, Tool] = {}
        for item in tools:
            self.tools[getattr(item, "name", "")] = item
        self.tool_list = tools
        self.tools_json: tuple[str, bytes, list[Any]] | None = None  # see rollout._tools_json

    @property
    def tracked(self) -> bool:
        return self._journal is not None

    def begin(self) -> None:
        if self._journal is not None:
            self._journal.mode = _ACTIVE

    def freeze(self) -> None:
        """From now on the world is read-only (verifiers run against it)."""
        if self._journal is not None:
            self._journal.mode = _FROZEN

    def initial(self) -> Any:
        if self._journal is None:
            return self._snapshot
        return self._journal.initial()

    def diff(self) -> dict[str, Any]:
        journal = self._journal
        if journal is None:
            return diff_states(self._snapshot, self.state)
        scalars: list[dict[str, Any]] = []
        collections: dict[str, Any] = {}
        root = journal.root
        order = list(root) + [k for k in (journal.root_keys or ()) if k not in root]
        for top in order:
            rec = journal.recs.get(top)
            if rec is None:
                continue
            if type(rec) is _Rows:
                entry = self._diff_rows(top, rec)
                if entry is not None:
                    collections[top] = entry
            elif type(rec) is _Log and rec.pre is None:
                log = dict.__getitem__(root, top)
                added = row_keys(list.__getitem__(log, slice(rec.prefix, None)), rec.prefix)
                if not added:
                    continue
                fresh = set(added)
                if len(fresh) == len(added) and fresh.isdisjoint(
                    self._log_keys(top, log, rec.prefix)
                ):
                    collections[top] = {"added": added, "removed": [], "changed": []}
                else:  # an appended row reuses a name: the full comparison decides
                    before = list.__getitem__(log, slice(0, rec.prefix))
                    diff_value(top, before, log, scalars, collections)
            else:
                before = journal.initial_value(top, rec)
                diff_value(top, before, root.get(top, ABSENT), scalars, collections)
        return {"scalars": scalars, "collections": collections}

    def _diff_rows(self, top: Any, rec: _Rows) -> dict[str, list[Any]] | None:
        coll = dict.__getitem__(self._journal.root, top)  # type: ignore[union-attr]
        added, removed, changed = [], [], []
        for key, before in rec.pre.items():
            if before is ABSENT:
                if key in coll:
                    added.append(key)
            elif key not in coll:
                removed.append(key)
            elif canonical(before) != canonical(coll[key]):
                changed.append(key)
        if not (added or removed or changed):
            return None
        if len(added) > 1:
            wanted, found = set(added), []
            for key in reversed(coll):
                if key in wanted:
                    found.append(key)
                    if len(found) == len(wanted):
                        break
            added = found[::-1]
        if len(removed) > 1 or len(changed) > 1:
            position = self._original_positions(top, coll, rec)
            removed.sort(key=position.__getitem__)
            changed.sort(key=position.__getitem__)
        return {"added": added, "removed": removed, "changed": changed}

    def _log_keys(self, top: Any, log: Any, prefix: int) -> frozenset[Any]:
        """The row names of a log as every rollout begins it (its first ``prefix`` rows).

        Computed once per world: rollback restores the log, so they never change.
        """
        cached = self._logs.get(top)
        if cached is None or cached[0] is not log or cached[1] != prefix:
            names = frozenset(row_keys(list.__getitem__(log, slice(0, prefix))))
            cached = self._logs[top] = (log, prefix, names)
        return cached[2]

    def _original_positions(self, top: Any, coll: Any, rec: _Rows) -> dict[Any, int]:
        if rec.keys_before is not None:
            return {k: i for i, k in enumerate(rec.keys_before)}
        cached = self._positions.get(top)
        if cached is None or cached[0] is not coll:
            # Valid across rollouts: rollback restores every collection's key order.
            cached = (coll, {k: i for i, k in enumerate(coll)})
            self._positions[top] = cached
        positions = cached[1]
        missing = [k for k in rec.pre if rec.pre[k] is not ABSENT and k not in positions]
        if missing:
            positions = {k: i for i, k in enumerate(coll)}
            self._positions[top] = (coll, positions)
        return positions

    def reset(self) -> bool:
        """Roll back to the fresh world; False when this world cannot be reused."""
        journal = self._journal
        if journal is None:
            return False
        try:
            journal.rollback()
        except Exception:
            return False
        return not journal.dirty


class WorldPool:
    """Fresh worlds on demand, reusing rolled-back ones (thread-safe)."""

    def __init__(
        self,
        create_state: Callable[[], Any],
        bind_tools: Callable[[Any], list[Tool]],
        name: str = "",
    ) -> None:
        self._create_state = create_state
        self._bind_tools = bind_tools
        self._free: list[World] = []
        self._lock = threading.Lock()
        self.name = name

    def acquire(self) -> World:
        with self._lock:
            world = self._free.pop() if self._free else None
        if world is None:
            world = World(self._create_state, self._bind_tools)
        world.begin()
        return world

    def release(self, world: World, reusable: bool = True) -> None:
        if reusable and world.reset():
            with self._lock:
                self._free.append(world)

    def tools(self) -> list[Tool]:
        world = self.acquire()
        try:
            return list(world.tool_list)
        finally:
            self.release(world)
