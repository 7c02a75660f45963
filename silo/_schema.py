"""Validating tool input against the tool's JSON Schema (Draft 2020-12).

Contract: :func:`validator_for` gives one compiled :class:`InputValidator` per distinct schema
(cached for the process). :meth:`InputValidator.problems` returns ``None`` for valid input and
otherwise every problem as one readable line. Valid input takes the fast path: a fastjsonschema
function for schemas whose keywords mean the same in draft-07 and 2020-12, else a compiled
jsonschema validator. The complete report always comes from jsonschema, which is the authority:
if the two ever disagree, jsonschema's verdict wins.

Compiling costs a millisecond or more per schema (and importing fastjsonschema a few), which a
single short rollout never earns back, so a schema's first ``COMPILE_AFTER`` checks use a small
interpreter of the same keyword subset instead. It never accepts what jsonschema rejects (where
unsure it says "invalid" and jsonschema decides), so verdicts do not depend on which tier ran.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from silo._jsonio import canonical

__all__ = ["InputValidator", "validator_for", "schema_problems"]

_FAST_KEYWORDS = frozenset(
    [
        "type",
        "properties",
        "required",
        "additionalProperties",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "description",
        "title",
        "default",
        "examples",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "multipleOf",
        "minProperties",
        "maxProperties",
        "format",
    ]
)
_SCHEMA_MAPS = ("properties",)
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf")


def _fast_safe(schema: Any) -> bool:
    """True when every keyword is one whose draft-07 meaning equals its 2020-12 meaning."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, Mapping) or not set(schema) <= _FAST_KEYWORDS:
        return False
    for key in _SCHEMA_MAPS:
        if key in schema and not all(_fast_safe(s) for s in schema[key].values()):
            return False
    for key in _SCHEMA_LISTS:
        if key in schema and not all(_fast_safe(s) for s in schema[key]):
            return False
    for key in ("items", "not", "additionalProperties"):
        if key in schema and not (isinstance(schema[key], bool) or _fast_safe(schema[key])):
            return False
    return True


COMPILE_AFTER = 64  # checks of one schema before it is compiled with fastjsonschema


class _Invalid(Exception):
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


def _interpretable(schema: Any) -> bool:
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
        and all(_interpretable(v) for v in schema["properties"].values())
    ):
        return False
    for key in ("items", "additionalProperties"):
        if key in schema and not _interpretable(schema[key]):
            return False
    for key in ("anyOf", "allOf"):
        if key in schema and not (
            isinstance(schema[key], list) and schema[key] and all(map(_interpretable, schema[key]))
        ):
            return False
    return True


_REGEX: dict[str, re.Pattern[str]] = {}


def _regex(pattern: str) -> re.Pattern[str]:
    found = _REGEX.get(pattern)
    if found is None:
        found = _REGEX[pattern] = re.compile(pattern)
    return found


def _check(schema: Any, v: Any) -> None:
    """Raise :class:`_Invalid` unless ``v`` is valid (see :func:`_interpretable` for the subset)."""
    if schema is True:
        return
    if schema is False:
        raise _Invalid
    kind = schema.get("type")
    if kind is not None:
        if isinstance(kind, list):
            if not any(_TYPES[k](v) for k in kind):
                raise _Invalid
        elif not _TYPES[kind](v):
            raise _Invalid
    if "enum" in schema and not any(_same(v, e) for e in schema["enum"]):
        raise _Invalid
    if "const" in schema and not _same(v, schema["const"]):
        raise _Invalid
    if _is_number(v):
        if "minimum" in schema and not v >= schema["minimum"]:
            raise _Invalid
        if "maximum" in schema and not v <= schema["maximum"]:
            raise _Invalid
        if "exclusiveMinimum" in schema and not v > schema["exclusiveMinimum"]:
            raise _Invalid
        if "exclusiveMaximum" in schema and not v < schema["exclusiveMaximum"]:
            raise _Invalid
        if "multipleOf" in schema:
            step = schema["multipleOf"]
            # whole numbers only; any fraction is jsonschema's to judge
            if not (type(v) is int and type(step) is int and step > 0 and v % step == 0):
                raise _Invalid
    elif isinstance(v, str):
        if "minLength" in schema and len(v) < schema["minLength"]:
            raise _Invalid
        if "maxLength" in schema and len(v) > schema["maxLength"]:
            raise _Invalid
        if "pattern" in schema and _regex(schema["pattern"]).search(v) is None:
            raise _Invalid
    elif isinstance(v, list):
        if "minItems" in schema and len(v) < schema["minItems"]:
            raise _Invalid
        if "maxItems" in schema and len(v) > schema["maxItems"]:
            raise _Invalid
        if schema.get("uniqueItems") is True:
            for i, a in enumerate(v):  # Python's == (1 == True == 1.0) is the stricter test
                if any(a == b for b in v[i + 1 :]):
                    raise _Invalid
        items = schema.get("items")
        if items is not None:
            for item in v:
                _check(items, item)
    elif isinstance(v, dict):
        if "minProperties" in schema and len(v) < schema["minProperties"]:
            raise _Invalid
        if "maxProperties" in schema and len(v) > schema["maxProperties"]:
            raise _Invalid
        for name in schema.get("required", ()):
            if name not in v:
                raise _Invalid
        properties = schema.get("properties", {})
        for name, sub in properties.items():
            if name in v:
                _check(sub, v[name])
        extra = schema.get("additionalProperties", True)
        if extra is not True:
            for name in v:
                if name not in properties:
                    _check(extra, v[name])
    if "allOf" in schema:
        for sub in schema["allOf"]:
            _check(sub, v)
    if "anyOf" in schema and not any(_passes(sub, v) for sub in schema["anyOf"]):
        raise _Invalid


def _passes(schema: Any, v: Any) -> bool:
    try:
        _check(schema, v)
    except _Invalid:
        return False
    return True


class InputValidator:
    __slots__ = ("schema", "_fast", "_full", "_cold", "_checks")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema
        self._full: Any = None
        self._fast: Callable[[Any], Any] | None = None
        self._cold = False  # interpreting until COMPILE_AFTER checks
        self._checks = 0
        if _fast_safe(schema):
            if _interpretable(schema):
                self._cold = True
            else:
                self._compile()

    def _compile(self) -> None:
        import fastjsonschema

        try:
            self._fast = fastjsonschema.compile(dict(self.schema), use_default=False)
        except Exception:  # an exotic schema fastjsonschema cannot compile
            self._fast = None
        self._cold = False

    def _full_validator(self) -> Any:
        if self._full is None:
            from jsonschema import Draft202012Validator

            self._full = Draft202012Validator(self.schema)
        return self._full

    def problems(self, value: Any) -> list[str] | None:
        if self._cold:
            self._checks += 1
            if self._checks >= COMPILE_AFTER:
                self._compile()
            try:
                _check(self.schema, value)
                return None
            except _Invalid:
                found = schema_problems(self._full_validator(), value)
                return found or None
            except RecursionError:
                pass  # absurdly deep input: the compiled tiers decide below
        fast = self._fast
        if fast is not None:
            try:
                fast(value)
                return None
            except Exception:
                pass
        elif self._full_validator().is_valid(value):
            return None
        found = schema_problems(self._full_validator(), value)
        return found or None


def _path(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def schema_problems(validator: Any, value: Any) -> list[str]:
    """Every schema violation of ``value`` as one line each, required and unknown keys first."""
    required: list[str] = []
    unknown: list[str] = []
    other: list[str] = []
    for error in validator.iter_errors(value):
        where = _path(error.absolute_path)
        if error.validator == "required":
            name = str(error.message).split("'")[1] if "'" in str(error.message) else "?"
            required.append(f'"{where + "." if where else ""}{name}" is required')
        elif error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
            declared = list(error.schema.get("properties", {}))
            hint = f"; expected one of: {', '.join(declared)}" if declared else ""
            for key in error.instance:
                if key not in declared:
                    unknown.append(
                        f'"{where + "." if where else ""}{key}" is not a parameter{hint}'
                    )
        else:
            other.append(f'"{where}": {error.message}' if where else str(error.message))
    return required + unknown + other


_CACHE: dict[str, InputValidator] = {}


def validator_for(schema: Mapping[str, Any]) -> InputValidator:
    key = canonical(schema)
    found = _CACHE.get(key)
    if found is None:
        found = _CACHE[key] = InputValidator(schema)
    return found
