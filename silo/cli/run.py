"""``silo-run``: compose a config with Hydra and run rollouts.

Contract: ``silo-run env=crm task=TASK-002 agent=solver`` composes ``conf/`` (the project's
first, then Silo's packaged one), runs the rollout(s) through :func:`silo.run_task`, prints a
report and exits 0 only when every rollout passed (1 when one failed, 2 when a rollout could not
start or the command line is wrong). ``-m`` sweeps with Silo's sweeper (``hydra/sweeper=silo``,
see :mod:`silo.cli.hydra.sweeper`) and any installed launcher; a single run's config is
composed once (:func:`compose_single_run`), not twice. :func:`run` returns the exit
status; :func:`main` is the console script. Without ``env=`` the project's one environment
is used and named in one line; a project with several or none gets the choices (exit 2). User mistakes get one line on stderr, never a
traceback. No ``outputs/`` or ``.hydra/`` folders are written.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig

from silo.cli.hydra.completion import answer as answer_completion
from silo.cli.hydra.completion import completion_query
from silo.cli.hydra.help import HYDRA_HELP_OVERRIDE
from silo.cli.hydra.setup import check_group_overrides, prepare
from silo.cli.hydra.task import RunTask
from silo.errors import SiloError
from silo.loading.project import default_environment

__all__ = ["compose_single_run", "flags_first", "main", "needs_default_env", "run"]

# Arguments that make Hydra print something instead of running: no override check for them.
_HYDRA_INFO = ("--help", "-h", "--hydra-help", "--cfg", "-c", "--info", "-i")
# Hydra's flags that take no value. Its parser reads the overrides as one run of words, so
# ``env=crm -m task=a,b`` would refuse ``task=a,b`` with a page of usage; with these flags moved
# first the command means what it says.
_FLAGS_ANYWHERE = ("-m", "--multirun", "-r", "--run", "--resolve")


def flags_first(argv: list[str]) -> list[str]:
    """``argv`` with Hydra's value-less flags moved before everything else, order kept."""
    return [a for a in argv if a in _FLAGS_ANYWHERE] + [a for a in argv if a not in _FLAGS_ANYWHERE]


def needs_default_env(args: list[str]) -> bool:
    """Whether the command line leaves ``env=`` to Silo (no ``env=``, no ``+sweep=`` naming it)."""
    keys = {a.lstrip("+~").partition("=")[0] for a in args if "=" in a}
    return not keys & {"env", "sweep", "hydra.sweeper.params"}


def _with_default_env(args: list[str], project: Path) -> list[str]:
    """``args`` plus ``env=`` of the project's one environment, said in one line on stderr.

    A project with several environments or none raises ``env_not_chosen`` (the choices).
    """
    name = default_environment(project)
    sys.stderr.write(f"silo-run: env={name} (the project's one environment)\n")
    sys.argv.append(f"env={name}")  # Hydra reads sys.argv itself
    return [*args, f"env={name}"]


def run() -> int:
    """Run ``silo-run`` on the command line in ``sys.argv`` (Hydra reads it there too).

    Returns the exit status: the worst of the rollouts' (see :class:`RunTask`), 2 for a
    mistake found before Hydra starts or a config Hydra could not compose.
    """
    sys.argv[1:] = flags_first(sys.argv[1:])  # Hydra reads sys.argv itself
    args = sys.argv[1:]
    if not sys.stdout.isatty():  # Ray's driver colours its workers' output unless told not to
        os.environ.setdefault("RAY_COLOR_PREFIX", "0")
        os.environ.setdefault("RAY_DEDUP_LOGS", "0")  # its "[repeated 2x …]" note is coloured
    if "--hydra-help" in args:  # Hydra reads sys.argv: select Silo's listing of the groups
        sys.argv.append(HYDRA_HELP_OVERRIDE)
    try:
        project = prepare()
        if "--list" in args:
            from silo.cli.ls import main as list_main

            return list_main([a for a in args if a != "--list"], prog="silo-run --list")
        composed = None
        if not any(a in _HYDRA_INFO or a.startswith(("-sc", "--shell-completion")) for a in args):
            if needs_default_env(args):
                args = _with_default_env(args, project)
            check_group_overrides(list(args), project)
            composed = compose_single_run(args)
            if composed is None:
                from silo.cli.hydra.precompose import check_composes
                from silo.cli.hydra.setup import project_conf_source

                check_composes(args, [project_conf_source(project), "pkg://silo.conf"])
    except SiloError as exc:
        sys.stderr.write(f"silo-run: {exc.message}\n")
        return int(getattr(type(exc), "exit_code", 2))
    if composed is not None:
        from silo.cli.hydra.execute import execute_job

        cfg, agent_choice = composed
        return execute_job(cfg, project, agent_choice, None)
    task = RunTask(project)
    app = hydra.main(version_base="1.3", config_path="pkg://silo._main", config_name="silo")
    shell = completion_query(args)
    if shell is not None:  # task ids, and +sweep= (see silo.cli.hydra.completion)
        answer_completion(shell, project, app(task))
        return 0
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


def compose_single_run(args: list[str]) -> tuple[DictConfig, str | None] | None:
    """A plain single run's job config and ``agent=`` choice, composed once; else None.

    ``hydra.main`` composes a single run's config twice (once only to read ``hydra.mode``), a
    large share of a short rollout's start-up. A command line with no flag and no ``hydra``
    key is composed once with Hydra's Compose API instead, into the config ``hydra.main``
    would hand the job. None when it has a flag or a ``hydra`` key, or asks for a multirun:
    then ``hydra.main`` takes over.

    Raises:
        SiloError: the command line does not compose (one line, see
            :mod:`silo.cli.hydra.errors`); ``hydra.main`` would fail the same way.
    """
    if any(a.startswith("-") or a.lstrip("+~").startswith("hydra") for a in args):
        return None
    from hydra import compose, initialize_config_module
    from hydra.types import RunMode
    from omegaconf import open_dict

    try:
        with initialize_config_module(config_module="silo._main", version_base="1.3"):
            cfg = compose(config_name="silo", overrides=args, return_hydra_config=True)
    except Exception as exc:  # whatever Hydra or OmegaConf raised composing the line
        from silo.cli.hydra.errors import composition_error

        raise composition_error(exc) from None
    if cfg.hydra.mode == RunMode.MULTIRUN:
        return None
    agent_choice = cfg.hydra.runtime.choices.get("agent")
    with open_dict(cfg):
        del cfg["hydra"]  # as hydra.main hands a job its config
    return cfg, agent_choice


def main() -> None:
    """Console script ``silo-run``: exit with :func:`run`'s status for the command line."""
    sys.exit(run())
