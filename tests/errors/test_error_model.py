"""The error model: one base, a class per boundary, every code in one registry and in the docs."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import silo.errors as errors
from silo.errors import CODES, ConfigError, SiloError, TaskError

ROOT = Path(__file__).resolve().parents[2]
BOUNDARIES = [
    cls for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, SiloError)
]


def _raised_codes() -> list[tuple[str, int, str, str]]:
    """(file, line, class, code) of every ``SomeError("code", ...)`` call in the package."""
    found = []
    for path in sorted((ROOT / "silo").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in {cls.__name__ for cls in BOUNDARIES}
                and node.args
            ):
                first = node.args[0]
                code = first.value if isinstance(first, ast.Constant) else "<computed>"
                found.append((str(path.relative_to(ROOT)), node.lineno, node.func.id, code))
    return found


def test_every_boundary_exits_2_and_has_codes() -> None:
    for cls in BOUNDARIES:
        assert cls.exit_code == 2, cls
        if cls is not SiloError:
            assert any(entry.error is cls for entry in CODES.values()), f"{cls} carries no code"


def test_the_registry_cannot_be_changed() -> None:
    with pytest.raises(TypeError):
        CODES["new_code"] = CODES["task_invalid"]  # type: ignore[index]


def test_a_subclass_carries_only_its_own_codes() -> None:
    error = TaskError("task_invalid", 'tasks/T.json: missing a non-empty string "id"')
    assert (error.code, str(error), error.exit_code) == ("task_invalid", error.message, 2)
    with pytest.raises(ValueError, match="ConfigError cannot carry code 'task_invalid'"):
        ConfigError("task_invalid", "x")
    with pytest.raises(ValueError, match="no class"):
        TaskError("never_registered", "x")


def test_the_base_accepts_any_registered_code_and_catches_every_subclass() -> None:
    assert SiloError("config_invalid", "seed must be a whole number").code == "config_invalid"
    with pytest.raises(SiloError):
        raise ConfigError("config_invalid", "seed must be a whole number")


def test_every_raise_site_names_a_registered_code_of_its_class() -> None:
    for where, line, name, code in _raised_codes():
        if code == "<computed>":
            continue  # e.g. f"{group}_not_found": the codes it makes are checked below
        assert code in CODES, f"{where}:{line} raises unregistered code {code!r}"
        assert name in ("SiloError", CODES[code].error.__name__), f"{where}:{line}: {name}"
    for group in ("env", "agent", "budget"):  # silo.cli.hydra.setup's unknown-choice codes
        assert f"{group}_not_found" in CODES


def test_docs_cli_lists_every_code_with_its_class() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("## Errors and exit codes", 1)[1]
    listed = dict(re.findall(r"^\| `([a-z_]+)` \| `([A-Za-z]+)` \|", section, flags=re.M))
    assert listed == {code: entry.error.__name__ for code, entry in CODES.items()}
    for cls in BOUNDARIES:
        assert cls.__name__ in section and cls.__name__ in (errors.__doc__ or "")
