"""``silo-run``: compose a config with Hydra and run rollouts.

Contract: ``silo-run env=crm task=TASK-002 agent=solver`` composes ``conf/`` (the project's
first, then Silo's packaged one), runs the rollout(s) through :func:`silo.run_task`, prints a
report and exits 0 only when every rollout passed (1 when one failed, 2 when a rollout could not
start or the command line is wrong). ``-m`` sweeps with Silo's sweeper (``hydra/sweeper=silo``,
see :mod:`silo.cli.hydra.sweeper`) and any installed launcher. :func:`run` returns the exit
status; :func:`main` is the console script. User mistakes get one line on stderr, never a
traceback. No ``outputs/`` or ``.hydra/`` folders are written.
"""

from __future__ import annotations

import sys

import hydra

from silo.cli.hydra.setup import check_group_overrides, prepare
from silo.cli.hydra.task import RunTask
from silo.errors import SiloError

__all__ = ["main", "run"]

# Arguments that make Hydra print something instead of running: no override check for them.
_HYDRA_INFO = ("--help", "-h", "--hydra-help", "--cfg", "-c", "--info", "-i")


def run() -> int:
    """Run ``silo-run`` on the command line in ``sys.argv`` (Hydra reads it there too).

    Returns the exit status: the worst of the rollouts' (see :class:`RunTask`), 2 for a
    mistake found before Hydra starts or a config Hydra could not compose.
    """
    args = sys.argv[1:]
    try:
        project = prepare()
        if "--list" in args:
            from silo.cli.ls import main as list_main

            return list_main([a for a in args if a != "--list"], prog="silo-run --list")
        if not any(a in _HYDRA_INFO or a.startswith(("-sc", "--shell-completion")) for a in args):
            check_group_overrides(list(args), project)
    except SiloError as exc:
        sys.stderr.write(f"silo-run: {exc.message}\n")
        return int(getattr(type(exc), "exit_code", 2))
    task = RunTask(project)
    app = hydra.main(version_base="1.3", config_path="pkg://silo._main", config_name="silo")
    try:
        app(task)()
    except ValueError as exc:  # Hydra's own argument checks (e.g. -m with --cfg)
        sys.stderr.write(f"silo-run: {exc}\n")
        return 2
    except SystemExit as exc:
        # Hydra exits 1 after printing why it could not compose or start (the task function
        # itself returns its status, never exits): for silo-run that is "could not start".
        return 0 if exc.code in (0, None) else 2
    return task.exit_status.value


def main() -> None:
    """Console script ``silo-run``: exit with :func:`run`'s status for the command line."""
    sys.exit(run())
