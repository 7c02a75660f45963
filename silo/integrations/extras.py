"""One-line errors for an integration whose optional dependencies are not installed.

Contract: :func:`require` raises :class:`~silo.errors.SiloError` (code ``extra_missing``) naming
the extra that installs ``module`` when it cannot be imported, so a user sees the fix instead
of a ``ModuleNotFoundError`` traceback from deep inside an import.
"""

from __future__ import annotations

from silo.distribution import install_hint, installed
from silo.errors import ConfigError

__all__ = ["require"]


def require(module: str, extra: str, what: str) -> None:
    """Raise a one-line SiloError when ``module`` (needed by ``what``) is not installed."""
    if not installed(module):
        raise ConfigError(
            "extra_missing",
            f"{what} needs the [{extra}] extra; install it with {install_hint(extra)}",
        )
