"""Scaffolding: a new ``environments/<name>/`` from a template, in one atomic step.

Contract of :func:`create_environment`:

* the name must match ``^[A-Za-z0-9][A-Za-z0-9._-]*$`` (``unsafe_name``) and must not collide,
  case-insensitively, with anything under ``environments/`` (``environment_already_exists``,
  with the next free name as a suggestion: ``crm`` → ``crm-2``, ``crm-2`` → ``crm-3``);
* the template (``blank`` or ``crm``) comes from the installed package (``template_not_found``);
* the files are copied into a hidden ``environments/.staging-<random>`` folder, the manifest
  (``name``, ``template``, ``templateVersion``, ``entrypoint``, ``tools``, and the template's
  ``reward``) is written there and one ``rename`` publishes the result. Any failure,
  ``KeyboardInterrupt`` included, removes the staging folder: either the whole environment
  exists or nothing does. Nothing is overwritten.

:func:`create_package` makes ``silo-env-<name>/`` the same atomic way: an installable package
(``pyproject.toml`` declaring the ``silo.environments`` entry point, the environment under
``src/silo_env_<name>/environment/``, ``tests/``, ``baselines/silo-baselines.yaml``) from the
skeleton in ``silo/templates/package/`` and a template with a solver (``minimal`` by default).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import string
import tempfile
from collections.abc import Callable, Iterable, Mapping
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from silo.distribution import version
from silo.errors import ScaffoldError
from silo.json_types import JSON
from silo.jsonio import pretty
from silo.loading.environment import DEFAULT_ENTRYPOINT, MANIFEST

__all__ = [
    "PACKAGE_TEMPLATES",
    "TEMPLATES",
    "check_name",
    "create_environment",
    "create_package",
    "existing_names",
    "package_names",
    "suggest_name",
    "template_dir",
]

TEMPLATES = ("blank", "minimal", "crm", "project", "erp")
SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
# What a template is made of; pyproject.toml packages the same kinds of files, so a checkout and
# a wheel give identical environments (no caches, no run folders, no editor files).
_COPIED_SUFFIXES = (".py", ".json", ".md")
_COPIED_NAMES = frozenset({".gitkeep"})
# Templates a package can be made from: each ships a solver and tasks its tests run.
PACKAGE_TEMPLATES = ("minimal", "crm", "project", "erp")
# The package skeleton: files of silo/templates/package/ and where they go in the new package.
_PACKAGE_FILES = (
    ("pyproject.toml.tmpl", "pyproject.toml"),
    ("README.md.tmpl", "README.md"),
    ("gitignore.tmpl", ".gitignore"),
    ("package_init.py.tmpl", "src/{package}/__init__.py"),
    ("tests/test_environment.py.tmpl", "tests/test_environment.py"),
    ("baselines/silo-baselines.yaml.tmpl", "baselines/silo-baselines.yaml"),
)


def check_name(name: str) -> None:
    """Raise ``unsafe_name`` unless ``name`` is a plain folder name."""
    if not SAFE_NAME.match(name):
        raise ScaffoldError(
            "unsafe_name",
            f'"{name}" is not a usable environment name; start with a letter or digit and use '
            "only letters, digits, '.', '_' and '-' (no slashes, no leading dot)",
        )


def existing_names(project_dir: Path) -> list[str]:
    """Every entry of ``environments/`` except hidden ones (staging folders)."""
    base = project_dir / "environments"
    if not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir() if not p.name.startswith("."))


def suggest_name(name: str, taken: Iterable[str]) -> str:
    """The first free ``<base>-N`` (N ≥ 2), comparing case-insensitively."""
    lowered = {t.lower() for t in taken}
    base = re.sub(r"-\d+$", "", name) or name
    number = 2
    while f"{base}-{number}".lower() in lowered:
        number += 1
    return f"{base}-{number}"


def _collision(name: str, project_dir: Path) -> None:
    taken = existing_names(project_dir)
    clash = next((t for t in taken if t.lower() == name.lower()), None)
    if clash is not None:
        same = "" if clash == name else f' (as "{clash}")'
        raise ScaffoldError(
            "environment_already_exists",
            f'environment "{name}" already exists{same}; try "{suggest_name(name, taken)}"',
            {"suggestion": suggest_name(name, taken)},
        )


def template_dir(template: str) -> Traversable:
    """The template's files, from a wheel or (editable install) from the source checkout.

    A wheel holds ``silo/templates/<name>/`` as package data. An editable install cannot map a
    folder without ``__init__.py`` (setuptools' editable finder returns no module spec for it),
    so there the template is the folder ``pyproject.toml`` maps it from: the checkout's
    ``environments/<name>``.
    """
    if template not in TEMPLATES:
        raise ScaffoldError(
            "template_not_found",
            f'unknown template "{template}"; available: {", ".join(TEMPLATES)}',
        )
    packaged = resources.files("silo.templates").joinpath(template)
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[1]
    mapped = checkout / "environments" / template
    if (checkout / "pyproject.toml").is_file() and mapped.is_dir():
        return mapped
    raise ScaffoldError(
        "template_not_found",
        f'the files of template "{template}" are missing from this Silo installation; '
        "reinstall Silo",
    )


def _copy_tree(source: Traversable, dest: Path) -> None:
    dest.mkdir(exist_ok=True)
    for item in sorted(source.iterdir(), key=lambda t: t.name):
        name = item.name
        if item.is_dir():
            if name != "__pycache__" and not name.startswith("."):
                _copy_tree(item, dest / name)
        elif name in _COPIED_NAMES or (
            name.endswith(_COPIED_SUFFIXES) and not name.startswith(".")
        ):
            (dest / name).write_bytes(item.read_bytes())


def _template_manifest(staged: Path) -> dict[str, JSON]:
    """The template's own manifest (empty when it has none or it does not parse)."""
    try:
        raw = json.loads((staged / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def _stage_environment(source: Traversable, dest: Path, name: str, template: str) -> None:
    """Copy ``source`` into ``dest`` and write the new environment's manifest there."""
    _copy_tree(source, dest)
    declared = _template_manifest(dest)
    entry = declared.get("entrypoint")
    manifest: dict[str, JSON] = {
        "name": name,
        "template": template,
        "templateVersion": version(),
        "entrypoint": entry.strip()
        if isinstance(entry, str) and entry.strip()
        else DEFAULT_ENTRYPOINT,
        "tools": [],
    }
    if "reward" in declared:  # the template's choice of reward is the new environment's
        manifest["reward"] = declared["reward"]
    (dest / MANIFEST).write_text(pretty(manifest), encoding="utf-8")


def _publish(
    base: Path, target: str, fill: Callable[[Path], None], recheck: Callable[[], None]
) -> Path:
    """Fill a hidden staging folder in ``base``, then rename it to ``target`` in one step."""
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=base))
    try:
        fill(staging)
        staging.chmod(0o755 & ~_umask())
        recheck()  # another process may have won meanwhile
        os.rename(staging, base / target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return base / target


def create_environment(project_dir: Path, name: str, template: str = "blank") -> Path:
    """Create ``environments/<name>`` from ``template`` atomically; returns its folder."""
    check_name(name)
    source = template_dir(template)
    _collision(name, project_dir)
    base = project_dir / "environments"
    base.mkdir(parents=True, exist_ok=True)
    return _publish(
        base,
        name,
        lambda staging: _stage_environment(source, staging, name, template),
        lambda: _collision(name, project_dir),
    )


def package_names(name: str) -> tuple[str, str]:
    """The distribution (``silo-env-<name>``) and import package (``silo_env_<name>``) of ``name``."""
    lowered = name.lower()
    return f"silo-env-{lowered}", "silo_env_" + re.sub(r"[-.]", "_", lowered)


def _package_file(relative: str, values: Mapping[str, str]) -> str:
    text = resources.files("silo.templates").joinpath("package", relative).read_text("utf-8")
    return string.Template(text).substitute(values)


def _stage_package(
    source: Traversable, dest: Path, name: str, template: str, values: Mapping[str, str]
) -> None:
    package = dest / "src" / values["package"]
    package.mkdir(parents=True)
    _stage_environment(source, package / "environment", name, template)
    for relative, target in _PACKAGE_FILES:
        path = dest / target.format(package=values["package"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_package_file(relative, values), encoding="utf-8")


def create_package(parent_dir: Path, name: str, template: str = "minimal") -> Path:
    """Create ``silo-env-<name>/``, an installable package of a new environment; its folder.

    The package offers ``env=<name>`` through the ``silo.environments`` entry point and holds
    the environment (from ``template``, which must ship a solver), tests and a baselines config.
    """
    check_name(name)
    source = template_dir(template)
    if template not in PACKAGE_TEMPLATES:
        raise ScaffoldError(
            "template_not_found",
            f'template "{template}" has no solver for the package\'s tests to run; use one of '
            f"{', '.join(PACKAGE_TEMPLATES)} (default minimal)",
        )
    distribution, package = package_names(name)

    def refuse_existing() -> None:
        if (parent_dir / distribution).exists():
            raise ScaffoldError(
                "environment_already_exists",
                f'folder "{distribution}" already exists in {parent_dir}; pick another name',
            )

    refuse_existing()
    tasks = sorted(item.name.removesuffix(".json") for item in source.joinpath("tasks").iterdir())
    values = {
        "name": name,
        "distribution": distribution,
        "package": package,
        "silo_version": version(),
        "first_task": next((t for t in tasks if not t.startswith(".")), "<TASK-ID>"),
    }
    return _publish(
        parent_dir,
        distribution,
        lambda staging: _stage_package(source, staging, name, template, values),
        refuse_existing,
    )


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
