"""The world layer: journaled state, its diff, and field indexes. No I/O.

Contract: a world's state is built from :class:`~silo.world.tracked.TrackedDict` and
:class:`~silo.world.tracked.TrackedList`, which save a pre-image in a
:class:`~silo.world.journal.Journal` before their first change. From the journal a
:class:`~silo.world.pool.World` gives the initial state, the ``state-diff.json`` document and the
rollback to a fresh world, at the cost of what a rollout touched. :class:`~silo.world.indexes.Index`
looks rows up by a field and stays current through the journal. Nothing here reads or writes files.
"""
