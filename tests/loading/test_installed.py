"""Environments installed as packages: found by name through the silo.environments entry points.

Each test installs a real distribution the way pip leaves one on disk (a ``*.dist-info`` folder
with ``entry_points.txt`` beside the package) in a folder put on ``sys.path``, so
``importlib.metadata`` finds it exactly as it finds a pip-installed one.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from silo import run_task
from silo.errors import EnvironmentLoadError
from silo.loading.environment import available_environments, resolve_environment_dir
from silo.loading.installed import installed_environment_dir, installed_names
from tests.conftest import FIXTURE_PROJECT, script
from tests.waiting import SAFETY_S

TOY = FIXTURE_PROJECT / "environments" / "toy"


def install(site: Path, dist: str, entry_points: dict[str, str], package: str = "") -> None:
    """Lay out distribution ``dist`` in ``site``: dist-info with ``entry_points``, and a package."""
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "".join(f"{name} = {value}\n" for name, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[silo.environments]\n{lines}")
    if package:
        folder = site / package
        shutil.copytree(TOY, folder / "environment", ignore=shutil.ignore_patterns("__pycache__"))
        (folder / "__init__.py").write_text(
            "from pathlib import Path\nENVIRONMENT = Path(__file__).parent / 'environment'\n"
        )


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    return folder


def test_an_installed_package_is_an_env_option_in_any_folder(site: Path, tmp_path: Path) -> None:
    install(site, "silo-env-shelf", {"shelf": "shelf_pkg:ENVIRONMENT"}, package="shelf_pkg")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "shelf" in installed_names()
    assert "shelf" in available_environments(empty)
    assert resolve_environment_dir("shelf", empty) == (site / "shelf_pkg" / "environment")
    result = run_task("shelf", "TASK-001", "solver", project_dir=empty, runs_dir=tmp_path / "r")
    assert result.passed


def test_a_package_name_alone_means_the_package_folder(site: Path) -> None:
    install(site, "silo-env-bare", {"bare": "bare_pkg"}, package="bare_pkg")
    assert installed_environment_dir("bare") == site / "bare_pkg"


def test_the_projects_own_folder_wins_over_a_package(site: Path, tmp_path: Path) -> None:
    install(site, "silo-env-toy", {"toy": "toy_pkg:ENVIRONMENT"}, package="toy_pkg")
    project = tmp_path / "project"
    shutil.copytree(FIXTURE_PROJECT, project, ignore=shutil.ignore_patterns(".silo"))
    assert resolve_environment_dir("toy", project) == (project / "environments" / "toy").resolve()


def test_silo_ships_crm_project_and_erp_as_packages(tmp_path: Path) -> None:
    for name in ("crm", "project", "erp"):
        found = resolve_environment_dir(name, tmp_path)
        assert (found / "silo.environment.json").is_file() and (found / "tasks").is_dir()


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("no_such_module_anywhere:ENVIRONMENT", "could not be loaded (ModuleNotFoundError:"),
        ("json:dumps", "could not be loaded (TypeError:"),  # a callable that needs arguments
        ("json:__name__", "which is not a folder"),
        ("json:JSONDecodeError.__mro__", "names neither a package nor a folder path"),
    ],
)
def test_a_broken_entry_point_is_one_line_naming_the_distribution(
    site: Path, tmp_path: Path, entry: str, problem: str
) -> None:
    install(site, "silo-env-broken", {"broken": entry})
    with pytest.raises(EnvironmentLoadError) as raised:
        resolve_environment_dir("broken", tmp_path)
    error = raised.value
    assert error.code == "environment_package_invalid"
    assert "\n" not in error.message and "silo-env-broken" in error.message
    assert error.message.endswith("reinstall or uninstall silo-env-broken")
    assert problem in error.message


def test_two_packages_claiming_one_name_are_refused(site: Path, tmp_path: Path) -> None:
    install(site, "silo-env-a", {"twin": "a_pkg:ENVIRONMENT"}, package="a_pkg")
    install(site, "silo-env-b", {"twin": "b_pkg:ENVIRONMENT"}, package="b_pkg")
    with pytest.raises(EnvironmentLoadError, match="offered by silo-env-a and silo-env-b"):
        resolve_environment_dir("twin", tmp_path)


def test_an_unknown_name_lists_installed_environments_too(tmp_path: Path) -> None:
    with pytest.raises(EnvironmentLoadError) as raised:
        resolve_environment_dir("nosuch", tmp_path)
    assert raised.value.code == "environment_not_found"
    assert "known: crm, erp, project" in raised.value.message


def test_silo_run_takes_env_of_an_installed_package(site: Path, tmp_path: Path) -> None:
    install(site, "silo-env-shelf", {"shelf": "shelf_pkg:ENVIRONMENT"}, package="shelf_pkg")
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {"PYTHONPATH": str(site), "PATH": str(Path(sys.executable).parent)}
    done = subprocess.run(
        [script("silo-run"), "env=shelf", "task=TASK-001", "agent=solver"],
        cwd=empty,
        env=env,
        capture_output=True,
        text=True,
        timeout=SAFETY_S,
    )
    assert done.returncode == 0, done.stderr
    assert "PASS" in done.stdout
