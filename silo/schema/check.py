"""Checking a tool's own schema when its environment is first used, cheaply and in one line.

Contract: :func:`schema_mistake` walks a JSON Schema (Draft 2020-12) and returns the first
mistake in the keywords tools use — a ``type`` that names no JSON type, ``properties`` that are
not schemas, ``required`` that is not a list of names, ``enum`` that is not a list, a bound that
is not a number, a ``pattern`` that does not compile — as ``"<path>: <what is wrong>"``, or None.
It does not import jsonschema (a rollout must not pay for importing it): ``silo-validate`` runs the
full meta-schema check; this catches, before the first call, what would otherwise blow up inside
one and be blamed on the agent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from silo.json_types import JSON

__all__ = ["JSON_TYPES", "schema_mistake"]

JSON_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")
_SUBSCHEMA = ("items", "additionalProperties", "not", "contains", "propertyNames", "if",
              "then", "else", "unevaluatedItems", "unevaluatedProperties")  # fmt: skip
_SCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_COUNTS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def schema_mistake(schema: Any, where: str = "inputSchema") -> str | None:
    """The first mistake in ``schema`` as ``"<where>.<path>: <problem>"``, or None."""
    if isinstance(schema, bool):
        return None
    if not isinstance(schema, Mapping):
        return f"{where}: a schema must be an object (or true/false), not {type(schema).__name__}"
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        for name in kinds:
            if name not in JSON_TYPES:
                return (
                    f"{where}.type: {name!r} is not a JSON Schema type; use one of "
                    f"{', '.join(JSON_TYPES)}"
                )
    required = schema.get("required")
    if required is not None and (
        not isinstance(required, list) or not all(isinstance(r, str) for r in required)
    ):
        return f"{where}.required: must be a list of property names"
    if "enum" in schema and not isinstance(schema["enum"], list):
        return f"{where}.enum: must be a list of the allowed values"
    for key in _NUMBERS:
        if key in schema and not _is_number(schema[key]):
            return f"{where}.{key}: must be a number, not {schema[key]!r}"
    for key in _COUNTS:
        value = schema.get(key)
        if key in schema and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            return f"{where}.{key}: must be a whole number >= 0, not {value!r}"
    pattern = schema.get("pattern")
    if pattern is not None:
        try:
            re.compile(pattern)
        except (re.error, TypeError) as exc:
            return f"{where}.pattern: {pattern!r} is not a regular expression ({exc})"
    return _nested_mistake(schema, where)


def _nested_mistake(schema: Mapping[str, JSON], where: str) -> str | None:
    for key in _SUBSCHEMA:
        if key in schema:
            found = schema_mistake(schema[key], f"{where}.{key}")
            if found:
                return found
    for key in _SCHEMA_LISTS:
        if key in schema:
            items = schema[key]
            if not isinstance(items, list) or not items:
                return f"{where}.{key}: must be a non-empty list of schemas"
            for index, item in enumerate(items):
                found = schema_mistake(item, f"{where}.{key}[{index}]")
                if found:
                    return found
    for key in _SCHEMA_MAPS:
        if key in schema:
            members = schema[key]
            if not isinstance(members, Mapping):
                return f"{where}.{key}: must be an object of schemas"
            for name, item in members.items():
                found = schema_mistake(item, f"{where}.{key}.{name}")
                if found:
                    return found
    return None
