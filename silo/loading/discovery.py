"""Where a rollout's project, environment, task and runs folder are: found once, from names.

Contract: :func:`locate` turns what a caller names (an environment name, path or
:class:`~silo.loading.definition.Environment`; a task id or :class:`~silo.tasks.Task`; an
optional project and runs folder) into the loaded environment, the task and the runs folder of
a new rollout (None when it writes no artifacts), looking for the project only when something
needs it. :func:`project_path` is a named project folder resolved, or the project found from
the working folder (:func:`silo.loading.project.find_project_dir`).
"""

from __future__ import annotations

import functools
from pathlib import Path

from silo.loading.definition import Environment
from silo.loading.environment import load_environment
from silo.loading.project import find_project_dir
from silo.tasks import Task

__all__ = ["locate", "project_path"]


def locate(
    env: str | Path | Environment,
    task: str | Task,
    project_dir: Path | None,
    runs_dir: Path | None,
    write_artifacts: bool,
) -> tuple[Path | None, Environment, Task, Path | None]:
    """The project, environment, task and runs folder (None: in memory) of a new rollout.

    The project is None when nothing here needed it (an :class:`Environment` given, and its
    runs folder or no artifacts): finding it costs a system call per path part, on every
    rollout of a sweep. :func:`project_path` finds it for a caller that needs it after all.
    """
    project = None
    if not isinstance(env, Environment) or (write_artifacts and not runs_dir):
        project = project_path(project_dir)
    environment = env if isinstance(env, Environment) else load_environment(env, project)
    the_task = task if isinstance(task, Task) else environment.task(task)
    if not write_artifacts:
        return project, environment, the_task, None
    if runs_dir:
        return project, environment, the_task, Path(runs_dir)
    assert project is not None  # looked up above for exactly this
    return project, environment, the_task, project / ".silo" / "runs"


def project_path(project_dir: Path | None) -> Path:
    """``project_dir`` resolved, or the project found from the working folder (None)."""
    if not project_dir:
        return find_project_dir()
    path = Path(project_dir)
    return _resolved_absolute(path) if path.is_absolute() else path.resolve()


@functools.lru_cache(maxsize=64)
def _resolved_absolute(path: Path) -> Path:
    """An absolute folder resolved, and kept.

    A session per episode names the same project each time, and resolving it costs a system
    call per part of the path.
    """
    return path.resolve()
