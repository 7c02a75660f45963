"""The journal of a world: what a rollout touched, and the rollback to its base.

Contract: a :class:`Journal` is told (by the tracked containers of :mod:`silo.world.tracked`)
before every change. Every rollout begins with its world equal to the world's
:class:`~silo.world.cow.Base`, so nothing is copied to remember the past: while ``ACTIVE`` the
journal notes, on first touch, which row (a value under a top-level dict) changes, which log (a
top-level list: only its length while it is merely appended to) or which whole top-level value,
and the base holds what each was. :meth:`Journal.initial` is the world as the rollout began
(the base where the rollout changed something, the world's own untouched values elsewhere), and
:meth:`Journal.rollback` makes the world equal to the base again in place, key order included,
by putting copies of the base's values in the touched slots (a row is copied after its last
change, not before its first, so a world that holds nothing shared keeps holding nothing
shared). ``FROZEN`` refuses every change (verifiers
run then); a change while ``IDLE`` marks the world ``dirty`` so it is never reused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from silo.json_types import JSON
from silo.world.cow import Base, own_top
from silo.world.diff import ABSENT
from silo.world.tracked import (
    APPEND,
    COLL,
    DELETE,
    LIST,
    ROOT,
    StateMutationError,
    TrackedDict,
    TrackedList,
    track,
)

if TYPE_CHECKING:  # savepoint imports this module: the name is for the annotation only
    from silo.world.savepoint import Savepoint

__all__ = ["ACTIVE", "FROZEN", "IDLE", "Journal", "Log", "Rows", "StateMutationError", "Whole"]

IDLE, ACTIVE, FROZEN = 0, 1, 2


class Rows:
    """The touched rows of one top-level dict, each with its base value (or ABSENT)."""

    __slots__ = ("pre", "keys_before")

    def __init__(self) -> None:
        self.pre: dict[JSON, JSON] = {}
        self.keys_before: list[JSON] | None = None  # original key order, once one was deleted


class Log:
    """A touched top-level list: appended to only (``prefix``) or changed otherwise (``pre``)."""

    __slots__ = ("prefix", "pre")

    def __init__(self, prefix: int, pre: list[JSON] | None) -> None:
        self.prefix = prefix
        self.pre = pre  # the base's list once changed other than by appending, else None


class Whole:
    """A top-level key that was replaced or deleted: its base value (or ABSENT)."""

    __slots__ = ("pre",)

    def __init__(self, pre: JSON) -> None:
        self.pre = pre


class Journal:
    """A world's record of what its rollout touched, over its base, and its index watchers."""

    __slots__ = ("base", "root", "mode", "dirty", "recs", "root_keys", "watchers", "savepoint")

    def __init__(self, base: Base) -> None:
        self.base = base
        self.root: TrackedDict = base.view(self)
        self.mode = IDLE
        self.dirty = False
        self.recs: dict[object, Rows | Log | Whole] = {}
        self.root_keys: list[JSON] | None = None
        # Per collection, the indexes (silo.world.indexes) filed over it, told of every change so
        # they re-file just the rows touched. Any mode: an index must stay true to the world.
        self.watchers: dict[object, dict[JSON, JSON]] = {}
        # The open savepoint of the running tool call (silo.world.savepoint), told first.
        self.savepoint: Savepoint | None = None

    @property
    def read_only(self) -> bool:
        """True while the world is frozen (its views then hand out base values uncopied)."""
        return self.mode == FROZEN

    def touch(self, top: object, row: object, key: object, op: object) -> None:
        """Told before a change to slot ``(top, row)``: note it on first touch."""
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

    def stored(self, container: TrackedDict | TrackedList, key: object) -> None:
        """Told after a non-scalar value was stored: the open savepoint tracks it at its close."""
        if self.savepoint is not None:
            self.savepoint.stored(container, key)

    def _tell_watchers(self, top: object, row: object, key: object, op: object) -> None:
        if top is ROOT:  # a whole collection replaced or removed
            for watcher in self.watchers.get(key, {}).values():
                watcher.reset()
            return
        watching = self.watchers.get(top)
        if watching and row is not LIST:
            for watcher in watching.values():
                watcher.touched(row, key, op)

    def _touch_row(self, top: object, row: object, op: object) -> None:
        rec = self.recs.get(top)
        if rec is None:
            rec = self.recs[top] = Rows()
        elif type(rec) is not Rows:
            return
        pre = rec.pre
        if row not in pre:
            pre[row] = dict.get(self.base.value(top, {}), row, ABSENT)
        if op is DELETE and rec.keys_before is None and pre[row] is not ABSENT:
            rec.keys_before = list(self.base.value(top, ()))

    def _touch_log(self, top: object, container: object, op: object) -> None:
        rec = self.recs.get(top)
        if type(rec) is Whole:
            return
        log = dict.__getitem__(self.root, top)
        appending = op is APPEND and container is log
        if rec is None:
            self.recs[top] = Log(len(log), None) if appending else Log(0, self.base.value(top))
        elif isinstance(rec, Log) and rec.pre is None and not appending:
            rec.pre = self.base.value(top)

    def _touch_top(self, key: object) -> None:
        if self.root_keys is None:
            self.root_keys = list(self.base.root)
        if type(self.recs.get(key)) is not Whole:
            self.recs[key] = Whole(self.base.value(key, ABSENT))

    def initial_value(self, top: object, rec: Rows | Log | Whole) -> JSON:
        """The value ``top`` had when the rollout began: the base's (ABSENT: none)."""
        return self.base.value(top, ABSENT)

    def initial(self) -> dict[JSON, JSON]:
        """The state as the rollout began: the base where it changed, else the world's own.

        Every value is read-only while the world is frozen (the base's always are); an
        untouched value is the very object the final state holds, so comparing the two can
        skip it without looking inside.
        """
        root, recs = self.root, self.recs
        if self.root_keys is None and not recs:
            return dict(dict.items(root))
        base = self.base.root
        return {
            top: dict.__getitem__(base if top in recs else root, top)
            for top in dict.__iter__(base)
            if top in recs or top in root
        }

    def rollback(self) -> None:
        """Make the world equal to its base again, in place, key order included."""
        self.mode = IDLE
        root = self.root
        watchers = self.watchers
        for top, rec in self.recs.items():
            watching = watchers.get(top) if watchers else None
            if watching:
                _tell_restored(watching, rec)
            if type(rec) is Rows:
                coll = dict.__getitem__(root, top)
                for key, before in rec.pre.items():
                    if before is ABSENT:
                        dict.pop(coll, key, None)
                    else:  # an own copy: a view that holds nothing shared stays that way
                        dict.__setitem__(coll, key, track(before, self, top, key))
                if rec.keys_before is not None:
                    items = [(k, dict.__getitem__(coll, k)) for k in rec.keys_before]
                    dict.clear(coll)
                    dict.update(coll, items)
            elif type(rec) is Log and rec.pre is None:
                list.__delitem__(dict.__getitem__(root, top), slice(rec.prefix, None))
            else:  # replaced, deleted or rewritten: an own copy of the base's value
                before = self.base.value(top, ABSENT)
                if before is ABSENT:
                    dict.pop(root, top, None)
                else:
                    dict.__setitem__(root, top, own_top(top, before, self))
        if self.root_keys is not None:
            items = [(k, dict.__getitem__(root, k)) for k in self.root_keys]
            dict.clear(root)
            dict.update(root, items)
        self.recs.clear()
        self.root_keys = None


def _tell_restored(watching: dict[JSON, JSON], rec: Rows | Log | Whole) -> None:
    """Tell a collection's indexes which rows a rollback is about to restore."""
    if type(rec) is Rows and rec.keys_before is None:
        removed = {key for key, before in rec.pre.items() if before is ABSENT}
        for watcher in watching.values():
            watcher.restored(iter(rec.pre), removed)
    else:  # the collection itself, or its order, comes back: file it again
        for watcher in watching.values():
            watcher.reset()
