"""A small interpreter for a safe subset of JSON Schema: the first checks of each schema.

Contract: :func:`interpretable` says whether a schema stays within the subset (types, enum,
const, numeric bounds, lengths, pattern, required, properties, additionalProperties, items,
anyOf, allOf). For such a schema, :func:`check` returns quietly for input jsonschema would
accept and raises :class:`Invalid` otherwise — and also wherever it is unsure, so it can never
accept what jsonschema (the authority, see :mod:`silo.schema.validator`) would reject. It exists because
compiling a validator costs more than a short rollout's first calls save.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["Invalid", "check", "interpretable"]


class Invalid(Exception):
    """The interpreter's "invalid (or not sure)": jsonschema gives the verdict and report."""


_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),  # 1.0: jsonschema
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}
_NUMBER_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_COUNTS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _same(a: Any, b: Any) -> bool:
    """JSON equality as jsonschema has it: booleans are not numbers, 1 equals 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if a is None or b is None:
        return a is b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return False


def interpretable(schema: Any) -> bool:
    """A well-formed schema of the fast-safe subset (anything odd is left to the compilers).

    ``not`` and ``oneOf`` are left out: the interpreter may say "invalid" where jsonschema would
    not (1.0 as an integer, say), which is safe only where a stricter answer cannot turn into a
    more lenient one.
    """
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, Mapping) or "not" in schema or "oneOf" in schema:
        return False
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    if not all(isinstance(k, str) and k in _TYPES for k in kinds):
        return False
    if any(k in schema and not _is_number(schema[k]) for k in _NUMBER_BOUNDS):
        return False
    for key in _COUNTS:
        if key in schema and (isinstance(schema[key], bool) or not isinstance(schema[key], int)):
            return False
    if "enum" in schema and not isinstance(schema["enum"], list):
        return False
    if "required" in schema and not (
        isinstance(schema["required"], list) and all(isinstance(r, str) for r in schema["required"])
    ):
        return False
    if "uniqueItems" in schema and not isinstance(schema["uniqueItems"], bool):
        return False
    if "pattern" in schema:
        if not isinstance(schema["pattern"], str):
            return False
        try:
            _regex(schema["pattern"])
        except re.error:
            return False
    if "properties" in schema and not (
        isinstance(schema["properties"], Mapping)
        and all(interpretable(v) for v in schema["properties"].values())
    ):
        return False
    for key in ("items", "additionalProperties"):
        if key in schema and not interpretable(schema[key]):
            return False
    for key in ("anyOf", "allOf"):
        if key in schema and not (
            isinstance(schema[key], list) and schema[key] and all(map(interpretable, schema[key]))
        ):
            return False
    return True


_REGEX: dict[str, re.Pattern[str]] = {}


def _regex(pattern: str) -> re.Pattern[str]:
    found = _REGEX.get(pattern)
    if found is None:
        found = _REGEX[pattern] = re.compile(pattern)
    return found


def check(schema: Any, v: Any) -> None:
    """Raise :class:`Invalid` unless ``v`` is valid (see :func:`interpretable` for the subset)."""
    if schema is True:
        return
    if schema is False:
        raise Invalid
    kind = schema.get("type")
    if kind is not None:
        if isinstance(kind, list):
            if not any(_TYPES[k](v) for k in kind):
                raise Invalid
        elif not _TYPES[kind](v):
            raise Invalid
    if "enum" in schema and not any(_same(v, e) for e in schema["enum"]):
        raise Invalid
    if "const" in schema and not _same(v, schema["const"]):
        raise Invalid
    if _is_number(v):
        if "minimum" in schema and not v >= schema["minimum"]:
            raise Invalid
        if "maximum" in schema and not v <= schema["maximum"]:
            raise Invalid
        if "exclusiveMinimum" in schema and not v > schema["exclusiveMinimum"]:
            raise Invalid
        if "exclusiveMaximum" in schema and not v < schema["exclusiveMaximum"]:
            raise Invalid
        if "multipleOf" in schema:
            step = schema["multipleOf"]
            # whole numbers only; any fraction is jsonschema's to judge
            if not (type(v) is int and type(step) is int and step > 0 and v % step == 0):
                raise Invalid
    elif isinstance(v, str):
        if "minLength" in schema and len(v) < schema["minLength"]:
            raise Invalid
        if "maxLength" in schema and len(v) > schema["maxLength"]:
            raise Invalid
        if "pattern" in schema and _regex(schema["pattern"]).search(v) is None:
            raise Invalid
    elif isinstance(v, list):
        if "minItems" in schema and len(v) < schema["minItems"]:
            raise Invalid
        if "maxItems" in schema and len(v) > schema["maxItems"]:
            raise Invalid
        if schema.get("uniqueItems") is True:
            for i, a in enumerate(v):  # Python's == (1 == True == 1.0) is the stricter test
                if any(a == b for b in v[i + 1 :]):
                    raise Invalid
        items = schema.get("items")
        if items is not None:
            for item in v:
                check(items, item)
    elif isinstance(v, dict):
        if "minProperties" in schema and len(v) < schema["minProperties"]:
            raise Invalid
        if "maxProperties" in schema and len(v) > schema["maxProperties"]:
            raise Invalid
        for name in schema.get("required", ()):
            if name not in v:
                raise Invalid
        properties = schema.get("properties", {})
        for name, sub in properties.items():
            if name in v:
                check(sub, v[name])
        extra = schema.get("additionalProperties", True)
        if extra is not True:
            for name in v:
                if name not in properties:
                    check(extra, v[name])
    if "allOf" in schema:
        for sub in schema["allOf"]:
            check(sub, v)
    if "anyOf" in schema and not any(_passes(sub, v) for sub in schema["anyOf"]):
        raise Invalid


def _passes(schema: Any, v: Any) -> bool:
    try:
        check(schema, v)
    except Invalid:
        return False
    return True
