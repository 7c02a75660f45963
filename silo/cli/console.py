"""The console scripts: each command's ``main`` behind one wrapper for ``--version`` and closed pipes.

Contract: every ``silo-*`` script in ``pyproject.toml`` points here. ``--version`` anywhere on
the command line prints ``<prog> (silo-worlds) <version>`` (and Hydra's version for the
Hydra-based commands) and exits 0 without running the command. A reader that goes away
(``silo-run --help | head -3``) ends the command quietly with status 141 (128 + SIGPIPE, what
a shell reports for a program killed by a closed pipe), never a ``BrokenPipeError`` traceback.
Each command's module is imported only when its script runs, so light commands stay light.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable

from silo.distribution import DISTRIBUTION, version

__all__ = [
    "BROKEN_PIPE_STATUS",
    "console",
    "silo_baseline",
    "silo_compare",
    "silo_env",
    "silo_init",
    "silo_ls",
    "silo_mcp",
    "silo_run",
    "silo_validate",
    "silo_view",
    "version_text",
]

BROKEN_PIPE_STATUS = 141
# The commands that compose their configuration with Hydra, whose version they also report.
_HYDRA_COMMANDS = frozenset({"silo-run", "silo-baseline", "silo-mcp"})


def version_text(prog: str) -> str:
    """What ``<prog> --version`` prints."""
    lines = [f"{prog} ({DISTRIBUTION}) {version()}"]
    if prog in _HYDRA_COMMANDS:
        import hydra

        lines.append(f"Hydra {hydra.__version__}")
    return "\n".join(lines)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def console(prog: str, main: Callable[[], int | None]) -> int:
    """Run ``main`` as console script ``prog``; its exit status (``SystemExit`` passes through)."""
    try:
        if "--version" in sys.argv[1:]:
            print(version_text(prog), flush=True)
            return 0
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
        return BROKEN_PIPE_STATUS
    return status or 0


def _command(prog: str, module: str, function: str = "main") -> int:
    def run() -> int | None:
        target: Callable[[], int | None] = getattr(importlib.import_module(module), function)
        return target()

    return console(prog, run)


def silo_run() -> int:
    """``silo-run``: rollouts and sweeps (:mod:`silo.cli.run`)."""
    return _command("silo-run", "silo.cli.run", "run")


def silo_baseline() -> int:
    """``silo-baseline``: record and check goldens (:mod:`silo.cli.baseline`)."""
    return _command("silo-baseline", "silo.cli.baseline", "run")


def silo_validate() -> int:
    """``silo-validate``: check environments (:mod:`silo.cli.validate`)."""
    return _command("silo-validate", "silo.cli.validate")


def silo_init() -> int:
    """``silo-init``: a new environment or environment package (:mod:`silo.cli.init`)."""
    return _command("silo-init", "silo.cli.init")


def silo_ls() -> int:
    """``silo-ls``: list environments, tasks and tools (:mod:`silo.cli.ls`)."""
    return _command("silo-ls", "silo.cli.ls")


def silo_compare() -> int:
    """``silo-compare``: two sweeps side by side (:mod:`silo.cli.compare`)."""
    return _command("silo-compare", "silo.cli.compare")


def silo_view() -> int:
    """``silo-view``: reports and the static site (:mod:`silo.cli.view`)."""
    return _command("silo-view", "silo.cli.view")


def silo_env() -> int:
    """``silo-env``: edit an environment's tasks, data, tools (:mod:`silo.cli.env`)."""
    return _command("silo-env", "silo.cli.env")


def silo_mcp() -> int:
    """``silo-mcp``: serve an environment over MCP (:mod:`silo.cli.mcp`)."""
    return _command("silo-mcp", "silo.cli.mcp")
