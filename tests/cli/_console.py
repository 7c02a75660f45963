"""Running an installed console script the way a user does: in a subprocess, in a folder."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import script
from tests.waiting import SAFETY_S


def run(
    name: str,
    cwd: Path,
    *args: str,
    timeout: float = SAFETY_S,
    extra_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SILO_PROJECT_DIR"} | (extra_env or {})
    return subprocess.run(
        [script(name), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def one_line_error(proc: subprocess.CompletedProcess[str], prog: str) -> str:
    """The single stderr line of a refused command (no traceback), without the prefix."""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith(f"{prog}: "), lines[0]
    return lines[0][len(prog) + 2 :]
