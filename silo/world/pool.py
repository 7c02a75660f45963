"""Worlds: fresh state for every rollout at the cost of what the rollout touches.

Contract: :meth:`WorldPool.acquire` hands out a :class:`World` whose ``state`` equals a fresh
``create_state()`` and whose ``tools`` are bound to it. A pool calls ``create_state()`` once and
keeps the result as its immutable :class:`~silo.world.cow.Base`; each world is a copy-on-write
view over it (:mod:`silo.world.cow`), so N worlds in flight cost what their rollouts read, not
N copies. During the rollout the journal notes every row (a value under a top-level dict) or
log (a top-level list) before its first change; the base holds what each was. From that the
world gives, without copying the untouched world:

* :meth:`World.initial` — the state as it was when the rollout began (read-only);
* :meth:`World.diff` — the ``state-diff.json`` document;
* :meth:`World.reset` — the rollback that makes the world equal to its base for the next rollout.

A state that is not made of JSON values falls back to a deep-copied snapshot and a fresh
``create_state()`` per rollout: slower, equally correct.
"""

from __future__ import annotations

import copy
import threading
import weakref
from collections.abc import Callable
from typing import Protocol, TypeVar, cast

from silo.json_types import JSON
from silo.jsonio import canonical
from silo.tools import Tool
from silo.world.cow import Base
from silo.world.diff import ABSENT, diff_states, diff_value, row_keys
from silo.world.journal import ACTIVE, FROZEN, Journal, Log, Rows, StateMutationError
from silo.world.savepoint import Savepoint
from silo.world.tracked import NotTrackable

__all__ = ["World", "WorldPool", "WorldPools", "StateMutationError"]

T = TypeVar("T")


class World:
    """One world: ``state``, the ``tools`` bound to it, and its journal."""

    def __init__(
        self,
        create_state: Callable[[], JSON],
        bind_tools: Callable[[JSON], list[Tool]],
        base: Base | None = None,
    ) -> None:
        """A world over ``base`` (its pool's); without one, over a base of its own."""
        self._journal: Journal | None = None
        self._snapshot: JSON = None
        if base is None:
            raw = create_state()
            if type(raw) is dict:
                try:
                    base = Base(raw)
                except NotTrackable:
                    base = None
        if base is not None:
            self._journal = Journal(base)
            self.state: JSON = self._journal.root
        else:
            self.state = raw
            self._snapshot = copy.deepcopy(raw)
        self.base = base
        tools = list(bind_tools(self.state))
        self.tools: dict[str, Tool] = {}
        for item in tools:
            self.tools[getattr(item, "name", "")] = item
        self.tool_list = tools

    @property
    def tracked(self) -> bool:
        """True when the state is journaled (False: a deep-copied snapshot instead)."""
        return self._journal is not None

    def savepoint(self) -> Savepoint | None:
        """A savepoint that undoes one tool call (None: this world is not journaled)."""
        return None if self._journal is None else Savepoint(self._journal)

    def begin(self) -> None:
        """Start recording: the rollout begins, every first touch is saved from now on."""
        if self._journal is not None:
            self._journal.mode = ACTIVE

    def freeze(self) -> None:
        """From now on the world is read-only (verifiers run against it)."""
        if self._journal is not None:
            self._journal.mode = FROZEN

    def initial(self) -> JSON:
        """The state as the rollout began (read-only)."""
        if self._journal is None:
            return self._snapshot
        return self._journal.initial()

    def diff(self) -> dict[str, JSON]:
        """The ``state-diff.json`` document: what the rollout changed, in the world's order."""
        journal = self._journal
        if journal is None:
            return diff_states(self._snapshot, self.state)
        scalars: list[dict[str, JSON]] = []
        collections: dict[str, JSON] = {}
        root = journal.root
        order = list(root) + [k for k in (journal.root_keys or ()) if k not in root]
        for top in order:
            rec = journal.recs.get(top)
            if rec is None:
                continue
            if type(rec) is Rows:
                entry = self._diff_rows(top, rec)
                if entry is not None:
                    collections[top] = entry
            elif type(rec) is Log and rec.pre is None:
                log = dict.__getitem__(root, top)
                added = row_keys(list.__getitem__(log, slice(rec.prefix, None)), rec.prefix)
                if not added:
                    continue
                fresh = set(added)
                if len(fresh) == len(added) and fresh.isdisjoint(journal.base.log_names(top)):
                    collections[top] = {"added": added, "removed": [], "changed": []}
                else:  # an appended row reuses a name: the full comparison decides
                    before = list.__getitem__(log, slice(0, rec.prefix))
                    diff_value(top, before, log, scalars, collections)
            else:
                before = journal.initial_value(top, rec)
                diff_value(top, before, dict.get(root, top, ABSENT), scalars, collections)
        return {"scalars": scalars, "collections": collections}

    def _diff_rows(self, top: object, rec: Rows) -> dict[str, list[JSON]] | None:
        coll = dict.__getitem__(self._journal.root, top)  # type: ignore[union-attr]
        added, removed, changed = [], [], []
        for key, before in rec.pre.items():
            if before is ABSENT:
                if key in coll:
                    added.append(key)
            elif key not in coll:
                removed.append(key)
            elif canonical(before) != canonical(dict.__getitem__(coll, key)):
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

    def _original_positions(self, top: object, coll: JSON, rec: Rows) -> dict[object, int]:
        if rec.keys_before is not None:
            return {k: i for i, k in enumerate(rec.keys_before)}
        return self._journal.base.positions(top)  # type: ignore[union-attr]

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
    """Fresh worlds on demand, reusing rolled-back ones (thread-safe).

    Each rollout in flight holds a world of its own, a copy-on-write view over the pool's one
    :class:`~silo.world.cow.Base` (built from the first ``create_state()``); a released world
    is rolled back and handed to the next rollout, so a pool holds as many worlds as were ever
    in flight at once, each costing what its rollouts read.
    """

    def __init__(
        self,
        create_state: Callable[[], JSON],
        bind_tools: Callable[[JSON], list[Tool]],
        name: str = "",
    ) -> None:
        self._create_state = create_state
        self._bind_tools = bind_tools
        self._free: list[World] = []
        self._lock = threading.Lock()
        self._derived: dict[Callable[[World], object], object] = {}
        self._base: Base | None = None  # set by the first world: every later one shares it
        self._base_lock = threading.Lock()
        self._untracked = False  # the state is not JSON: every world is built, never shared
        self.name = name

    def acquire(self) -> World:
        """A fresh world for one rollout: a rolled-back one if free, else a new one."""
        with self._lock:
            world = self._free.pop() if self._free else None
        if world is None:
            world = self._new_world()
        world.begin()
        return world

    def _new_world(self) -> World:
        if self._base is not None or self._untracked:
            return World(self._create_state, self._bind_tools, self._base)
        with self._base_lock:  # rollouts starting at once must not each build a base
            world = World(self._create_state, self._bind_tools, self._base)
            self._base = world.base
            self._untracked = world.base is None
        return world

    def release(self, world: World, reusable: bool = True) -> None:
        """Give ``world`` back; it is rolled back and kept only when ``reusable``."""
        if reusable and world.reset():
            with self._lock:
                self._free.append(world)

    def derived(self, make: Callable[[World], T], world: World) -> T:
        """``make(world)``, computed once per pool: a value every world of it shares.

        E.g. the tool specs as JSON: kept here rather than on the world or the environment.
        """
        try:
            return cast(T, self._derived[make])
        except KeyError:
            value = make(world)
            with self._lock:
                return cast(T, self._derived.setdefault(make, value))

    def tools(self) -> list[Tool]:
        """The tools a world of this pool offers (for listing, not for calling)."""
        world = self.acquire()
        try:
            return list(world.tool_list)
        finally:
            self.release(world)


class WorldSource(Protocol):
    """What a pool is made from: an environment's ``create_state`` and ``bind_tools``."""

    @property
    def name(self) -> str:
        """The environment's name."""

    @property
    def create_state(self) -> Callable[[], JSON]:
        """Builds a fresh initial state."""

    @property
    def bind_tools(self) -> Callable[[JSON], list[Tool]]:
        """Binds the tools to a state."""


class WorldPools:
    """One :class:`WorldPool` per environment, for whoever runs rollouts (thread-safe).

    Keyed by the environment object and dropped with it: pooling lives with the runner, not on
    the environment (which stays a definition).
    """

    def __init__(self) -> None:
        self._pools: dict[int, WorldPool] = {}
        self._lock = threading.Lock()

    def pool(self, source: WorldSource) -> WorldPool:
        """The pool of ``source``'s worlds, made on first use."""
        key = id(source)
        found = self._pools.get(key)
        if found is None:
            with self._lock:
                found = self._pools.get(key)
                if found is None:
                    found = WorldPool(source.create_state, source.bind_tools, source.name)
                    self._pools[key] = found
                    weakref.finalize(source, self._pools.pop, key, None)
        return found
