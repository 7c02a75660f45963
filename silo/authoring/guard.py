"""Keeping an edit only when the environment still starts.

Contract: :func:`load_afresh` loads an environment from its files as they are now (not from
earlier imports). :func:`start_problem` says why an environment does not start — it does not
load, or ``create_state()`` / ``bind_tools(state)`` raises — or returns None when it does.
:func:`keep_if_it_starts` runs an edit (an :class:`~silo.authoring.files.Edit` filled by a
callable) and undoes every file of it when an environment that started before no longer does,
raising :class:`~silo.errors.AuthoringError` ``edit_breaks_environment`` in one line that
names the edit and the reason. An environment already broken before the edit is left to the
author to mend, edit by edit (``silo-validate`` says what is wrong).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from silo.authoring.files import Edit
from silo.errors import AuthoringError, SiloError
from silo.loading.environment import Environment, load_environment, read_manifest
from silo.loading.modules import describe_exception, package_for_dir

__all__ = ["keep_if_it_starts", "load_afresh", "start_problem"]

T = TypeVar("T")


def load_afresh(root: Path) -> Environment:
    """The environment loaded from its files as they are now, not from earlier imports."""
    package = package_for_dir(root, root.name)
    for module in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[module]
    return load_environment(root, reload=True)


def start_problem(root: Path) -> str | None:
    """Why the environment in ``root`` does not start (load, create a world, bind tools)."""
    try:
        env = load_afresh(root)
    except SiloError as exc:
        return exc.message
    try:
        env.bind_tools(env.create_state())
    except Exception as exc:  # the environment's own code: any exception is its problem
        entrypoint = root / read_manifest(root).entrypoint
        return f"its world no longer builds ({describe_exception(exc, entrypoint)})"
    return None


def keep_if_it_starts(root: Path, what: str, change: Callable[[Edit], T]) -> T:
    """Run ``change`` on a new :class:`Edit`; undo it if the environment stops starting.

    ``what`` names the edit in the refusal (e.g. ``removing environments/x/data/books.json``).
    """
    started = start_problem(root) is None
    edit = Edit(root)
    try:
        done = change(edit)
    except BaseException:
        edit.undo()
        raise
    problem = start_problem(root) if started else None
    if problem is not None:
        edit.undo()
        load_afresh(root)  # later loads in this process see the files as they are again
        raise AuthoringError(
            "edit_breaks_environment",
            f"{what} would stop environment {root.name!r} from starting: {problem}; "
            "nothing was changed",
        )
    return done
