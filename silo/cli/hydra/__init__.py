"""Everything in Silo that knows Hydra: config setup, planning, execution, sweeper, launcher.

Contract: only this subpackage imports ``hydra`` or ``omegaconf``; it turns composed configs into
:class:`~silo.batch.point.Point` plans and hands them to the batch layer.
"""
