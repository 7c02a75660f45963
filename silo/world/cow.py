"""Copy-on-write worlds: every world of a pool is a view over one immutable base.

Contract: :class:`Base` holds a pool's initial world, built once from ``create_state()`` as
tracked containers whose listener (:data:`SHARED`) refuses every change, so nothing can alter
it; every world of the pool reads through it. :meth:`Base.view` gives one world's root: a
:class:`CowDict` whose storage starts as a copy of the base root's slots (pointers, one per
top-level key). A read that would hand out a base container (``[]``, ``get``, ``values``,
``items``, ``pop``, ``setdefault``, ``copy``, ``dict(view)``, ``{**view}``, ``|``) first puts
the world's own copy in its place in storage: a top-level dict becomes the world's
:class:`CowDict` over that base collection (again pointers, one per row), any other top-level
value a tracked deep copy, and a row (a value of a top-level dict) the world's tracked deep
copy. So a world costs what its rollouts read, not the size of the world, and a tool never
holds a base container it could write through: its writes stay in its world. Once the world is
frozen (its listener's ``read_only``: verifiers run), reads hand out the base's values as they
are, since nothing may change any more: a verifier's reads copy nothing.

The storage always holds values equal to the world's (the base's own where the world read
nothing), in the same order, so ``==``, ``len``, ``in``, iteration and C-level readers of the
storage (``orjson``, ``json``) see the world as it is. ``copy.deepcopy`` and pickling give plain
containers without copying into the world. Code that reads storage past the view on purpose
(``dict.values(view)``) gets base containers; writing one raises :class:`StateMutationError`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable, Iterator
from typing import Final, SupportsIndex, TypeVar, cast

from silo.json_types import JSON
from silo.world.diff import row_keys
from silo.world.tracked import (
    COLL,
    ROOT,
    ChangeListener,
    StateMutationError,
    TrackedDict,
    TrackedList,
    track,
    track_root,
    track_top,
)

__all__ = ["SHARED", "Base", "CowDict", "is_shared", "own_top"]

_MISSING: Final = object()
T = TypeVar("T")
A = TypeVar("A")


class _Shared:
    """The listener of a base: it is shared by every world, so any change is refused."""

    __slots__ = ()

    def touch(self, top: object, row: object, key: object, op: object) -> None:
        """Told before a change to the base: refuse it."""
        raise StateMutationError(
            "the initial world is shared by every rollout and read-only, as the world is after "
            "the rollout; verifiers must not modify state, and tools change only the state "
            "they are given"
        )

    def stored(self, container: TrackedDict | TrackedList, key: object) -> None:
        """Never reached: the change was refused when it was about to happen."""


SHARED = _Shared()


def is_shared(value: JSON) -> bool:
    """True for a container of a base (which only a world's own copy may stand in for)."""
    cls = type(value)
    return (cls is TrackedDict or cls is TrackedList) and value._j is SHARED


class CowDict(TrackedDict):
    """A world's dict over a base dict: storage shares base values until they are read.

    At the root (slot ``(ROOT, None)``) a read top-level value is copied by :func:`_own_top`;
    in a collection (slot ``(key, COLL)``) a read row by :func:`track`.
    """

    __slots__ = ()

    def _mine(self, key: object, value: JSON) -> JSON:
        """``value`` (stored under ``key``) as the world's own: copied in if it is shared."""
        if not is_shared(value) or getattr(self._j, "read_only", False):
            return value  # a frozen world changes no more: the base's value serves as is
        if self._top is ROOT:
            value = own_top(key, value, self._j)
            dict.__setitem__(self, key, value)  # equal to what it replaces: not a change
            if not any(map(is_shared, dict.values(self))):  # a dozen keys, not rows
                self.__class__ = TrackedDict  # type: ignore[assignment]
            return value
        value = track(value, self._j, self._top, key)
        dict.__setitem__(self, key, value)  # equal to what it replaces: not a change
        return value

    def _mine_all(self) -> None:
        """Copy every shared value in; then the view is a plain :class:`TrackedDict`."""
        if getattr(self._j, "read_only", False):
            return
        for key in [k for k, v in dict.items(self) if is_shared(v)]:
            self._mine(key, dict.__getitem__(self, key))
        # Nothing shared is left, and only a view's own reads could bring one back (the
        # journal restores own copies): from now on reads are plain dict reads.
        self.__class__ = TrackedDict  # type: ignore[assignment]

    def __getitem__(self, key: object) -> JSON:
        value = dict.__getitem__(self, key)
        cls = type(value)
        if (cls is TrackedDict or cls is TrackedList) and value._j is SHARED:
            return self._mine(key, value)
        return value

    def __iter__(self) -> Iterator[JSON]:
        # Overridden only so that dict(view), {**view} and view | other read through
        # keys() and __getitem__ (CPython copies a dict's storage directly otherwise).
        return dict.__iter__(self)

    def get(self, key: object, default: JSON = None) -> JSON:
        """``dict.get``, handing out the world's own copy."""
        value: JSON = dict.get(self, key, _MISSING)
        if value is _MISSING:
            return default
        cls = type(value)
        if (cls is TrackedDict or cls is TrackedList) and value._j is SHARED:
            return self._mine(key, value)
        return value

    def values(self) -> JSON:
        """``dict.values``, after every value is the world's own."""
        self._mine_all()
        return dict.values(self)

    def items(self) -> JSON:
        """``dict.items``, after every value is the world's own."""
        self._mine_all()
        return dict.items(self)

    def pop(self, key: object, *default: JSON) -> JSON:
        """``dict.pop``, handing out the world's own copy."""
        if key in self:
            self[key]
        return TrackedDict.pop(self, key, *default)

    def popitem(self) -> tuple[JSON, JSON]:
        """``dict.popitem``, handing out the world's own copy."""
        if self:
            self[next(reversed(self))]
        return TrackedDict.popitem(self)

    def setdefault(self, key: object, default: JSON = None) -> JSON:
        """``dict.setdefault``, handing out the world's own copy."""
        if key in self:
            return self[key]
        return TrackedDict.setdefault(self, key, default)

    def copy(self) -> dict[JSON, JSON]:
        """A plain shallow copy, of the world's own values."""
        self._mine_all()
        return dict(dict.items(self))

    def __copy__(self) -> dict[JSON, JSON]:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, object]) -> dict[JSON, JSON]:
        return {k: copy.deepcopy(v, memo) for k, v in dict.items(self)}

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[object, ...]:
        return (dict, (dict(dict.items(self)),))


def own_top(key: object, value: JSON, journal: ChangeListener) -> JSON:
    """A world's own copy of a base top-level value: a collection view, else a deep copy."""
    if type(value) is TrackedDict:
        view = CowDict()
        view._j, view._top, view._row = journal, key, COLL
        dict.update(view, value)  # the base's rows, by reference: pointers only
        return view
    return track_top(key, value, journal)


class Base:
    """A pool's initial world, shared read-only by all its worlds, and facts derived from it.

    The facts (each collection's key positions, each log's row names, each index's filing) are
    computed once per base rather than once per world: every world starts every rollout equal
    to its base.
    """

    __slots__ = ("root", "_facts")

    def __init__(self, state: dict[str, JSON]) -> None:
        """Build the base from a plain state (raises :class:`NotTrackable` for non-JSON)."""
        self.root: TrackedDict = track_root(state, SHARED)
        self._facts: dict[JSON, JSON] = {}

    def view(self, journal: ChangeListener) -> CowDict:
        """A new world's root over this base, its changes told to ``journal``."""
        root = CowDict()
        root._j, root._top, root._row = journal, ROOT, None
        dict.update(root, self.root)
        return root

    def value(self, top: object, default: JSON = None) -> JSON:
        """The base's value under top-level key ``top``."""
        return dict.get(self.root, top, default)

    def fact(self, key: Hashable, make: Callable[[TrackedDict, A], T], arg: A) -> T:
        """``make(root, arg)``, computed once per base (``key`` names it)."""
        try:
            return cast(T, self._facts[key])
        except KeyError:
            return cast(T, self._facts.setdefault(key, make(self.root, arg)))

    def positions(self, top: object) -> dict[object, int]:
        """Each key's position in the base collection ``top`` (the order a rollout begins in)."""
        return self.fact(("positions", top), _positions, top)

    def log_names(self, top: object) -> frozenset[object]:
        """The row names (diff keys) of the base log ``top``."""
        return self.fact(("log names", top), _log_names, top)


def _positions(root: TrackedDict, top: object) -> dict[object, int]:
    return {k: i for i, k in enumerate(dict.get(root, top, ()))}


def _log_names(root: TrackedDict, top: object) -> frozenset[object]:
    return frozenset(row_keys(list(dict.get(root, top, ()))))
