"""Loading environments from folders: manifests, entrypoints, tasks, user Python files.

Contract: one loader, :func:`~silo.loading.environment.read_environment`, reads
``environments/<name>/`` and either raises its first problem (a :class:`~silo.errors.SiloError`
subclass naming the file and the fix) or hands every problem to a callback and returns what it
could load; :func:`~silo.loading.environment.load_environment` gives the complete
:class:`~silo.loading.definition.Environment` definition through an explicit
:class:`~silo.loading.environment.EnvironmentCache`. User files are imported as private packages
so relative imports work (:mod:`silo.loading.modules`); :mod:`silo.loading.project` finds the
project and its environment folders; :mod:`silo.loading.discovery` turns what a rollout's
caller named into its environment, task and runs folder. Depends on the authoring contracts only, never on the
rollout layer.
"""
