"""Loading user Python files by path.

Contract: an environment folder becomes a private package (``_silo_env_<name>_<hash>``) so its
files can import each other relatively; any other file is loaded as a standalone module. Errors
while importing surface as :class:`~silo.errors.EnvironmentLoadError` naming the file and line.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType

from silo.errors import EnvironmentLoadError
from silo.redact import safe_str

__all__ = ["package_for_dir", "load_file"]


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text)


def package_for_dir(directory: Path, label: str) -> str:
    """Register ``directory`` as an importable package and return its module name."""
    directory = directory.resolve()
    digest = hashlib.sha1(str(directory).encode()).hexdigest()[:8]
    name = f"_silo_env_{_safe(label)}_{digest}"
    if name not in sys.modules:
        package = ModuleType(name)
        package.__path__ = [str(directory)]
        package.__file__ = str(directory / "__init__.py")
        package.__package__ = name
        sys.modules[name] = package
    return name


def load_file(path: Path, module_name: str, *, reload: bool = False) -> ModuleType:
    """Import ``path`` as ``module_name``.

    Raises:
        EnvironmentLoadError: ``module_load_failed`` when the file raises (or calls ``exit()``)
            while importing, naming the file and line.
    """
    if not reload and module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise EnvironmentLoadError("module_load_failed", f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise EnvironmentLoadError("module_load_failed", describe_exception(exc, path)) from exc
    except SystemExit:  # an exit() in user code must not end the command that imports it
        del sys.modules[module_name]
        raise EnvironmentLoadError(
            "module_load_failed", f"{path} called exit() on import; remove the call"
        ) from None
    except KeyboardInterrupt as exc:  # raised by the file (the import is over in a moment)
        del sys.modules[module_name]
        raise EnvironmentLoadError(
            "module_load_failed", f"{describe_exception(exc, path)} while importing; remove it"
        ) from None
    return module


def describe_exception(exc: BaseException, path: Path | None = None) -> str:
    """``file:line: Type: message`` for the innermost frame in user code (or the last frame)."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{exc.filename}:{exc.lineno}: SyntaxError: {exc.msg}"
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    if frames:
        chosen = frames[-1]
        if path is not None:
            inside = [
                f
                for f in frames
                if str(Path(f.filename).resolve()).startswith(str(path.parent.resolve()))
            ]
            chosen = inside[-1] if inside else chosen
        where = f"{chosen.filename}:{chosen.lineno}: "
    return f"{where}{type(exc).__name__}: {safe_str(exc)}"
