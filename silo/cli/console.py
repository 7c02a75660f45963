"""The console scripts: each command's ``main`` behind one wrapper for ``--version`` and closed pipes.

Contract: every ``silo-*`` script in ``pyproject.toml`` points here. ``--version`` anywhere on
the command line prints ``<prog> (silo-worlds) <version>`` (and Hydra's version for the
Hydra-based commands) and exits 0 without running the command. A reader that goes away
(``silo-run --help | head -3``) ends the command quietly with status 141 (128 + SIGPIPE, what
a shell reports for a program killed by a closed pipe), never a ``BrokenPipeError`` traceback.
Each command's module is imported only when its script runs, so light commands stay light.

Every line a command prints goes through :func:`silo.redact.redact` (no secret reaches the
screen or a CI log) and :func:`silo.redact.terminal_safe` (no escape sequence from an agent's,
a tool's or an environment's text reaches the terminal as itself): only Silo's own progress
line may start with its carriage return and erase-line sequence. ``silo-mcp`` is left as it
is: its standard output is the protocol. Each script first makes room in the recursion limit
for JSON as deep as Silo states (:func:`silo.jsondepth.make_recursion_room`): its process is
Silo's, unlike a program that imports Silo as a library.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys
from collections.abc import Callable
from importlib.metadata import version as distribution_version
from typing import TextIO, cast

from silo.distribution import DISTRIBUTION, version
from silo.jsondepth import make_recursion_room
from silo.redact import redact, terminal_safe

__all__ = [
    "BROKEN_PIPE_STATUS",
    "DISK_ERRORS",
    "disk_error_line",
    "stop_on_full_disk",
    "PROGRESS_PREFIX",
    "SafeStream",
    "console",
    "silo_baseline",
    "silo_compare",
    "silo_env",
    "silo_init",
    "silo_ls",
    "silo_mcp",
    "silo_regrade",
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
    if prog in _HYDRA_COMMANDS:  # read from the metadata: no Hydra import outside cli/hydra/
        lines.append(f"Hydra {distribution_version('hydra-core')}")
    return "\n".join(lines)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


PROGRESS_PREFIX = "\r\033[K"
"""How Silo's progress line starts (back to the line's start, erase it): the one sequence kept."""


class SafeStream:
    """A text stream that redacts secrets and escapes control characters in what it writes."""

    def __init__(self, stream: TextIO) -> None:
        """Write to ``stream``; everything else (``isatty``, ``fileno``, ...) is ``stream``'s."""
        self.stream = stream

    def write(self, text: str) -> int:
        """Write ``text`` made safe; the length of ``text`` (what callers count)."""
        keep = PROGRESS_PREFIX if text.startswith(PROGRESS_PREFIX) else ""
        safe = terminal_safe(redact(text[len(keep) :]))
        self.stream.write(keep + safe)
        return len(text)

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)


def console(prog: str, main: Callable[[], int | None]) -> int:
    """Run ``main`` as console script ``prog``; its exit status (``SystemExit`` passes through)."""
    make_recursion_room()  # the process is Silo's: artifacts as deep as stated read back anywhere
    if prog == "silo-mcp" or isinstance(sys.stdout, SafeStream):
        return _console(prog, main)
    streams = sys.stdout, sys.stderr
    # A stand-in with the stream's interface (the attributes it does not define are the
    # stream's own), which the type of sys.stdout cannot express.
    sys.stdout = cast(TextIO, SafeStream(sys.stdout))
    sys.stderr = cast(TextIO, SafeStream(sys.stderr))
    try:
        return _console(prog, main)
    finally:
        sys.stdout, sys.stderr = streams


def _console(prog: str, main: Callable[[], int | None]) -> int:
    try:
        if "--version" in sys.argv[1:]:
            print(version_text(prog), flush=True)
            return 0
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
        return BROKEN_PIPE_STATUS
    except OSError as exc:
        if exc.errno not in DISK_ERRORS:
            raise
        # A write the command's own handling did not word (a trace line, a summary, a page):
        # the disk's fault, not the agent's, so exit 2 like every other infrastructure error.
        sys.stderr.write(f"{prog}: {disk_error_line(exc)}\n")
        return 2
    return status or 0


DISK_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG})
"""The errors of a disk that cannot take a write: one line and exit 2 wherever they surface."""


def stop_on_full_disk(exc: BaseException, prog: str = "silo-run") -> None:
    """End the command with the one disk line and exit 2 when ``exc`` is a refused write.

    For code that runs inside Hydra, which prints a traceback for any exception it catches:
    ``SystemExit`` passes through it.
    """
    if isinstance(exc, OSError) and exc.errno in DISK_ERRORS:
        sys.stderr.write(f"{prog}: {disk_error_line(exc)}\n")
        raise SystemExit(2)


def disk_error_line(exc: OSError) -> str:
    """The one line for a write refused by the disk, naming the file when the error does."""
    where = f" to {exc.filename}" if exc.filename else ""
    if exc.errno == errno.EROFS:
        return f"could not write{where}: the file system is read-only; make it writable"
    if exc.errno == errno.EFBIG:
        return f"could not write{where}: the file would be too large for its file system"
    return f"could not write{where}: the disk is full; free some space, or set runs_dir=<folder>"


def _script(prog: str, module: str, function: str = "main") -> Callable[[], int]:
    """Console script ``prog``: ``module.function`` (imported when run) behind :func:`console`."""

    def script() -> int:
        target: Callable[[], int | None] = getattr(importlib.import_module(module), function)
        return console(prog, target)

    return script


silo_run = _script("silo-run", "silo.cli.run", "run")
silo_baseline = _script("silo-baseline", "silo.cli.baseline", "run")
silo_validate = _script("silo-validate", "silo.cli.validate")
silo_init = _script("silo-init", "silo.cli.init")
silo_ls = _script("silo-ls", "silo.cli.ls")
silo_compare = _script("silo-compare", "silo.cli.compare")
silo_view = _script("silo-view", "silo.cli.view")
silo_env = _script("silo-env", "silo.cli.env")
silo_mcp = _script("silo-mcp", "silo.cli.mcp")
silo_export = _script("silo-export", "silo.cli.export")
silo_regrade = _script("silo-regrade", "silo.cli.regrade")
