"""JSON helpers shared by the artifacts: canonical text, pretty files, atomic writes.

Contract: ``pretty`` gives the exact text of every JSON artifact (2-space indent, UTF-8, a
trailing newline); ``canonical`` gives a key-order-independent text used for equality; and
``write_json_atomic`` never leaves a half-written file (temporary file, then ``os.replace``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["canonical", "pretty", "write_json_atomic", "write_text_atomic", "to_json_text"]

_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_canonical = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False, default=repr
).encode


def to_json_text(value: Any) -> str:
    """Compact JSON for a value that must be JSON (raises TypeError/ValueError otherwise)."""
    return _compact(value)


def canonical(value: Any) -> str:
    """Key-order-independent JSON text, for comparing two values structurally."""
    return _canonical(value)


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def write_text_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


def write_json_atomic(path: Path, value: Any) -> None:
    write_text_atomic(path, pretty(value))
