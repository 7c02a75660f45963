"""One exception tree: every public exception class in silo/ derives from SiloException."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import silo
from silo import SiloError, SiloException, ToolError
from silo.agents.contract import AgentError, ModelError, RunLimitError
from silo.toolkit import SolverError
from silo.verifiers import VerifierError
from silo.world.tracked import StateMutationError

PACKAGE = Path(silo.__file__).resolve().parent


def _looks_like_exception(node: ast.ClassDef) -> bool:
    bases = [ast.unparse(base) for base in node.bases]
    return any(base.endswith(("Error", "Exception", "Failure")) for base in bases)


def _public_exception_classes() -> list[type[BaseException]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(("silo", *path.relative_to(PACKAGE).with_suffix("").parts))
        module = module.removesuffix(".__init__")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        classes = [
            node
            for node in tree.body
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_") and node.bases
        ]
        if not classes:
            continue
        names = [node.name for node in classes]
        try:
            loaded = vars(importlib.import_module(module))
        except (ImportError, SiloError):  # an optional extra this venv lacks
            assert not [n for n in classes if _looks_like_exception(n)], module
            continue
        found += [
            loaded[name]
            for name in names
            if isinstance(loaded.get(name), type) and issubclass(loaded[name], BaseException)
        ]
    return found


def test_every_public_exception_derives_from_the_one_root() -> None:
    classes = _public_exception_classes()
    assert len(classes) > 20  # the scan found the package's exceptions, not an empty list
    strays = [
        f"{c.__module__}.{c.__qualname__}" for c in classes if not issubclass(c, SiloException)
    ]
    assert strays == []


def test_the_run_time_signals_and_the_coded_errors_share_the_root() -> None:
    for cls in (SiloError, ToolError, VerifierError, StateMutationError, RunLimitError,
                AgentError, ModelError, SolverError):  # fmt: skip
        assert issubclass(cls, SiloException), cls
    # the old bases stay, so code catching them still catches these
    assert issubclass(StateMutationError, RuntimeError) and issubclass(SolverError, RuntimeError)
    # a refusal is not a coded user error: `except SiloError` in the commands does not catch it
    assert not issubclass(ToolError, SiloError)
