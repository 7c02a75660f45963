"""Many rollouts: points, sweeps, summaries, comparisons and baselines.

Contract: a :class:`~silo.batch.point.Point` is one (environment, task, agent, budget, seed);
:func:`~silo.batch.sweep.run_points` rolls points out with repeats and resume;
:func:`~silo.batch.summary.summarize` and :func:`~silo.batch.compare.compare` read run folders
back; :mod:`silo.batch.baseline` records and checks goldens. Nothing here knows Hydra.
"""
