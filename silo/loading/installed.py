"""Environments installed as Python packages, found through the ``silo.environments`` entry points.

Contract: a distribution makes ``env=<name>`` available by declaring, in its ``pyproject.toml``::

    [project.entry-points."silo.environments"]
    <name> = "<package>"              # the package's own folder is the environment
    <name> = "<module>:<attribute>"   # a Path/str, or a no-argument callable returning one

The folder named is an ordinary environment folder (manifest, entrypoint, ``data/``,
``tasks/``), installed as package data. :func:`installed_names` lists the names without
importing anything; :func:`installed_environment_dir` resolves one name, importing only the
module its entry point names, and raises :class:`~silo.errors.EnvironmentLoadError`
``environment_package_invalid`` (naming the distribution and the fix) when the entry point
cannot be loaded, names no folder, or two distributions claim the name. A project's own
``environments/<name>`` folder always wins; :mod:`silo.loading.project` applies that order.
"""

from __future__ import annotations

import importlib.util
import os
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from silo.errors import EnvironmentLoadError

__all__ = ["ENTRY_POINT_GROUP", "installed_environment_dir", "installed_names"]

ENTRY_POINT_GROUP = "silo.environments"


def _entry_points() -> list[EntryPoint]:
    return list(entry_points(group=ENTRY_POINT_GROUP))


def installed_names() -> list[str]:
    """The names installed packages offer as environments, sorted (nothing is imported)."""
    return sorted({point.name for point in _entry_points()})


def _distribution(point: EntryPoint) -> str:
    return point.dist.name if point.dist is not None else "an unknown distribution"


def _broken(point: EntryPoint, problem: str) -> EnvironmentLoadError:
    dist = _distribution(point)
    return EnvironmentLoadError(
        "environment_package_invalid",
        f'installed environment "{point.name}" ({ENTRY_POINT_GROUP} entry point '
        f"{point.value!r} of {dist}) {problem}; reinstall or uninstall {dist}",
    )


def _package_folder(point: EntryPoint) -> Path | None:
    """The folder of the package an attribute-less entry point names, without importing it."""
    spec = importlib.util.find_spec(point.module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _folder_of(point: EntryPoint) -> Path | None:
    if not point.attr:
        return _package_folder(point)
    target = point.load()
    if callable(target):
        target = target()
    return Path(target) if isinstance(target, str | os.PathLike) else None


def installed_environment_dir(name: str) -> Path | None:
    """The folder of the installed environment ``name``; None when no package offers it."""
    points = [point for point in _entry_points() if point.name == name]
    if not points:
        return None
    owners = sorted({_distribution(point) for point in points})
    if len(owners) > 1:
        raise EnvironmentLoadError(
            "environment_package_invalid",
            f'installed environment "{name}" is offered by {" and ".join(owners)}; '
            "uninstall all but one (or add environments/" + name + " to the project)",
        )
    point = points[0]
    try:
        folder = _folder_of(point)
    except Exception as exc:  # a third-party package's import-time failure, told in one line
        raise _broken(point, f"could not be loaded ({type(exc).__name__}: {exc})") from None
    if folder is None:
        raise _broken(point, "names neither a package nor a folder path")
    if not folder.is_dir():
        raise _broken(point, f"names {folder}, which is not a folder")
    return folder.resolve()
