"""The journal of a world: pre-images of what a rollout touched, and the rollback.

Contract: a :class:`Journal` is told (by the tracked containers of :mod:`silo.world.tracked`) before
every change. While ``ACTIVE`` it saves, on first touch, the pre-image of the row (a value under
a top-level dict), of the log (a top-level list: only its length while it is merely appended
to) or of the whole top-level value that changes. From those it rebuilds the initial world as a
read-only view sharing every untouched row, and :meth:`Journal.rollback` restores the world in
place, key order included. ``FROZEN`` refuses every change (verifiers run then); a change while
``IDLE`` marks the world ``dirty`` so it is never reused.
"""

from __future__ import annotations

from typing import Any

from silo.world.diff import ABSENT
from silo.world.tracked import (
    APPEND,
    COLL,
    DELETE,
    LIST,
    ROOT,
    TrackedDict,
    track,
    track_top,
    tracked_dict,
)

__all__ = ["ACTIVE", "FROZEN", "IDLE", "Journal", "Log", "Rows", "StateMutationError", "Whole"]

IDLE, ACTIVE, FROZEN = 0, 1, 2


class StateMutationError(RuntimeError):
    """Raised when a verifier (or anything after the rollout) tries to change the world."""


class Rows:
    """Pre-images of the touched rows of one top-level dict."""

    __slots__ = ("pre", "keys_before")

    def __init__(self) -> None:
        self.pre: dict[Any, Any] = {}
        self.keys_before: list[Any] | None = None  # original key order, once one was deleted


class Log:
    """A touched top-level list: appended to only (``prefix``) or saved whole (``pre``)."""

    __slots__ = ("prefix", "pre")

    def __init__(self, prefix: int, pre: list[Any] | None) -> None:
        self.prefix = prefix
        self.pre = pre


class Whole:
    """A top-level key that was replaced or deleted: its original value (or ABSENT)."""

    __slots__ = ("pre",)

    def __init__(self, pre: Any) -> None:
        self.pre = pre


class _ReadOnly:
    """The journal of the initial-world views: any change is refused."""

    __slots__ = ()

    def touch(self, top: Any, row: Any, key: Any, op: Any) -> None:
        """Told before a change to slot ``(top, row)``: save the pre-image on first touch."""
        raise StateMutationError("the initial world is read-only; verifiers must not modify it")


_READ_ONLY = _ReadOnly()


class Journal:
    """A world's record of what its rollout touched: pre-images, shadows and index watchers."""

    __slots__ = ("root", "mode", "dirty", "recs", "root_keys", "shadows", "watchers", "savepoint")

    def __init__(self) -> None:
        self.root: TrackedDict = TrackedDict()
        self.mode = IDLE
        self.dirty = False
        self.recs: dict[Any, Rows | Log | Whole] = {}
        self.root_keys: list[Any] | None = None
        # Per collection, a read-only dict equal to it as it was when the rollout began, kept
        # across rollouts and patched with the touched rows' pre-images only, so initial() and
        # rollback cost what the rollout touched, not the size of the collection.
        self.shadows: dict[Any, tuple[Any, TrackedDict]] = {}
        # Per collection, the indexes (silo.world.indexes) filed over it, told of every change so
        # they re-file just the rows touched. Any mode: an index must stay true to the world.
        self.watchers: dict[Any, dict[Any, Any]] = {}
        # The open savepoint of the running tool call (silo.world.savepoint), told first.
        self.savepoint: Any = None

    def touch(self, top: Any, row: Any, key: Any, op: Any) -> None:
        """Told before a change to slot ``(top, row)``: save its pre-image on first touch."""
        if self.watchers:
            self._tell_watchers(top, row, key, op)
        if self.mode != ACTIVE:
            if self.mode == FROZEN:
                raise StateMutationError(
                    "the world is read-only after the rollout; verifiers must not modify state"
                )
            self.dirty = True
            return
        if self.savepoint is not None:
            self.savepoint.touch(top, row, key, op)
        if top is ROOT:
            self._touch_top(key)
        elif row is COLL:
            self._touch_row(top, key, op)
        elif row is LIST:
            self._touch_log(top, key, op)
        else:
            self._touch_row(top, row, None)

    def _tell_watchers(self, top: Any, row: Any, key: Any, op: Any) -> None:
        if top is ROOT:  # a whole collection replaced or removed
            for watcher in self.watchers.get(key, {}).values():
                watcher.reset()
            return
        watching = self.watchers.get(top)
        if watching and row is not LIST:
            for watcher in watching.values():
                watcher.touched(row, key, op)

    def _touch_row(self, top: Any, row: Any, op: Any) -> None:
        rec = self.recs.get(top)
        if rec is None:
            rec = self.recs[top] = Rows()
        elif type(rec) is not Rows:
            return
        coll = dict.__getitem__(self.root, top)
        if row not in rec.pre:
            rec.pre[row] = track(coll[row], self, top, row) if row in coll else ABSENT
        if op is DELETE and rec.keys_before is None and rec.pre[row] is not ABSENT:
            rec.keys_before = [k for k in coll if rec.pre.get(k, k) is not ABSENT]

    def _touch_log(self, top: Any, container: Any, op: Any) -> None:
        rec = self.recs.get(top)
        if type(rec) is Whole:
            return
        log = dict.__getitem__(self.root, top)
        appending = op is APPEND and container is log
        if rec is None:
            self.recs[top] = (
                Log(len(log), None) if appending else Log(0, track(log, self, top, LIST))
            )
        elif isinstance(rec, Log) and rec.pre is None and not appending:
            rec.pre = track(log[: rec.prefix], self, top, LIST)

    def _touch_top(self, key: Any) -> None:
        if self.root_keys is None:
            self.root_keys = list(self.root)
        found = self.recs.get(key)
        if type(found) is Whole:
            return
        if found is None:
            pre = track_top(key, self.root[key], self) if key in self.root else ABSENT
        else:
            pre = track_top(key, self.initial_value(key, found), self)
        self.recs[key] = Whole(pre)

    def initial_value(self, top: Any, rec: Rows | Log | Whole) -> Any:
        """The value ``top`` had when the rollout began (sharing untouched rows)."""
        if type(rec) is Whole:
            return rec.pre
        current = dict.__getitem__(self.root, top)
        if type(rec) is Log:
            return (
                list(rec.pre)
                if rec.pre is not None
                else list.__getitem__(current, slice(0, rec.prefix))
            )
        assert type(rec) is Rows
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
        shadow = tracked_dict(value, _READ_ONLY, top, COLL)
        self.shadows[top] = (current, shadow)
        return shadow

    def initial(self) -> dict[Any, Any]:
        """The state as the rollout began, sharing untouched rows (read-only views)."""
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
        """Restore the world in place to how the rollout began, key order included."""
        self.mode = IDLE
        root = self.root
        watchers = self.watchers
        for top, rec in self.recs.items():
            watching = watchers.get(top) if watchers else None
            if watching:
                _tell_restored(watching, rec)
            if type(rec) is Whole:
                self.shadows.pop(top, None)  # a new collection object: its view is rebuilt
                if rec.pre is ABSENT:
                    dict.pop(root, top, None)
                else:
                    dict.__setitem__(root, top, rec.pre)
            elif type(rec) is Rows:
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
            elif isinstance(rec, Log):
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


def _tell_restored(watching: dict[Any, Any], rec: Rows | Log | Whole) -> None:
    """Tell a collection's indexes which rows a rollback is about to restore."""
    if type(rec) is Rows and rec.keys_before is None:
        removed = {key for key, before in rec.pre.items() if before is ABSENT}
        for watcher in watching.values():
            watcher.restored(iter(rec.pre), removed)
    else:  # the collection itself, or its order, comes back: file it again
        for watcher in watching.values():
            watcher.reset()
