"""Headless Chromium for the viewer's browser tests and benchmark: the DOM after scripts ran.

Chromium comes from the distribution (Debian: ``apt-get install -y chromium``). Where it is
absent, :data:`SKIP` skips the tests that need it with a message saying how to install it.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.waiting import SAFETY_S

__all__ = ["BINARY", "SKIP", "dump_dom", "screenshot"]

BINARY = next(
    (
        found
        for name in ("chromium", "chromium-browser", "google-chrome")
        if (found := shutil.which(name))
    ),
    None,
)
SKIP = pytest.mark.skipif(
    BINARY is None,
    reason="no Chromium on PATH: install it (Debian: apt-get install -y chromium) to run the "
    "viewer's browser tests",
)
_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--mute-audio")


def _run(extra: list[str], url: str) -> str:
    assert BINARY is not None
    with tempfile.TemporaryDirectory() as profile:  # parallel tests never share a profile
        proc = subprocess.run(
            [BINARY, *_FLAGS, f"--user-data-dir={profile}", *extra, url],
            capture_output=True,
            text=True,
            timeout=SAFETY_S,
            check=False,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def dump_dom(url: str) -> str:
    """The page's DOM as HTML once it has loaded and its scripts have run."""
    return _run(["--virtual-time-budget=3000", "--dump-dom"], url)


def screenshot(url: str, path: Path, width: int = 1200, height: int = 900) -> Path:
    """A PNG of the page's first ``width`` × ``height`` pixels."""
    _run([f"--window-size={width},{height}", f"--screenshot={path}"], url)
    return path
