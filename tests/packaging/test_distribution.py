"""Silo's distribution: its name in every install hint, its metadata, its dependency floors."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

from silo.distribution import DISTRIBUTION, install_hint, installed

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
# `pip install silo`, `pip install 'silo[x]'`: the package index's unrelated "silo".
WRONG_INSTALL = re.compile(r"pip install (-q )?['\"]?silo(\[|['\"\s]|$)")


def _floors_module():  # .ci/floors.py is a script, not a package module
    spec = importlib.util.spec_from_file_location("floors", REPO / ".ci" / "floors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_distribution_is_silo_worlds_importing_silo() -> None:
    assert PYPROJECT["project"]["name"] == DISTRIBUTION == "silo-worlds"
    assert "silo" in PYPROJECT["tool"]["setuptools"]["packages"]
    assert PYPROJECT["project"]["license"] == "MIT"  # SPDX: no deprecated license table
    assert (REPO / "LICENSE").is_file() and (REPO / "silo" / "py.typed").is_file()


def test_the_readme_installs_this_project_by_its_distribution_name() -> None:
    first = (REPO / "README.md").read_text(encoding="utf-8").split("```bash\n", 1)[1]
    # By name, from the checkout: it works on a fresh clone, and pip checks the name matches.
    assert f'pip install -q "{DISTRIBUTION} @ file://$PWD" && ' in first.splitlines()[0]


def test_no_hint_or_page_installs_the_other_silo() -> None:
    files = [*(REPO / "silo").rglob("*.py"), *(REPO / "docs").glob("*.md"), REPO / "README.md"]
    files += [*(REPO / "conf").rglob("*.yaml"), *(REPO / "silo").rglob("*.yaml")]
    wrong = [
        f"{path.relative_to(REPO)}: {line.strip()}"
        for path in files
        for line in path.read_text(encoding="utf-8").splitlines()
        if WRONG_INSTALL.search(line)
    ]
    assert wrong == []


def test_install_hints_name_the_distribution_and_the_checkout_command() -> None:
    assert install_hint("ray") == (
        "pip install 'silo-worlds[ray]' (or pip install -e '.[ray]' in a checkout)"
    )


def test_silo_ships_its_environments_through_the_entry_point_group() -> None:
    points = PYPROJECT["project"]["entry-points"]["silo.environments"]
    assert points == {
        "crm": "silo.templates.shipped:crm",
        "project": "silo.templates.shipped:project",
        "erp": "silo.templates.shipped:erp",
    }


def test_floors_pin_each_direct_dependency_at_its_minimum() -> None:
    pins = _floors_module().floor_pins(REPO / "pyproject.toml")
    assert "orjson==3.11.7" in pins and "openai==3.0" in pins and "hydra-core==1.3.2" in pins
    assert not any(pin.startswith(("pytest", "mypy", "ruff", "mcp")) for pin in pins)


def test_every_subpackage_of_silo_is_in_the_wheel() -> None:
    # setuptools' explicit list: a subpackage missing from it works in an editable install and
    # fails with ModuleNotFoundError from a wheel (silo.users once did).
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(init.parent.relative_to(REPO).parts)
        for init in (REPO / "silo").rglob("__init__.py")
        if "templates" not in init.parts  # templates are package data of silo.templates
    }
    assert on_disk - listed == set()


def test_installed_finds_a_module_without_importing_it_and_never_raises() -> None:
    assert installed("json") and installed("silo.toolkit")
    assert not installed("no_such_module_for_silo")
    assert not installed("no_such_module_for_silo.child")  # a missing parent is False, not raised
    assert not installed("")  # find_spec's ValueError
