"""What silo-mcp is asked to serve, checked without the MCP SDK.

Contract: :data:`TRANSPORTS` and :data:`FINISH_RESULTS` are the values ``transport=`` and
``finish_result=`` take; :func:`check_transport` and :func:`check_finish_result` raise a one-line
:class:`~silo.errors.ConfigError` for any other. This module imports nothing beyond Silo's
contracts, so ``silo-mcp`` refuses a bad command line before it pays for importing the SDK.
"""

from __future__ import annotations

from silo.errors import ConfigError

__all__ = ["FINISH_RESULTS", "TRANSPORTS", "check_finish_result", "check_transport"]

TRANSPORTS = ("stdio", "http")
FINISH_RESULTS = ("recorded", "grade")


def check_transport(transport: str) -> None:
    """Refuse a transport silo-mcp does not speak."""
    if transport not in TRANSPORTS:
        raise ConfigError("config_invalid", f"transport must be stdio or http, got {transport!r}")


def check_finish_result(finish_result: str) -> None:
    """Refuse a ``finish_result`` that is neither ``recorded`` nor ``grade``."""
    if finish_result not in FINISH_RESULTS:
        raise ConfigError(
            "config_invalid", f"finish_result must be recorded or grade, got {finish_result!r}"
        )
