"""The world layer: journaled state over one shared base, its diff, and field indexes. No I/O.

Contract: a pool's initial state is one immutable :class:`~silo.world.cow.Base`, and every
world is a copy-on-write view over it (:mod:`silo.world.cow`) that copies in what its rollout
reads, built from :class:`~silo.world.tracked.TrackedDict` and
:class:`~silo.world.tracked.TrackedList`, which tell a :class:`~silo.world.journal.Journal`
before their first change. From the journal and the base a :class:`~silo.world.pool.World`
gives the initial state, the ``state-diff.json`` document and the rollback to a fresh world, at
the cost of what a rollout touched. :class:`~silo.world.indexes.Index` looks rows up by a field
from a filing made once per base, corrected by what the rollout touched. Nothing here reads or
writes files.
"""
