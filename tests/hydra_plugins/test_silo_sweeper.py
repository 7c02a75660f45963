"""Silo's sweeper is a Hydra plugin that Hydra's own plugin scan finds, whatever the install.

Two installs, each checked from a folder outside the repository (so the repository's own
``hydra_plugins/`` is not on ``sys.path``) and through the console script: the editable install
these tests run in (the README's ``pip install -e``), and a wheel built with
``pip wheel --no-deps`` installed into a fresh virtual environment.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import script

REPO = Path(__file__).resolve().parents[2]
TARGET = "hydra_plugins.silo_sweeper.silo_sweeper.SiloSweeper"


def _env() -> dict[str, str]:
    drop = ("PYTHONPATH", "SILO_PROJECT_DIR", "HYDRA_FULL_ERROR")
    return {k: v for k, v in os.environ.items() if k not in drop}


def _check_install(python: Path, silo_run: Path, cwd: Path) -> str:
    """Assert the install behind ``python`` ships the plugin; the folder ``silo`` loads from."""
    code = (
        "import silo\n"
        "from hydra.core.plugins import Plugins\n"
        "from hydra.plugins.sweeper import Sweeper\n"
        "print(silo.__file__)\n"
        "for c in Plugins.instance().discover(Sweeper): print(f'{c.__module__}.{c.__name__}')\n"
    )
    found = subprocess.run(
        [str(python), "-c", code], cwd=cwd, env=_env(), capture_output=True, text=True
    )
    assert found.returncode == 0, found.stderr
    silo_file, *sweepers = found.stdout.splitlines()
    assert TARGET in sweepers
    helped = subprocess.run(
        [str(silo_run), "--hydra-help"], cwd=cwd, env=_env(), capture_output=True, text=True
    )
    assert helped.returncode == 0, helped.stderr
    assert "hydra/sweeper: basic, silo" in helped.stdout.splitlines()
    info = subprocess.run(
        [str(silo_run), "--info", "plugins"], cwd=cwd, env=_env(), capture_output=True, text=True
    )
    assert info.returncode == 0, info.stderr
    assert "SiloSweeper" in info.stdout.split("Sweeper:", 1)[1]
    return silo_file


def test_the_editable_install_ships_the_plugin(tmp_path: Path) -> None:
    silo_file = _check_install(Path(sys.executable), Path(script("silo-run")), tmp_path)
    assert Path(silo_file).is_relative_to(REPO)


@pytest.mark.slow  # builds a wheel into a fresh venv
def test_a_wheel_install_ships_the_plugin(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(REPO)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("silo_worlds-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    # The dependencies come from this environment's site-packages, added as a plain path entry:
    # its .pth files (the editable install's finder) are not processed, so silo is the wheel's.
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "silo-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stderr
    assert not Path(site, "hydra_plugins", "__init__.py").exists()  # a namespace package
    silo_file = _check_install(python, venv / "bin" / "silo-run", tmp_path)
    assert Path(silo_file).is_relative_to(site)
