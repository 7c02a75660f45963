"""Savepoints: undo one tool call's changes to a journaled world.

Contract: while a :class:`Savepoint` is open on a world's journal, the journal tells it before
every change (:meth:`Savepoint.touch`), and it keeps, on the first touch of each slot within the
call, what that slot held when the call began: a row's value (or that it was absent), a log's
length while it is only appended to (else the log itself), a top-level value, and a
collection's or the root's key order once a key is deleted. :meth:`Savepoint.restore` puts all
of that back in place, newest first, and tells the collections' indexes which rows came back,
so the world — its ``diff()``, ``initial()``, later rollback and every ``Index`` — is exactly
as if the call never ran. :meth:`Savepoint.close` forgets the call (it succeeded).

Cost: opening and closing is two attribute writes; a call that changes nothing pays nothing
more. A row touched for the first time in the rollout is not copied here: the journal saves
that row's pre-image at the same moment, and a restore copies it from there. Closing makes what
the call stored tracked (a plain container, or a tracked one of another slot, would change
unseen later): the tracked containers say where they took a value that is not a scalar
(:meth:`Savepoint.stored`), so only those places are looked at, not every row touched.
"""

from __future__ import annotations

from typing import Final

from silo.json_types import JSON
from silo.jsonio import plain_copy
from silo.world import tracked
from silo.world.diff import ABSENT
from silo.world.journal import Journal, Rows, Whole
from silo.world.tracked import APPEND, COLL, DELETE, LIST, ROOT, TrackedDict, TrackedList, track

__all__ = ["Savepoint"]

_NO_SLOT: Final = object()
_FROM_JOURNAL: Final = object()  # "the journal's pre-image of this row is the value to restore"


class Savepoint:
    """The pre-call contents of whatever one tool call changes in ``journal``'s world."""

    __slots__ = ("journal", "entries", "seen", "orders", "lengths", "last", "stores")

    def __init__(self, journal: Journal) -> None:
        """A closed savepoint of ``journal``; :meth:`open` starts recording one call."""
        self.journal = journal
        # (top, row, value) in the order first touched; row is ROOT for a top-level value and
        # LIST for a log saved whole.
        self.entries: list[tuple[object, object, JSON]] = []
        self.seen: set[tuple[object, object]] = set()
        self.orders: dict[object, list[JSON]] = {}  # key order before a delete: top (ROOT: root)
        self.lengths: dict[object, int] = {}  # a log only appended to: its length before the call
        self.last: tuple[object, object] = (_NO_SLOT, _NO_SLOT)  # the row slot saved last
        # (container, key) where the call stored a value that is not a scalar, in a row or a
        # collection (key None: somewhere in a list): made tracked at close.
        self.stores: list[tuple[JSON, object]] = []

    def open(self) -> None:
        """Record the changes of the call about to run."""
        self.journal.savepoint = self

    def close(self) -> None:
        """The call is over and kept: forget what it changed.

        What the call stored is made tracked first: a plain dict a tool put in a row would
        otherwise change unseen in a later call, which could then not be undone.
        """
        self.journal.savepoint = None
        if self.seen or self.lengths or self.stores:
            self._track_stored()
            self._forget()

    def stored(self, container: TrackedDict | TrackedList, key: object) -> None:
        """Told (through the journal) after ``container`` took a non-scalar value at ``key``."""
        top = container._top
        if top is ROOT or (key is None and container is dict.get(self.journal.root, top)):
            return  # a top-level value, or a log: its entry (or kept length) covers it
        self.stores.append((container, key))

    def _forget(self) -> None:
        self.last = (_NO_SLOT, _NO_SLOT)
        self.entries.clear()
        self.seen.clear()
        self.orders.clear()
        self.lengths.clear()
        self.stores.clear()

    def _track_stored(self) -> None:
        journal = self.journal
        root = journal.root
        for top, length in self.lengths.items():
            log = dict.get(root, top)
            if (top, LIST) not in self.seen and isinstance(log, list):
                for index in range(length, len(log)):
                    item = list.__getitem__(log, index)
                    if _untracked(item, journal, top, LIST):
                        list.__setitem__(log, index, track(item, journal, top, LIST))
        for top, row, _ in self.entries:
            # Rows need nothing here: whatever was stored in one is in ``stores``.
            if top is ROOT:
                value = dict.get(root, row, _NO_SLOT)
                if value is not _NO_SLOT and _holds_plain(value):
                    dict.__setitem__(root, row, tracked.track_top(row, value, journal))
            elif row is LIST:
                log = dict.get(root, top)
                if isinstance(log, list) and _holds_plain(log):
                    fresh = [track(v, journal, top, LIST) for v in log]
                    list.__setitem__(log, slice(None), fresh)
        for container, key in self.stores:
            top, row = container._top, container._row
            if key is None:
                for index, item in enumerate(container):
                    if _untracked(item, journal, top, row):
                        list.__setitem__(container, index, track(item, journal, top, row))
                continue
            value = dict.get(container, key, _NO_SLOT)
            if row is COLL:
                row = key  # a row stored in a collection is a slot of its own
            if value is not _NO_SLOT and _untracked(value, journal, top, row):
                dict.__setitem__(container, key, track(value, journal, top, row))

    def touch(self, top: object, row: object, key: object, op: object) -> None:
        """Told by the journal before a change: save the slot's pre-call value on first touch."""
        if row is self.last[1] and top == self.last[0] and row is not COLL and row is not LIST:
            return  # the row changed last, again (most changes): already saved
        root = self.journal.root
        if top is ROOT:
            slot: tuple[object, object] = (ROOT, key)
            if ROOT not in self.orders:
                self.orders[ROOT] = list(root)
            if slot not in self.seen:
                self.seen.add(slot)
                value = dict.get(root, key, ABSENT)
                copied = ABSENT if value is ABSENT else plain_copy(value)
                self.entries.append((ROOT, key, copied))
            return
        if row is LIST:
            self._touch_log(top, key, op)
            return
        if row is COLL:
            row = key
            coll = dict.__getitem__(root, top)
            if op is DELETE and top not in self.orders:
                self.orders[top] = list(coll)
        slot = (top, row)
        if slot in self.seen:
            return
        self.seen.add(slot)
        self.last = slot
        coll = dict.__getitem__(root, top)
        rec = self.journal.recs.get(top)
        if rec is None or (type(rec) is Rows and row not in rec.pre):
            value = _FROM_JOURNAL  # first touch in the rollout: the journal keeps the pre-image
        elif row in coll:
            value = plain_copy(coll[row])
        else:
            value = ABSENT
        self.entries.append((top, row, value))

    def _touch_log(self, top: object, container: JSON, op: object) -> None:
        slot = (top, LIST)
        if slot in self.seen:
            return
        log = dict.__getitem__(self.journal.root, top)
        if op is APPEND and container is log:
            self.lengths.setdefault(top, len(log))
            return
        self.seen.add(slot)
        length = self.lengths.get(top, len(log))
        self.entries.append((top, LIST, plain_copy(list.__getitem__(log, slice(0, length)))))

    def restore(self) -> None:
        """Put back everything the call changed, newest first; then :meth:`close`."""
        journal = self.journal
        root = journal.root
        watchers = journal.watchers
        touched: dict[object, set[object]] = {}
        rebuilt: set[object] = set(self.orders)
        for top, length in self.lengths.items():
            log = dict.get(root, top)
            if (top, LIST) not in self.seen and type(log) is not dict and log is not None:
                list.__delitem__(log, slice(length, None))
        for top, row, value in reversed(self.entries):
            if top is ROOT:
                rebuilt.add(row)
                if value is ABSENT:
                    dict.pop(root, row, None)
                else:
                    dict.__setitem__(root, row, tracked.track_top(row, value, journal))
                continue
            current = dict.get(root, top)
            if row is LIST:
                if isinstance(current, list):
                    list.__setitem__(current, slice(None), track(value, journal, top, LIST))
                continue
            if not isinstance(current, dict):
                continue  # the collection itself was replaced: its ROOT entry restores it
            if value is _FROM_JOURNAL:
                value = _rollout_initial(journal, top, row)
            elif value is not ABSENT:
                value = track(value, journal, top, row)
            if value is ABSENT:
                dict.pop(current, row, None)
            else:
                dict.__setitem__(current, row, value)
            touched.setdefault(top, set()).add(row)
        for top, order in self.orders.items():
            container = root if top is ROOT else dict.get(root, top)
            if isinstance(container, dict):
                items = [(k, dict.__getitem__(container, k)) for k in order if k in container]
                dict.clear(container)
                dict.update(container, items)
        for top, found in watchers.items():
            if top in rebuilt:  # the collection, or its order, came back: file it again
                for watcher in found.values():
                    watcher.reset()
            elif top in touched:
                coll = dict.get(root, top, {})
                removed = {key for key in touched[top] if key not in coll}
                for watcher in found.values():
                    watcher.restored(iter(touched[top]), removed)
        self.journal.savepoint = None
        self._forget()


def _rollout_initial(journal: Journal, top: object, row: object) -> JSON:
    """A fresh tracked copy of ``row`` as the rollout began (ABSENT: it was not there).

    The journal keeps it as the row's pre-image, or inside the collection's own pre-image once
    the call replaced the whole collection.
    """
    rec = journal.recs.get(top)
    pre: JSON = ABSENT
    if type(rec) is Rows or type(rec) is Whole and isinstance(rec.pre, dict):
        pre = rec.pre.get(row, ABSENT)
    return ABSENT if pre is ABSENT else track(pre, journal, top, row)


def _holds_plain(value: JSON) -> bool:
    """Whether ``value`` is, or holds, a plain dict or list (one no journal is told about)."""
    cls = type(value)
    if cls is TrackedDict:
        items: JSON = dict.values(value)
    elif cls is TrackedList:
        items = value
    else:
        return cls is dict or cls is list
    for item in items:
        kind = type(item)
        if kind is dict or kind is list:
            return True
        if (kind is TrackedDict or kind is TrackedList) and _holds_plain(item):
            return True
    return False


def _untracked(value: JSON, journal: Journal, top: object, row: object) -> bool:
    """Whether ``value``, now in slot ``(top, row)``, is not (wholly) that slot's tracked value.

    True for a plain container, and for a tracked one of another slot or world (a row stored
    under a second key, a base container): changes to either would reach no one, or the wrong
    slot.
    """
    cls = type(value)
    if cls is dict or cls is list:
        return True
    if isinstance(value, (TrackedDict, TrackedList)):
        return value._j is not journal or value._top != top or value._row != row
    return False
