"""The regression oracle of the runs under a folder, for tests that compare two ways of running.

``result.json`` and ``state-diff.json`` carry no time and no run id, so the same rollout gives
the same bytes in any process, launcher or concurrency.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def oracle_bytes(folder: Path, *keys: str) -> dict[tuple[Any, ...], bytes]:
    """Each run's ``result.json`` + ``state-diff.json`` bytes, by its ``run.json`` ``keys``."""
    found = {}
    for run_json in folder.rglob("run.json"):
        meta = json.loads(run_json.read_text())
        run_dir = run_json.parent
        oracle = (run_dir / "result.json").read_bytes() + (run_dir / "state-diff.json").read_bytes()
        found[tuple(meta[key] for key in keys)] = oracle
    return found
