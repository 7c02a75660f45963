"""The fast half of input validation: a schema compiled to one plain Python function.

Contract: :func:`compile_check` turns a schema made only of everyday keywords (one ``type`` per
subschema; properties, required, additionalProperties; string lengths, pattern and string
enums; numeric bounds; items and item counts; annotations) into a function that returns True
only for values jsonschema (Draft 2020-12) accepts; False means "invalid, or not sure", and the
caller then asks jsonschema. Any other schema gives ``None`` (jsonschema alone checks it). Literals reach the generated code
through ``repr`` (names, counts) or as named constants (bounds, enums, regexes), never pasted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from silo.json_types import JSON

__all__ = ["GeneratedCheck", "compile_check"]

GeneratedCheck = Callable[[Any], bool]
"""A generated check: true only for valid input; false means "invalid, or not sure"."""

# The generated tier's subset: one ``type`` per subschema and these keywords for it.
_ANNOTATIONS = frozenset(["description", "title", "default", "examples"])
_GEN_KEYWORDS: dict[str, frozenset[str]] = {
    "object": frozenset(["type", "properties", "required", "additionalProperties"]),
    "array": frozenset(["type", "items", "minItems", "maxItems"]),
    "string": frozenset(["type", "minLength", "maxLength", "pattern", "enum"]),
    "integer": frozenset(["type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
    "number": frozenset(["type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
    "boolean": frozenset(["type"]),
    "null": frozenset(["type"]),
}
_BOUNDS = (
    ("minimum", ">="),
    ("maximum", "<="),
    ("exclusiveMinimum", ">"),
    ("exclusiveMaximum", "<"),
)
_MAX_DEPTH = 16  # nesting the generator follows; deeper schemas go to jsonschema


class _NotGenerated(Exception):
    """A schema (or part of one) outside the generated tier's subset."""


def _count(schema: Mapping[str, JSON], key: str) -> int | None:
    value = schema.get(key)
    if value is None:
        return None
    if type(value) is not int or value < 0:
        raise _NotGenerated
    return value


def _bound(schema: Mapping[str, JSON], key: str) -> int | float | None:
    value = schema.get(key)
    if value is None:
        return None
    if type(value) not in (int, float) or value != value:
        raise _NotGenerated
    bound: int | float = value
    return bound


class _Source:
    """The lines of one generated function and the constants it refers to by name."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.consts: dict[str, JSON] = {}
        self.names = 0

    def const(self, value: Any) -> str:
        name = f"_k{len(self.consts)}"
        self.consts[name] = value
        return name

    def var(self) -> str:
        self.names += 1
        return f"_v{self.names}"

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def block(self, schema: Any, x: str, depth: int, level: int) -> None:
        """The checks of ``schema`` on ``x`` as a statement block (``pass`` when empty)."""
        before = len(self.lines)
        _emit(self, schema, x, depth, level)
        if len(self.lines) == before:
            self.emit(depth, "pass")


def _emit(src: _Source, schema: Any, x: str, depth: int, level: int) -> None:
    """Append statements that ``return False`` unless ``x`` is valid under ``schema``.

    Type tests are exact (``type(x) is str``), stricter than jsonschema's: a str subclass, or
    1.0 as an integer, are "not sure" and jsonschema decides. Input reaches validation as a
    fresh JSON copy, so exact types are what valid input has. Literals are written with
    ``repr`` (names, counts) or passed as constants (bounds, enums, regexes), never pasted.
    """
    if level > _MAX_DEPTH:
        raise _NotGenerated
    if schema is True:
        return
    if schema is False:
        src.emit(depth, "return False")
        return
    if not isinstance(schema, Mapping):
        raise _NotGenerated
    kind = schema.get("type")
    allowed = _GEN_KEYWORDS.get(kind) if type(kind) is str else None
    if allowed is None or not all(k in allowed or k in _ANNOTATIONS for k in schema):
        raise _NotGenerated
    emit = src.emit
    if kind == "object":
        properties = schema.get("properties", {})
        required = schema.get("required", [])
        extra = schema.get("additionalProperties", True)
        if not isinstance(properties, Mapping) or type(required) is not list:
            raise _NotGenerated
        if not all(type(name) is str for name in [*properties, *required]):
            raise _NotGenerated
        emit(depth, f"if type({x}) is not dict: return False")
        for name in required:
            emit(depth, f"if {name!r} not in {x}: return False")
        if not properties and extra is True:
            return
        key, item = src.var(), src.var()
        emit(depth, f"for {key}, {item} in {x}.items():")
        for i, (name, sub) in enumerate(properties.items()):
            emit(depth + 1, f"{'elif' if i else 'if'} {key} == {name!r}:")
            src.block(sub, item, depth + 2, level + 1)
        if extra is True:  # any other key, any value
            return
        if properties:
            emit(depth + 1, "else:")
            src.block(extra, item, depth + 2, level + 1)
        else:
            src.block(extra, item, depth + 1, level + 1)
    elif kind == "array":
        low, high = _count(schema, "minItems"), _count(schema, "maxItems")
        emit(depth, f"if type({x}) is not list: return False")
        _emit_range(src, f"len({x})", low, high, depth)
        items = schema.get("items", True)
        if items is not True:
            each = src.var()
            emit(depth, f"for {each} in {x}:")
            src.block(items, each, depth + 1, level + 1)
    elif kind == "string":
        low, high = _count(schema, "minLength"), _count(schema, "maxLength")
        choices = schema.get("enum")
        if choices is not None and not (
            type(choices) is list and choices and all(type(c) is str for c in choices)
        ):
            raise _NotGenerated
        emit(depth, f"if type({x}) is not str: return False")
        if choices is not None:
            emit(depth, f"if {x} not in {src.const(frozenset(choices))}: return False")
        _emit_range(src, f"len({x})", low, high, depth)  # code points, as jsonschema counts
        pattern = schema.get("pattern")
        if pattern is not None:
            _emit_pattern(src, pattern, x, depth)
    elif kind == "integer" or kind == "number":
        if kind == "integer":
            emit(depth, f"if type({x}) is not int: return False")  # bool is not int here
        else:
            emit(depth, f"if type({x}) is not int and type({x}) is not float: return False")
        for keyword, op in _BOUNDS:
            bound = _bound(schema, keyword)
            if bound is not None:  # ``not x >= b``: NaN fails every bound ("not sure")
                emit(depth, f"if not {x} {op} {src.const(bound)}: return False")
    elif kind == "boolean":
        emit(depth, f"if type({x}) is not bool: return False")
    else:
        emit(depth, f"if {x} is not None: return False")


def _emit_pattern(src: _Source, pattern: Any, x: str, depth: int) -> None:
    """``pattern`` as jsonschema tests it: ``re.search``, the same engine and the same verdict."""
    if type(pattern) is not str:
        raise _NotGenerated
    try:
        search = re.compile(pattern).search  # also refuses what the regex engine refuses
    except (re.error, ValueError, OverflowError):
        raise _NotGenerated from None
    src.emit(depth, f"if {src.const(search)}({x}) is None: return False")


def _emit_range(src: _Source, size: str, low: int | None, high: int | None, depth: int) -> None:
    if low and high is not None:
        src.emit(depth, f"if not {low} <= {size} <= {high}: return False")
    elif low:
        src.emit(depth, f"if {size} < {low}: return False")
    elif high is not None:
        src.emit(depth, f"if {size} > {high}: return False")


def _generate(schema: Any) -> tuple[str, dict[str, JSON]] | None:
    """The source of ``check(v)`` for ``schema`` and its constants, or None outside the subset."""
    src = _Source()
    try:
        _emit(src, schema, "v", 1, 0)
    except (_NotGenerated, RecursionError):
        return None
    return "def check(v):\n" + "\n".join([*src.lines, "    return True", ""]), src.consts


def _compile_generated(source: str, consts: dict[str, JSON]) -> GeneratedCheck:
    namespace = dict(consts)
    exec(compile(source, "<silo schema check>", "exec"), namespace)
    check: GeneratedCheck = namespace["check"]
    return check


def compile_check(schema: Any) -> GeneratedCheck | None:
    """A plain function true only for values jsonschema accepts under ``schema`` (2020-12).

    False means "invalid, or not sure". ``None`` when the schema is outside the subset: one
    ``type`` per subschema; properties, required, additionalProperties; string lengths,
    pattern and string enums; numeric bounds; items and item counts; annotations.
    """
    generated = _generate(schema)
    return None if generated is None else _compile_generated(*generated)
