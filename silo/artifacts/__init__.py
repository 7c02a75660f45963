"""Run artifacts: run ids, run folders and the documents a rollout leaves on disk.

Contract: every rollout gets its own ``<runs_dir>/<runId>/`` from an exclusive ``mkdir`` and leaves
``trace.jsonl``, ``result.json``, ``state-diff.json`` and ``run.json`` there; JSON files are written
atomically. ``result.json`` and ``state-diff.json`` carry no timestamps and no run ids.
"""
