"""Authoring: editing an environment's files the way a person would, but safely.

Contract: every function takes an environment folder and a few plain values, changes only the
files it names, writes each file atomically, and returns a JSON-ready summary of what it did.
Task and data edits validate the result before writing it (a task still parses as a task, a data
file is still JSON) and keep every key they were not asked to change. Tool and verifier
scaffolding writes the new code, registers it in the environment's own list (``TOOLS`` /
``ALL_TOOLS`` in ``tools/__init__.py``, ``VERIFIERS`` / ``verifiers`` in ``verifiers.py``, else in
the entrypoint) and then loads the environment; when it no longer loads, every file is put back.
A refusal is a :class:`~silo.errors.AuthoringError` (a :class:`~silo.errors.TaskError` for a
missing task, the loader's errors for an environment that does not load) with a one-line
message. Nothing here prompts.
"""
