"""Errors a user can act on.

Contract: every mistake in user input (a manifest, a task file, a config override, an agent
path) raises :class:`SiloError` with a stable ``code`` and a one-line ``message`` that says what
is wrong and how to fix it. Command-line tools print the message alone, never a traceback.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SiloError"]


class SiloError(Exception):
    """A user-facing error: ``code`` is stable, ``message`` is one line with the fix."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}

    def __str__(self) -> str:
        return self.message
