"""Validation: every problem with an environment, before anyone evaluates on it.

Contract: :func:`~silo.validate.report.validate_environment` returns a report of findings
(level, code, message); static checks read the folder, deep checks run rollouts in memory.
"""
