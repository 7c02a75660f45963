"""The built wheel as a new user meets it: a fresh venv, an empty folder, the README's commands.

Builds Silo's wheel, installs it into a new venv and runs, in a folder with nothing in it: the
README's main command (``silo-run env=crm task=TASK-002 agent=solver``), ``silo-init``,
``silo-validate`` and a sweep; then scaffolds an environment package with ``silo-init
--package``, installs it, finds it by ``env=`` from an empty folder and runs its own tests and
goldens. It installs from the package index and takes minutes on a loaded machine, so it runs
only with ``SILO_WHEEL_TEST=1`` (``.ci/run`` runs it once).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from silo.distribution import DISTRIBUTION, version

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    os.environ.get("SILO_WHEEL_TEST") != "1",
    reason="builds and installs the wheel (minutes); run with SILO_WHEEL_TEST=1",
)


def sh(*args: str | Path, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """Run a command outside this checkout's environment, as a user's shell would."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SILO_", "PYTHON", "VIRTUAL"))}
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    return done


def readme_main_command() -> list[str]:
    """The last command of the README's first line of shell: the main job, script name first."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    first = re.search(r"```bash\n(.*?)\n", readme)
    assert first is not None, "README.md has no bash block"
    words = shlex.split(first.group(1).split("&&")[-1])
    return [Path(words[0]).name, *words[1:]]


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, f"{done.args}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Silo's wheel, and what its build printed."""
    dist = tmp_path_factory.mktemp("dist")
    build = sh(sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", dist, REPO, cwd=dist)
    ok(build)
    (built,) = dist.glob("*.whl")
    return built, build.stdout + build.stderr


@pytest.fixture(scope="module")
def bin_dir(wheel: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scripts folder of a fresh venv with nothing but the wheel (and its dependencies)."""
    env_dir = tmp_path_factory.mktemp("venv")
    venv.create(env_dir, with_pip=True)
    ok(sh(env_dir / "bin" / "python", "-m", "pip", "install", "-q", wheel[0], cwd=env_dir))
    return env_dir / "bin"


def test_the_wheel_holds_license_types_and_entry_points(wheel: tuple[Path, str]) -> None:
    built, log = wheel
    assert built.name == f"{DISTRIBUTION.replace('-', '_')}-{version()}-py3-none-any.whl"
    names = zipfile.ZipFile(built).namelist()
    info = f"{DISTRIBUTION.replace('-', '_')}-{version()}.dist-info"
    assert "silo/py.typed" in names and f"{info}/licenses/LICENSE" in names
    entry_points = zipfile.ZipFile(built).read(f"{info}/entry_points.txt").decode()
    assert "[silo.environments]\ncrm = silo.templates.shipped:crm" in entry_points
    metadata = zipfile.ZipFile(built).read(f"{info}/METADATA").decode()
    assert "License-Expression: MIT" in metadata
    assert "SetuptoolsDeprecationWarning" not in log


def test_a_new_user_in_an_empty_folder(bin_dir: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    command = readme_main_command()
    assert command == ["silo-run", "env=crm", "task=TASK-002", "agent=solver"]
    main = ok(sh(bin_dir / command[0], *command[1:], cwd=empty))
    assert main.splitlines()[1].startswith("PASS")
    assert f"silo-run ({DISTRIBUTION}) {version()}" in ok(
        sh(bin_dir / "silo-run", "--version", cwd=empty)
    )
    ok(sh(bin_dir / "silo-init", "shop", "template=minimal", cwd=empty))
    assert "1 of 1 environments OK" in ok(sh(bin_dir / "silo-validate", cwd=empty))
    sweep = ok(
        sh(
            bin_dir / "silo-run",
            "-m",
            "env=shop",
            "task=TASK-001,TASK-002",
            "agent=solver",
            cwd=empty,
        )
    )
    assert "2 rollouts: 2 passed, 0 failed" in sweep


def test_an_environment_package_is_found_by_env_and_passes_its_own_tests(
    bin_dir: Path, tmp_path: Path
) -> None:
    ok(sh(bin_dir / "silo-init", "--package", "shelf", cwd=tmp_path))
    package = tmp_path / "silo-env-shelf"
    ok(sh(bin_dir / "python", "-m", "pip", "install", "-q", f"{package}[test]", cwd=tmp_path))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = ok(sh(bin_dir / "silo-run", "env=shelf", "task=TASK-001", "agent=solver", cwd=elsewhere))
    assert run.splitlines()[1].startswith("PASS")
    assert "created" in ok(sh(bin_dir / "silo-baseline", "record", cwd=package))
    tests = ok(sh(bin_dir / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=package))
    assert " passed" in tests and "failed" not in tests
