"""Every console script: --version prints Silo's version, a closed pipe is no traceback."""

from __future__ import annotations

import subprocess
from pathlib import Path

import hydra
import pytest

from silo.cli.console import BROKEN_PIPE_STATUS
from silo.distribution import version
from tests.cli._console import run
from tests.conftest import script
from tests.waiting import SAFETY_S

SCRIPTS = (
    "silo-run",
    "silo-baseline",
    "silo-validate",
    "silo-init",
    "silo-ls",
    "silo-compare",
    "silo-view",
    "silo-env",
    "silo-mcp",
    "silo-export",
)
HYDRA_BASED = ("silo-run", "silo-baseline", "silo-mcp")


@pytest.mark.parametrize("name", SCRIPTS)
def test_version_names_silo_and_for_hydra_commands_hydra(name: str, tmp_path: Path) -> None:
    proc = run(name, tmp_path, "--version")
    assert proc.returncode == 0, proc.stderr
    expected = [f"{name} (silo-worlds) {version()}"]
    if name in HYDRA_BASED:
        expected.append(f"Hydra {hydra.__version__}")
    assert proc.stdout.splitlines() == expected and proc.stderr == ""


@pytest.mark.parametrize("name", SCRIPTS)
def test_help_into_a_closed_pipe_ends_quietly(name: str, tmp_path: Path) -> None:
    # `head -n 0` exits before reading, so every write of the help text meets a closed pipe.
    done = subprocess.run(
        ["bash", "-c", f'"{script(name)}" --help | head -n 0; echo "status=${{PIPESTATUS[0]}}"'],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=SAFETY_S,
    )
    assert done.stderr == ""
    assert done.stdout.strip() in ("status=0", f"status={BROKEN_PIPE_STATUS}")
