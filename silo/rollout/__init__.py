"""Rollouts: one agent against one task on a fresh world, graded, with its trace streamed.

Contract: :func:`~silo.rollout.run.run_task` runs the agent on a worker, routes every tool call
through the bridge (validated, copied, counted, traced), enforces the budget, runs the verifier on
the final world and hands the artifacts layer what to write. The first termination reason wins.
"""
