"""Rollouts: one agent against one task on a fresh world, graded, with its trace streamed.

Contract: :class:`~silo.rollout.core.Rollout` is the one core every rollout runs through: it
opens the world, trace and run folder, routes every tool call through the bridge (validated,
copied, counted, traced, refused once the rollout ended) and, once, grades the final world and
writes the artifacts. Its drivers: :func:`~silo.rollout.run.run_task` (an agent on a worker
thread, the budget enforced by the driver) and :class:`~silo.rollout.session.Session` (outside
code calls the tools; a timer enforces the deadline). The first termination reason wins.
"""
