"""Loading environments from folders: manifests, entrypoints, tasks, user Python files.

Contract: :func:`~silo.loading.environment.load_environment` turns ``environments/<name>/`` into an
:class:`~silo.loading.environment.Environment` definition or raises one :class:`~silo.errors.SiloError`
naming the file and the fix. User files are imported as private packages so relative imports work.
"""
