"""Editing an environment's Python source by its syntax tree, not by searching text.

A registration is found as a module-level assignment of a list literal to one of a few names
(``TOOLS: list[Tool] = [...]``); the new item goes before the list's closing bracket, on a line
of its own when the list spans lines. Every edit is parsed again before it is returned, so an
edit can never leave a file that is not Python.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from silo.errors import AuthoringError

__all__ = ["append_to_list", "ensure_imports", "insert_before_list", "list_names"]


def _parse(text: str, where: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        raise AuthoringError(
            "registration_failed",
            f"{where}:{exc.lineno}: {exc.msg}; fix the file before adding to it",
        ) from None


def _find_list(tree: ast.Module, names: Sequence[str], where: str) -> tuple[ast.stmt, ast.List]:
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        value = getattr(node, "value", None)
        if isinstance(value, ast.List) and any(
            isinstance(t, ast.Name) and t.id in names for t in targets
        ):
            return node, value
    wanted = " or ".join(f"{name} = [...]" for name in names)
    raise AuthoringError(
        "registration_failed",
        f"{where} has no module-level list {wanted} to register in; add one (it may be empty)",
    )


def _offset(lines: list[bytes], lineno: int, col: int) -> int:
    """Byte offset of (1-based line, byte column): the syntax tree counts UTF-8 bytes."""
    return sum(len(line) for line in lines[: lineno - 1]) + col


def list_names(text: str, names: Sequence[str], where: str) -> list[str]:
    """The source text of each item of the registered list, e.g. ``["*clock.TOOLS", "lend"]``."""
    _, value = _find_list(_parse(text, where), names, where)
    return [ast.unparse(item) for item in value.elts]


def append_to_list(text: str, names: Sequence[str], item: str, where: str) -> str:
    """``text`` with ``item`` appended to the module-level list assigned to one of ``names``."""
    _, value = _find_list(_parse(text, where), names, where)
    data = text.encode("utf-8")
    lines = data.splitlines(keepends=True)
    end = _offset(lines, value.end_lineno or value.lineno, (value.end_col_offset or 1) - 1)
    last = value.elts[-1] if value.elts else None
    after_last = (
        _offset(lines, last.end_lineno or last.lineno, last.end_col_offset or 0) if last else end
    )
    needs_comma = last is not None and b"," not in data[after_last:end]
    head = data[:after_last] + (b"," if needs_comma else b"") + data[after_last:end]
    if value.lineno == value.end_lineno:
        joined = head.rstrip() + (b" " if last is not None else b"") + item.encode()
        edited = joined + data[end:]
    else:
        indent = " " * (last.col_offset if last is not None else 4)
        line_start = head.rfind(b"\n") + 1
        body, closing = head[:line_start], head[line_start:]
        if closing.strip():  # the bracket shares a line with the last item: break it
            body, closing = head + b"\n", b""  # module-level: the bracket goes to column 0
        edited = body + f"{indent}{item},\n".encode() + closing + data[end:]
    result = edited.decode("utf-8")
    _parse(result, where)
    return result


def insert_before_list(text: str, names: Sequence[str], block: str, where: str) -> str:
    """``text`` with ``block`` (a definition) placed just above the registered list."""
    node, _ = _find_list(_parse(text, where), names, where)
    lines = text.splitlines(keepends=True)
    index = node.lineno - 1
    above = "".join(lines[:index]).rstrip("\n")
    result = f"{above}\n\n\n{block.strip(chr(10))}\n\n\n{''.join(lines[index:])}"
    _parse(result, where)
    return result


def _bound_names(tree: ast.Module) -> set[str]:
    bound: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
    return bound


def ensure_imports(text: str, module: str, names: Sequence[str], where: str) -> str:
    """``text`` with ``from <module> import <names>`` for those of ``names`` it does not bind.

    The line goes after the module's last top-level import (after its docstring when it has
    none), so the new code can use the names wherever it is placed.
    """
    tree = _parse(text, where)
    missing = [name for name in names if name not in _bound_names(tree)]
    if not missing:
        return text
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    docstring = ast.get_docstring(tree) is not None
    anchor = imports[-1] if imports else (tree.body[0] if docstring else None)
    at = (anchor.end_lineno or anchor.lineno) if anchor is not None else 0
    lines = text.splitlines(keepends=True)
    line = f"from {module} import {', '.join(missing)}\n"
    result = "".join([*lines[:at], line, *lines[at:]])
    _parse(result, where)
    return result
