"""silo.toolkit as a package: everything public is exported, and it stays beside the contracts."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import silo.toolkit

PACKAGE = Path(silo.toolkit.__file__).parent
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
ALLOWED = {"silo.errors", "silo.tools", "silo.jsonio", "silo.json_types", "silo.toolkit"}


def test_every_module_public_name_is_exported_by_the_package() -> None:
    for name in MODULES:
        module = importlib.import_module(f"silo.toolkit.{name}")
        assert module.__doc__, name
        for public in module.__all__:
            assert getattr(silo.toolkit, public) is getattr(module, public), (name, public)
            assert public in silo.toolkit.__all__, (name, public)


def test_imports_only_the_contracts_it_may() -> None:
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("silo"):
                assert any(
                    node.module == ok or node.module.startswith(ok + ".") for ok in ALLOWED
                ), (path.name, node.module)
            if isinstance(node, ast.Import):
                assert all(not alias.name.startswith("silo") for alias in node.names), path.name
