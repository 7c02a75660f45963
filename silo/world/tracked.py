"""Tracked containers: dicts and lists that tell a journal before they change.

Contract: :func:`track` turns a JSON-like value (dict, list, str, int, float, bool, None) into
the same value built from :class:`TrackedDict` and :class:`TrackedList`, each knowing its place
in the world (its *slot*). Reading is plain ``dict``/``list`` speed, because no read path is
overridden; every mutating method first calls ``journal.touch(...)`` so the journal can save
what is about to change, and after storing a value that is not a scalar calls
``journal.stored(container, key)`` so a plain container stored can be made tracked once the
change (a tool call) is over. Copies (``copy``, ``deepcopy``, pickling) give plain containers.

Slots: the root state is ``(ROOT, None)``; a top-level dict is ``(key, COLL)`` and each value
under it belongs to row ``(key, row_key)``; a top-level list and everything inside it belong
to ``(key, LIST)``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any, Protocol, SupportsIndex

from silo.errors import SiloException
from silo.json_types import JSON

__all__ = [
    "COLL",
    "LIST",
    "ROOT",
    "ChangeListener",
    "NotTrackable",
    "StateMutationError",
    "TrackedDict",
    "TrackedList",
    "slot",
    "track",
    "track_root",
    "tracked_dict",
    "track_top",
]


class _Marker:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


ROOT = _Marker("ROOT")
COLL = _Marker("COLL")
LIST = _Marker("LIST")
APPEND = _Marker("APPEND")
DELETE = _Marker("DELETE")
SET = _Marker("SET")


class ChangeListener(Protocol):
    """What a tracked container tells before it changes (a world's journal, in practice)."""

    def touch(self, top: object, row: object, key: object, op: _Marker) -> None:
        """Slot ``(top, row)`` is about to change at ``key`` by ``op`` (SET, DELETE, APPEND)."""

    def stored(self, container: TrackedDict | TrackedList, key: object) -> None:
        """``container`` now holds a value that is not a scalar at ``key`` (None: in a list).

        Told after the change. Such a value may be a plain container, which tells no one when
        it changes: the listener can make it tracked once the change is complete.
        """


class StateMutationError(SiloException, RuntimeError):
    """Raised when a verifier (or anything after the rollout) tries to change the world."""


class NotTrackable(SiloException, TypeError):
    """The state holds a value the tracker cannot follow (a set, a tuple, an object)."""


class TrackedDict(dict[JSON, JSON]):
    """A ``dict`` that tells its listener before every change; reads are plain dict reads."""

    __slots__ = ("_j", "_top", "_row")
    _j: ChangeListener
    _top: object
    _row: object

    def _t(self, key: object, op: _Marker) -> None:
        self._j.touch(self._top, self._row, key, op)

    def __setitem__(self, key: object, value: JSON) -> None:
        self._t(key, SET)
        dict.__setitem__(self, key, value)
        if type(value) not in _SCALAR_TYPES:
            self._j.stored(self, key)

    def __delitem__(self, key: object) -> None:
        if key in self:
            self._t(key, DELETE)
        dict.__delitem__(self, key)

    def pop(self, key: object, *default: JSON) -> JSON:
        """``dict.pop``, told to the listener first."""
        if key in self:
            self._t(key, DELETE)
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[JSON, JSON]:
        """``dict.popitem``, told to the listener first."""
        if self:
            self._t(next(reversed(self)), DELETE)
        return dict.popitem(self)

    def setdefault(self, key: object, default: JSON = None) -> JSON:
        """``dict.setdefault``, told to the listener first when it adds a key."""
        if key in self:
            return dict.__getitem__(self, key)
        self._t(key, SET)
        dict.__setitem__(self, key, default)
        if type(default) not in _SCALAR_TYPES:
            self._j.stored(self, key)
        return default

    def update(self, *args: Any, **kwargs: Any) -> None:
        """``dict.update``, told to the listener first for every key."""
        incoming = dict(*args, **kwargs)
        for key in incoming:
            self._t(key, SET)
        dict.update(self, incoming)
        for key, value in incoming.items():
            if type(value) not in _SCALAR_TYPES:
                self._j.stored(self, key)

    def __ior__(self, other: Any) -> TrackedDict:  # type: ignore[misc]
        self.update(other)
        return self

    def clear(self) -> None:
        """``dict.clear``, told to the listener first for every key."""
        for key in list(self):
            self._t(key, DELETE)
        dict.clear(self)

    def __copy__(self) -> dict[JSON, JSON]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, object]) -> dict[JSON, JSON]:
        return {k: copy.deepcopy(v, memo) for k, v in self.items()}

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[object, ...]:
        return (dict, (dict(self),))


class TrackedList(list[JSON]):
    """A ``list`` that tells its listener before every change; reads are plain list reads."""

    __slots__ = ("_j", "_top", "_row")
    _j: ChangeListener
    _top: object
    _row: object

    def _t(self, op: _Marker = SET) -> None:
        # The list itself is the key, so the journal can tell an append to a top-level log
        # (kept as a length) from any other change (which saves the whole log).
        self._j.touch(self._top, self._row, self, op)

    def _stored(self, value: JSON) -> None:
        if type(value) not in _SCALAR_TYPES:
            self._j.stored(self, None)

    def append(self, value: JSON) -> None:
        """``list.append``, told to the listener first (as an append)."""
        self._t(APPEND)
        list.append(self, value)
        if type(value) not in _SCALAR_TYPES:
            self._j.stored(self, None)

    def extend(self, values: Iterable[JSON]) -> None:
        """``list.extend``, told to the listener first (as an append)."""
        self._t(APPEND)
        start = len(self)
        list.extend(self, values)
        if not _SCALAR_TYPES.issuperset(map(type, list.__getitem__(self, slice(start, None)))):
            self._j.stored(self, None)

    def __iadd__(self, values: Iterable[JSON]) -> TrackedList:  # type: ignore[misc]
        self.extend(values)
        return self

    def insert(self, index: SupportsIndex, value: JSON) -> None:
        """``list.insert``, told to the listener first."""
        self._t()
        list.insert(self, index, value)
        self._stored(value)

    def __setitem__(self, index: SupportsIndex | slice, value: JSON) -> None:
        self._t()
        list.__setitem__(self, index, value)
        if isinstance(index, slice):
            self._j.stored(self, None)  # a slice takes any iterable: look at what is there
        else:
            self._stored(value)

    def __delitem__(self, index: SupportsIndex | slice) -> None:
        self._t()
        list.__delitem__(self, index)

    def pop(self, index: SupportsIndex = -1) -> JSON:
        """``list.pop``, told to the listener first."""
        self._t()
        return list.pop(self, index)

    def remove(self, value: JSON) -> None:
        """``list.remove``, told to the listener first."""
        self._t()
        list.remove(self, value)

    def clear(self) -> None:
        """``list.clear``, told to the listener first."""
        self._t()
        list.clear(self)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        """``list.sort``, told to the listener first."""
        self._t()
        list.sort(self, *args, **kwargs)

    def reverse(self) -> None:
        """``list.reverse``, told to the listener first."""
        self._t()
        list.reverse(self)

    def __imul__(self, n: SupportsIndex) -> TrackedList:
        self._t()
        return list.__imul__(self, n)

    def __copy__(self) -> list[JSON]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, object]) -> list[JSON]:
        return [copy.deepcopy(v, memo) for v in self]

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[object, ...]:
        return (list, (list(self),))


_SCALARS = (str, int, float, bool, type(None))
_SCALAR_TYPES = frozenset(_SCALARS)


def slot(container: object) -> tuple[ChangeListener, object, object] | None:
    """``(listener, top, row)`` of a tracked container, None for anything else."""
    if isinstance(container, (TrackedDict, TrackedList)):  # a world's CowDict too
        return container._j, container._top, container._row
    return None


def tracked_dict(items: JSON, journal: ChangeListener, top: object, row: object) -> TrackedDict:
    """A :class:`TrackedDict` of ``items`` (taken as they are) in slot ``(top, row)``."""
    out = TrackedDict()
    out._j, out._top, out._row = journal, top, row
    dict.update(out, items)
    return out


def track(value: JSON, journal: ChangeListener, top: object, row: object) -> JSON:
    """A tracked deep copy of ``value`` whose containers all belong to slot ``(top, row)``."""
    cls = type(value)
    # The container is copied at C speed, then only its non-scalar values are replaced: most
    # of a row is scalars.
    if cls is dict or cls is TrackedDict:
        out = TrackedDict(value)
        out._j, out._top, out._row = journal, top, row
        for key, item in dict.items(value):
            if type(item) not in _SCALAR_TYPES:
                dict.__setitem__(out, key, track(item, journal, top, row))
        return out
    if cls is list or cls is TrackedList:
        lst = TrackedList(value)
        lst._j, lst._top, lst._row = journal, top, row
        for index, item in enumerate(value):
            if type(item) not in _SCALAR_TYPES:
                list.__setitem__(lst, index, track(item, journal, top, row))
        return lst
    if cls in _SCALARS:
        return value
    raise NotTrackable(f"state holds a {cls.__name__}, which is not a JSON value")


def track_root(state: dict[str, JSON], journal: ChangeListener) -> TrackedDict:
    """Track a whole world: top-level dicts become collections, top-level lists logs."""
    items = {key: track_top(key, value, journal) for key, value in state.items()}
    return tracked_dict(items, journal, ROOT, None)


def track_top(key: object, value: JSON, journal: ChangeListener) -> JSON:
    """A tracked copy of one top-level value, with its rows in their own slots."""
    if type(value) is dict or type(value) is TrackedDict:
        rows = {k: track(v, journal, key, k) for k, v in value.items()}
        return tracked_dict(rows, journal, key, COLL)
    return track(value, journal, key, LIST if isinstance(value, list) else None)
