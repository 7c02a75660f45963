"""Everything in Silo that knows Hydra: config setup, planning, execution, sweeper, launcher.

Contract: besides the entry modules of the commands Hydra composes (``silo.cli.run``,
``silo.cli.baseline``, ``silo.cli.mcp``), only this subpackage imports ``hydra`` or
``omegaconf``; it turns composed configs into :class:`~silo.batch.point.Point` plans and hands
them to the batch layer.
"""
