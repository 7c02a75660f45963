"""The type of a JSON value: the one place where Silo's types deliberately say ``Any``.

Contract: ``JSON`` names a value that is (or is about to become) JSON: a tool's input and
output, a world's records, an artifact's document, a trace event's fields, a task file's
extra keys. It is ``Any`` underneath on purpose: a recursive union would make every read of
such a value (``args["id"]``, ``row["status"]``) narrow with ``isinstance`` first, in every tool
an environment author writes, for no check the schema validation does not already make. Where
``Any`` is still written elsewhere in ``silo/``, and why, is in docs/architecture.md ("Where
``Any`` is deliberate").
"""

from __future__ import annotations

from typing import Any, TypeAlias

__all__ = ["JSON"]

JSON: TypeAlias = Any
