"""Indexes: a collection's rows by the value of one field, without scanning the collection.

Contract: ``Index(collection, field)`` is declared once (at module level in an environment) and
answers :meth:`Index.keys` — the keys of the rows of ``state[collection]`` whose ``field``
equals a value, in the collection's order — and :meth:`Index.rows` (those rows). The answer is
always what a scan of the collection would give; an index only changes what it costs.

On a world of a pool (what tools and verifiers see during a rollout) the base collection is
filed once per base (:class:`~silo.world.cow.Base`: every world of the pool shares the
filing), and a lookup corrects that filing by the rows the journal says this rollout touched:
it costs the matches plus the rows touched, copies nothing into the world, and follows what the
rollout touches, not the size of its world. A collection the rollout replaced is filed for that
world alone and kept current by the journal (which tells the index which rows each change
touched and which ones a rollback restored). Anywhere else (a plain ``dict`` state, the
read-only initial world a verifier gets for a collection the rollout changed) a lookup scans.

A row that is not a mapping, lacks ``field`` or holds an unhashable value there matches
nothing. A row changed behind the tracked containers' back (``dict.__setitem__``) is not seen
until a tracked change to it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from itertools import islice
from typing import Final, cast

from silo.json_types import JSON
from silo.world.cow import SHARED, Base, CowDict, is_shared
from silo.world.journal import Journal, Rows
from silo.world.tracked import COLL, DELETE, slot

__all__ = ["Index"]

_NONE: Final = object()  # "filed under no value": absent field, unhashable value, not a row


def _value(row: object, field: str) -> JSON:
    if not isinstance(row, Mapping):
        return _NONE
    value = row.get(field, _NONE)
    try:
        hash(value)
    except TypeError:
        return _NONE
    return value


class Index:
    """The rows of ``state[collection]`` by the value of their ``field``."""

    __slots__ = ("collection", "field")

    def __init__(self, collection: str, field: str) -> None:
        self.collection = collection
        self.field = field

    def __repr__(self) -> str:
        return f"Index({self.collection!r}, {self.field!r})"

    def keys(self, state: Mapping[str, JSON], value: Hashable) -> list[JSON]:
        """Keys of the rows whose ``field`` equals ``value``, in the collection's order."""
        if is_shared(dict.get(state, self.collection) if type(state) is CowDict else None):
            # A world that never read this collection: it is still its base's, as filed.
            base = cast(Journal, cast(CowDict, state)._j).base
            return list(_base_filing(base, self).get(value, ()))
        coll: dict[JSON, JSON] = state[self.collection]
        found = slot(coll)
        journal = None if found is None else found[0]
        if type(journal) is Journal and found is not None and found[2] is COLL:
            live = dict.get(journal.root, self.collection)
            if live is coll:  # the world's own collection, not a detached or replaced one
                rec = journal.recs.get(self.collection)
                if rec is None or type(rec) is Rows:  # the world's view of its base's collection
                    return _over_base(journal, self, coll, rec, value)
                return _filed(journal, self, coll).lookup(value)
        field = self.field
        return [key for key, row in coll.items() if _matches(row, field, value)]

    def rows(self, state: Mapping[str, JSON], value: Hashable) -> list[JSON]:
        """The rows whose ``field`` equals ``value``, in the collection's order."""
        coll = state[self.collection]
        return [coll[key] for key in self.keys(state, value)]


def _matches(row: object, field: str, value: JSON) -> bool:
    found = _value(row, field)
    return found is not _NONE and found == value


def _base_filing(base: Base, index: Index) -> dict[object, list[JSON]]:
    """The keys of the base collection's rows by value, in its order: filed once per base."""
    return base.fact(index, _file_base, index)


def _file_base(root: JSON, index: Index) -> dict[object, list[JSON]]:
    buckets: dict[object, list[JSON]] = {}
    for key, row in dict.items(dict.get(root, index.collection, {})):
        found = _value(row, index.field)
        if found is not _NONE:
            buckets.setdefault(found, []).append(key)
    return buckets


def _over_base(
    journal: Journal, index: Index, coll: dict[JSON, JSON], rec: Rows | None, value: JSON
) -> list[JSON]:
    """A lookup in a world's view of its base collection: the base's filing, corrected.

    The correction is the rows this rollout touched (the journal names them; every other row
    is the base's, as filed).
    """
    filed = _base_filing(journal.base, index).get(value, ())
    if rec is None:
        return list(filed)
    touched, field = rec.pre, index.field
    found = [key for key in filed if key not in touched]
    hits = [k for k in touched if k in coll and _matches(dict.__getitem__(coll, k), field, value)]
    if not hits:
        return found
    if rec.keys_before is not None:  # a base row was deleted: keys may have moved
        return sorted(found + hits, key={k: i for i, k in enumerate(coll)}.__getitem__)
    # Base keys are where they were; the keys this rollout added follow, in dict order.
    base = journal.base.positions(index.collection)
    added = len(coll) - len(base)
    tail = {k: len(base) + i for i, k in enumerate(list(islice(reversed(coll), added))[::-1])}
    return sorted(found + hits, key=lambda k: base[k] if k in base else tail[k])


def _filed(journal: Journal, index: Index, coll: dict[JSON, JSON]) -> _Filed:
    per_index = journal.watchers.setdefault(index.collection, {})
    filed = per_index.get(index)
    if filed is None or filed.coll is not coll:
        filed = per_index[index] = _Filed(journal, coll, index.field)
    return filed


class _Filed:
    """One index of one world: every row filed by value, plus the rows to re-file.

    ``order`` numbers the keys in the collection's order (a new key is numbered after every
    existing one, as a dict appends it), so matches are returned in that order by a sort of
    the matches alone.
    """

    __slots__ = (
        "journal",
        "coll",
        "field",
        "buckets",
        "filed_as",
        "order",
        "next",
        "dirty",
        "volatile",
        "stale",
    )

    def __init__(self, journal: Journal, coll: dict[JSON, JSON], field: str) -> None:
        self.journal = journal
        self.coll = coll
        self.field = field
        self.buckets: dict[object, set[object]] = {}
        self.filed_as: dict[JSON, JSON] = {}
        self.order: dict[object, int] = {}
        self.next = 0
        self.dirty: dict[object, None] = {}
        # Keys whose row the journal does not report on under that key (see _followed).
        self.volatile: set[object] = set()
        self.stale = True

    # -- told by the journal (before the change it names, or after a rollback) ----------------

    def touched(self, row: object, key: object, op: object) -> None:
        if self.stale:
            return
        dirty = self.dirty
        if row is not COLL:  # a change inside row ``row``: its place is unchanged
            dirty[row] = None
        elif op is DELETE or key not in self.coll:  # a row leaves, or a new one is appended
            self.order.pop(key, None)
            dirty.pop(key, None)
            dirty[key] = None
        else:  # a row is replaced where it stands
            dirty[key] = None

    def restored(self, keys: Iterator[object], removed: set[object]) -> None:
        if self.stale:
            return
        for key in keys:
            if key in removed:
                self.order.pop(key, None)
            self.dirty[key] = None

    def reset(self) -> None:
        self.stale = True

    # -- lookups ------------------------------------------------------------------------------

    def lookup(self, value: JSON) -> list[JSON]:
        if self.stale:
            self._build()
        else:
            if self.volatile:
                self.dirty.update(dict.fromkeys(self.volatile))
            if self.dirty:
                self._refile()
        keys = self.buckets.get(value)
        if not keys:
            return []
        return sorted(keys, key=self.order.__getitem__)

    def _followed(self, key: object, row: object) -> bool:
        """Whether every change to ``row`` reaches the journal as a change to row ``key``.

        True for the journal's own tracked rows, the base's rows (a world replaces one only
        through the journal) and immutable scalars; false for a plain container a tool stored,
        or a tracked row stored under a second key.
        """
        found = slot(row)
        if found is not None:  # a base row is followed too: the world can only replace it
            return (found[0] is self.journal or found[0] is SHARED) and found[2] == key
        return not isinstance(row, (dict, list))

    def _build(self) -> None:
        self.buckets, self.filed_as, self.order, self.dirty = {}, {}, {}, {}
        self.volatile = set()
        field, buckets, filed_as = self.field, self.buckets, self.filed_as
        # The storage, not the view: filing reads a field, and must not copy base rows in.
        for number, (key, row) in enumerate(dict.items(self.coll)):
            self.order[key] = number
            if not self._followed(key, row):
                self.volatile.add(key)
            value = _value(row, field)
            if value is not _NONE:
                buckets.setdefault(value, set()).add(key)
                filed_as[key] = value
        self.next = len(self.order)
        self.stale = False

    def _refile(self) -> None:
        coll, field, buckets, filed_as, order = (
            self.coll,
            self.field,
            self.buckets,
            self.filed_as,
            self.order,
        )
        for key in self.dirty:
            old = filed_as.pop(key, _NONE)
            if old is not _NONE:
                bucket = buckets[old]
                bucket.discard(key)
                if not bucket:
                    del buckets[old]
            if key not in coll:
                order.pop(key, None)
                self.volatile.discard(key)
                continue
            if key not in order:
                order[key] = self.next
                self.next += 1
            row = dict.__getitem__(coll, key)
            if self._followed(key, row):
                self.volatile.discard(key)
            else:
                self.volatile.add(key)
            value = _value(row, field)
            if value is not _NONE:
                buckets.setdefault(value, set()).add(key)
                filed_as[key] = value
        self.dirty = {}
