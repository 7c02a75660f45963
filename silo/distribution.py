"""Silo as an installed distribution: its name on the package index, its version, install hints.

Contract: the import name is ``silo``; the distribution is :data:`DISTRIBUTION`
(``silo-worlds``: ``silo`` on the package index is an unrelated project). :func:`version` is the
installed release (``0+unknown`` when Silo runs from files no installer recorded) and
:func:`install_hint` is the one wording every "install this extra" message uses, so no hint
ever names a command that installs something else. :func:`installed` tells whether a module an
extra brings can be imported, without importing it.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as distribution_version
from importlib.util import find_spec

__all__ = ["DISTRIBUTION", "install_hint", "installed", "version"]

DISTRIBUTION = "silo-worlds"


def version() -> str:
    """The installed version of Silo's distribution."""
    try:
        return distribution_version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"


def install_hint(extra: str) -> str:
    """The commands that install Silo's optional ``extra`` (from the index, or in a checkout)."""
    return f"pip install '{DISTRIBUTION}[{extra}]' (or pip install -e '.[{extra}]' in a checkout)"


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (found on the path; not imported, so it costs little)."""
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module with no spec
        return False
