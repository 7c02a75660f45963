"""``silo-run``: compose a config with Hydra and run rollouts.

Contract: ``silo-run env=crm task=TASK-002 agent=solver`` composes ``conf/`` (the project's
first, then Silo's packaged one), runs the rollout(s) through :func:`silo.run_task`, prints a
report and exits 0 only when every rollout passed (1 when one failed, 2 when a rollout could not
start). ``-m`` sweeps with Silo's sweeper (``hydra/sweeper=silo``, see
:mod:`silo.cli.hydra.sweeper`) and any installed launcher; a single run's config is composed once,
not twice (see :func:`silo.cli.hydra.setup.compose_once`). User mistakes get one
line on stderr, never a traceback. No ``outputs/`` or ``.hydra/`` folders are written.
"""

from __future__ import annotations

import sys
from contextlib import nullcontext

import hydra
from omegaconf import DictConfig

from silo.cli.hydra.setup import check_group_overrides, compose_once, prepare
from silo.errors import SiloError

__all__ = ["main", "STATUS"]

STATUS: list[int] = []
_PROJECT: list[object] = []


@hydra.main(version_base="1.3", config_path="pkg://silo._main", config_name="silo")
def _app(cfg: DictConfig) -> None:
    from silo.cli.hydra.execute import execute

    STATUS.append(execute(cfg, _PROJECT[0]))  # type: ignore[arg-type]


def main() -> None:
    args = sys.argv[1:]
    try:
        project = prepare()
        if "--list" in args:
            from silo.cli.ls import main as list_main

            sys.exit(list_main([a for a in args if a != "--list"], prog="silo-run --list"))
        if not any(
            a in ("--help", "-h", "--hydra-help", "--cfg", "-c", "--info", "-i")
            or a.startswith("-sc")
            or a.startswith("--shell-completion")
            for a in args
        ):
            check_group_overrides(args, project)
    except SiloError as exc:
        sys.stderr.write(f"silo-run: {exc.message}\n")
        sys.exit(2)
    _PROJECT[:] = [project]
    STATUS.clear()
    from silo.cli.hydra.sweeper import register  # hydra/sweeper=silo: not found by Hydra's scan

    register()
    # A multirun composes once per job whatever get_mode does: only a single run gains.
    multirun = "-m" in args or "--multirun" in args
    try:
        with nullcontext() if multirun else compose_once():
            _app()
    except ValueError as exc:  # Hydra's own argument checks (e.g. -m with --cfg)
        sys.stderr.write(f"silo-run: {exc}\n")
        sys.exit(2)
    sys.exit(max(STATUS, default=0))
