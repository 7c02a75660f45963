"""Finding the project and its environment folders on disk.

Contract: :func:`find_project_dir` is the folder every command works in;
:func:`list_environments` names the environment folders under it;
:func:`available_environments` adds those installed packages offer
(:mod:`silo.loading.installed`); :func:`resolve_environment_dir` turns a name or a path into an
environment folder — a path first, then the project's ``environments/<name>``, then an installed
package's — or raises :class:`~silo.errors.EnvironmentLoadError` ``environment_not_found``
listing the known ones. :func:`default_environment` is the environment a command uses without
``env=``: the project's own one when it has exactly one, else a
:class:`~silo.errors.ConfigError` ``env_not_chosen`` listing the choices.
"""

from __future__ import annotations

import os
from pathlib import Path

from silo.errors import ConfigError, EnvironmentLoadError
from silo.loading.installed import installed_environment_dir, installed_names

__all__ = [
    "available_environments",
    "default_environment",
    "find_project_dir",
    "list_environments",
    "resolve_environment_dir",
]

_MARKERS = ("environments", "conf", ".silo")


def find_project_dir(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` holding ``environments/``, ``conf/`` or ``.silo/``.

    ``SILO_PROJECT_DIR`` wins when set; with no marker anywhere, ``start`` itself.
    """
    override = os.environ.get("SILO_PROJECT_DIR")
    if override:
        return Path(override).resolve()
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if any((candidate / marker).is_dir() for marker in _MARKERS):
            return candidate
    return here


def list_environments(project_dir: Path) -> list[str]:
    """The environment folder names under ``<project>/environments``, sorted (hidden skipped)."""
    base = project_dir / "environments"
    if not base.is_dir():
        return []
    return sorted(
        p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
    )


def available_environments(project_dir: Path) -> list[str]:
    """Every name ``env=`` accepts: the project's folders and installed packages', sorted."""
    return sorted({*list_environments(project_dir), *installed_names()})


def resolve_environment_dir(name: str, project_dir: Path | None = None) -> Path:
    """The folder of environment ``name``: a path, a project folder or an installed package."""
    project = project_dir or find_project_dir()
    candidate = Path(name)
    is_path = os.sep in name or name.startswith(".")
    if is_path:
        root = (project / candidate).resolve() if not candidate.is_absolute() else candidate
        if root.is_dir():
            return root
    root = project / "environments" / name
    if root.is_dir():
        return root.resolve()
    installed = None if is_path else installed_environment_dir(name)
    if installed is not None:
        return installed
    known = available_environments(project)
    hint = f"known: {', '.join(known)}" if known else "create one with: silo-init <name>"
    raise EnvironmentLoadError(
        "environment_not_found",
        f'unknown environment "{name}" in {project / "environments"}; {hint}',
    )


def default_environment(project_dir: Path) -> str:
    """The environment a command uses without ``env=``: the project's own, when it has one.

    Only the project's ``environments/`` counts: an installed package's environment (the
    CRM, say) is never picked silently, so a task id always means the task of the world the
    user is building.

    Raises:
        ConfigError: ``env_not_chosen``, when the project has several environments or none;
            the one line lists the choices.
    """
    own = list_environments(project_dir)
    if len(own) == 1:
        return own[0]
    if own:
        return _choose(f"{len(own)} environments in {project_dir / 'environments'}", own)
    installed = sorted(installed_names())
    where = f"no environment in {project_dir / 'environments'}"
    if not installed:
        raise ConfigError("env_not_chosen", f"{where}; create one with: silo-init <name>")
    return _choose(where, installed, " (installed), or create one with: silo-init <name>")


def _choose(where: str, names: list[str], tail: str = "") -> str:
    choices = ", ".join(f"env={name}" for name in names)
    raise ConfigError("env_not_chosen", f"{where}; choose one: {choices}{tail}")
