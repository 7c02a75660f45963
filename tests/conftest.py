"""Shared fixtures: a throwaway copy of the toy project, a dead pid, a hung agent's release, the scripts."""

from __future__ import annotations

import compileall
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURE_PROJECT = REPO / "tests" / "fixtures" / "project"
BIN = Path(sys.executable).parent


@pytest.fixture
def toy_project(tmp_path: Path) -> Path:
    """A private copy of tests/fixtures/project (the toy environment) in tmp_path."""
    target = tmp_path / "project"
    shutil.copytree(FIXTURE_PROJECT, target, ignore=shutil.ignore_patterns(".silo", "__pycache__"))
    return target


@pytest.fixture
def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped): a killed writer's, say."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.fixture
def released() -> Iterator[threading.Event]:
    """An event set when the test ends: a deliberately hung agent spins until then, not forever.

    Silo abandons an agent that ignores its budget; Python cannot stop the thread. One left
    spinning (``while not released.is_set(): pass``) would hold the GIL for the rest of the
    session and slow every later test on its pytest worker, so the test lets it go at the end.
    Silo never sees the event: to Silo the agent ignores every signal, as under test.
    """
    event = threading.Event()
    yield event
    event.set()


def pytest_configure(config: pytest.Config) -> None:
    """Deliver Ctrl-C to the console scripts the tests start, however the suite was started.

    A suite started in the background of a non-interactive shell (``cmd &``, ``nohup``) inherits
    SIGINT ignored, and so would every process it starts: the tests that press Ctrl-C on a
    console script would wait for an interrupt that never arrives. A handler (unlike "ignored")
    is not inherited across ``exec``, so the scripts start with Python's own, as at a terminal.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    _compile_once()


def _compile_once() -> None:
    """Compile the checkout's Python once, in the first process, when Python will not.

    With ``PYTHONDONTWRITEBYTECODE`` set (as on many CI machines), nothing caches the bytecode
    of an editable install: every console script a test starts (several hundred a run) and each
    pytest worker would compile Silo and the bundled environments from source again, about a
    fifth of a short ``silo-run``. ``compileall`` writes them to the ``__pycache__`` folders
    Python itself would have used (git ignores them); a worker (``PYTEST_XDIST_WORKER``) finds
    them written by the process that started it.
    """
    if not sys.dont_write_bytecode or "PYTEST_XDIST_WORKER" in os.environ:
        return
    for folder in ("silo", "environments", "conf", "hydra_plugins"):
        compileall.compile_dir(REPO / folder, quiet=1)


# What this process's threads may burn while its main thread sleeps, as a share of a core,
# before the run names them: idle servers and event loops burn almost nothing.
_IDLE_SHARE = 0.2
_IDLE_WINDOW_S = 0.3
_SPINNING: list[str] = []


def _spinning() -> str | None:
    """A line naming the CPU this process still burns with nothing running, or None."""
    before = time.process_time()
    time.sleep(_IDLE_WINDOW_S)
    share = (time.process_time() - before) / _IDLE_WINDOW_S
    if share < _IDLE_SHARE:
        return None
    return (
        f"WARNING: with every test done, this pytest process still burns {share:.0%} of a core:"
        " a test left a thread spinning (a hung agent not released: use the `released` fixture,"
        " docs/quality.md), which slowed every test after it"
    )


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Look for a thread a test left spinning; an xdist worker hands its line to the controller."""
    line = _spinning()
    if line is None:
        return
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker
        workeroutput["spinning"] = line
    else:
        _SPINNING.append(line)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """Collect a worker's spinning-thread line (the hook exists only with pytest-xdist)."""
    line = getattr(node, "workeroutput", {}).get("spinning")
    if line:
        _SPINNING.append(f"{line} [{node.gateway.id}]")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Name a project marker above the temporary folders, and threads a test left spinning."""
    warning = _marker_above_tmp()
    if warning:
        terminalreporter.write_line(warning, yellow=True)
    for line in _SPINNING:
        terminalreporter.write_line(line, yellow=True)


def _marker_above_tmp() -> str | None:
    root = Path(tempfile.gettempdir()).resolve()
    found = [
        str(folder / marker)
        for folder in (root, *root.parents)
        for marker in ("environments", "conf", ".silo")
        if (folder / marker).is_dir()
    ]
    if not found:
        return None
    return (
        f"WARNING: {', '.join(found)} above every test's tmp_path: tests that start in an empty"
        " folder find it as their project and fail; move it away (or set TMPDIR to a folder"
        " with no environments/, conf/ or .silo/ above it)"
    )


def script(name: str) -> str:
    """The installed console script ``name`` next to this interpreter."""
    return str(BIN / name)
