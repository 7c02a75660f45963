"""Run artifacts: run ids, run folders and the documents a rollout leaves on disk.

Contract: every rollout gets its own ``<runs_dir>/<runId>/`` from an exclusive ``mkdir``
(:mod:`silo.artifacts.run_folder`) and leaves ``trace.jsonl``, ``result.json``,
``state-diff.json`` and ``run.json`` there; JSON files are written atomically. Each document has
one type in :mod:`silo.artifacts.documents`, used by the writer and every reader; ``run.json``
and the trace's ``run_start`` carry ``schemaVersion``. ``result.json`` and ``state-diff.json``
carry no timestamps and no run ids. Depends on the authoring contracts only.
"""
