"""Drawing random values that satisfy a JSON Schema (Draft 2020-12).

Contract: ``SchemaSampler(rng, ids).sample_valid(schema)`` returns a value that validates against
``schema`` (checked with jsonschema, formats included; up to a bounded number of draws) or raises
:class:`Unsatisfiable`. It covers types, ``enum``/``const``, numeric bounds and ``multipleOf``,
string lengths, common ``format`` values, ``pattern`` (a generator for the common regex subset),
required and random optional properties, arrays, nested objects, ``anyOf``/``oneOf``/``allOf``
and ``$ref`` to ``$defs``. Strings for ``...Id`` properties are often drawn from ``ids``. All
randomness comes from ``rng``.

Which strings are ids is the environment's to say, never a shape built in here:
:func:`id_patterns` reads the ``pattern`` of every ``...Id`` property (and of the items of
every ``...Ids`` array) from the tools' schemas, and :func:`ids_in` finds, in a tool's output,
the strings stored under an ``id`` or ``...Id`` key and those matching one of those patterns.
"""

from __future__ import annotations

import copy
import datetime as dt
import math
import re
import string
import uuid
from collections.abc import Iterable, Iterator, Mapping
from random import Random

from jsonschema import Draft202012Validator

from silo.agents.pattern import PRINTABLE, Pattern, PatternError, parse_pattern
from silo.errors import SiloException
from silo.json_types import JSON

__all__ = ["SchemaSampler", "Unsatisfiable", "id_patterns", "ids_in"]

_WORDS = ("acme", "globex", "initech", "north", "renewal", "q3", "pilot", "urgent", "note", "x")
_TYPE_HINTS = (
    ("object", {"properties", "required", "additionalProperties"}),
    ("array", {"items", "prefixItems", "minItems", "maxItems"}),
    ("string", {"pattern", "minLength", "maxLength", "format"}),
    ("number", {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}),
)
_MAX_DEPTH = 8
_ATTEMPTS = 25


class Unsatisfiable(SiloException):
    """No value could be drawn for a schema (unsupported keyword or contradictory bounds)."""


class SchemaSampler:
    """Draws JSON values from JSON Schemas with ``rng``; ``ids`` are known record ids."""

    def __init__(self, rng: Random, ids: dict[str, None] | None = None) -> None:
        self.rng = rng
        self.ids = ids if ids is not None else {}
        self._root: JSON = {}
        self._validators: dict[int, tuple[JSON, Draft202012Validator]] = {}

    def sample_valid(self, schema: JSON) -> JSON:
        """A value valid against ``schema`` (checked with jsonschema), or :class:`Unsatisfiable`."""
        cached = self._validators.get(id(schema))
        if cached is None or cached[0] is not schema:  # ids of dead schemas get reused
            checker = Draft202012Validator.FORMAT_CHECKER
            cached = (schema, Draft202012Validator(schema, format_checker=checker))
            self._validators[id(schema)] = cached
        validator = cached[1]
        self._root = schema
        for _ in range(_ATTEMPTS):
            try:
                value = self.value(schema)
            except Unsatisfiable:
                continue
            if validator.is_valid(value):
                return value
        raise Unsatisfiable("no valid value found")

    def value(self, schema: JSON, name: str = "", depth: int = 0) -> JSON:
        """One draw for ``schema`` (not checked against it), for a property called ``name``.

        ``name`` steers the draw (``...Id`` strings favour known ids); ``depth`` bounds
        recursion. :meth:`sample_valid` checks and redraws; this raises :class:`Unsatisfiable`
        when no value can be drawn at all.
        """
        if depth > _MAX_DEPTH * 2 or schema is False:
            raise Unsatisfiable("schema too deep or false")
        schema = self._flatten(schema if isinstance(schema, dict) else {})
        if "const" in schema:
            return copy.deepcopy(schema["const"])
        if "enum" in schema:
            return copy.deepcopy(self.rng.choice(schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if key in schema:
                base = {k: v for k, v in schema.items() if k != key}
                branches = list(schema[key])
                self.rng.shuffle(branches)
                for branch in branches:
                    try:
                        return self.value(_merge(base, self._flatten(branch)), name, depth + 1)
                    except Unsatisfiable:
                        continue
                raise Unsatisfiable(f"no satisfiable {key} branch")
        kind = _pick_type(schema, self.rng)
        if kind in ("null", "boolean"):
            return None if kind == "null" else self.rng.random() < 0.5
        if kind not in ("integer", "number", "string", "array", "object"):
            raise Unsatisfiable(f"unsupported type {kind!r}")
        return getattr(self, f"_{kind}")(schema, name, depth)

    def _flatten(self, schema: dict[str, JSON]) -> dict[str, JSON]:
        """Resolve a local ``$ref`` and merge ``allOf`` parts into one schema."""
        for _ in range(32):
            if "$ref" in schema:
                rest = {k: v for k, v in schema.items() if k != "$ref"}
                schema = _merge(_resolve(self._root, schema["$ref"]), rest)
            elif "allOf" in schema:
                merged = {k: v for k, v in schema.items() if k != "allOf"}
                for part in schema["allOf"]:
                    merged = _merge(merged, self._flatten(part if isinstance(part, dict) else {}))
                schema = merged
            else:
                return schema
        raise Unsatisfiable("$ref cycle")

    def _integer(self, schema: dict[str, JSON], name: str, depth: int) -> int:
        lo, hi = _bounds(schema, nudge=1)
        step = schema.get("multipleOf", 1)
        step = step if isinstance(step, int) and step > 0 else 1
        first, last = math.ceil(lo / step), math.floor(hi / step)
        if first > last:
            raise Unsatisfiable("empty integer range")
        return step * self.rng.choice((first, last, self.rng.randint(first, last)))

    def _number(self, schema: dict[str, JSON], name: str, depth: int) -> float | int:
        if self.rng.random() < 0.3 or "multipleOf" in schema:
            return self._integer(schema, name, depth)
        return round(self.rng.uniform(*_bounds(schema, nudge=0.01)), 2)

    def _string(self, schema: dict[str, JSON], name: str, depth: int) -> str:
        if name.endswith("Id") and self.ids and self.rng.random() < 0.7:
            known = [i for i in self.ids if _string_ok(i, schema)]
            if known:
                return self.rng.choice(known)
        pattern = schema.get("pattern")
        for _ in range(_ATTEMPTS):
            candidate = self._formatted(schema.get("format"))
            if candidate is None and pattern is not None:
                # Prefer a realistic value (a real date, say) when it fits the pattern.
                realistic = [self._formatted(f) or "" for f in ("date", "date-time", "email")]
                fitting = [s for s in realistic if re.search(pattern, s)]
                use_real = fitting and self.rng.random() < 0.7
                candidate = fitting[0] if use_real else _parse(pattern).draw(self.rng)
            if candidate is None:
                candidate = self._word(schema)
            if _string_ok(candidate, schema):
                return candidate
        raise Unsatisfiable("no string meets the constraints")

    def _formatted(self, fmt: JSON) -> str | None:
        rng = self.rng
        day = (dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 1500))).isoformat()
        makers = {
            "date": lambda: day,
            "date-time": lambda: f"{day}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
            "email": lambda: f"{rng.choice(_WORDS)}{rng.randint(1, 99)}@example.com",
            "uuid": lambda: str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "uri": lambda: f"https://example.com/{rng.choice(_WORDS)}",
        }
        return makers[fmt]() if fmt in makers else None

    def _word(self, schema: dict[str, JSON]) -> str:
        lo = schema.get("minLength", 0)
        hi = schema.get("maxLength", max(lo, 16))
        text = " ".join(self.rng.choice(_WORDS) for _ in range(self.rng.randint(1, 3)))
        if self.rng.random() < 0.2:
            text = "".join(self.rng.choice(PRINTABLE) for _ in range(self.rng.randint(lo, hi)))
        text = text[:hi]
        while len(text) < lo:
            text += self.rng.choice(string.ascii_lowercase)
        return text

    def _array(self, schema: dict[str, JSON], name: str, depth: int) -> list[JSON]:
        prefix = list(schema.get("prefixItems", []))
        lo = max(schema.get("minItems", 0), 0)
        hi = schema.get("maxItems", lo + 3)
        if lo > hi:
            raise Unsatisfiable("minItems > maxItems")
        item_name = name[:-1] if name.endswith("Ids") else ""
        items: list[JSON] = []
        for index in range(lo if depth >= _MAX_DEPTH else self.rng.randint(lo, hi)):
            sub = prefix[index] if index < len(prefix) else schema.get("items", {})
            item = self.value(sub, item_name, depth + 1)
            for _ in range(10 if schema.get("uniqueItems") else 0):
                if item not in items:
                    break
                item = self.value(sub, item_name, depth + 1)
            items.append(item)
        return items

    def _object(self, schema: dict[str, JSON], name: str, depth: int) -> dict[str, JSON]:
        required = list(schema.get("required", []))
        out: dict[str, JSON] = {}
        for key, sub in schema.get("properties", {}).items():
            if key in required or (depth < _MAX_DEPTH and self.rng.random() < 0.5):
                out[key] = self.value(sub, key, depth + 1)
        for key in required:  # required but not among the properties
            if key not in out:
                out[key] = self.value(schema.get("additionalProperties", {}), key, depth + 1)
        return out


def _parse(pattern: str) -> Pattern:
    try:
        return parse_pattern(pattern)
    except PatternError as exc:
        raise Unsatisfiable(f"pattern {pattern!r}: {exc}") from None


def _merge(base: dict[str, JSON], extra: dict[str, JSON]) -> dict[str, JSON]:
    merged = {**base, **extra}
    for key in ("properties", "$defs"):
        if key in base and key in extra:
            merged[key] = {**base[key], **extra[key]}
    if "required" in base and "required" in extra:
        merged["required"] = list(dict.fromkeys([*base["required"], *extra["required"]]))
    return merged


def _resolve(root: JSON, ref: str) -> dict[str, JSON]:
    node = root if ref.startswith("#") else None
    for part in filter(None, ref[1:].split("/")):
        part = part.replace("~1", "/").replace("~0", "~")
        node = node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, dict):
        raise Unsatisfiable(f"cannot resolve $ref {ref!r} (only local refs are supported)")
    return node


def _pick_type(schema: dict[str, JSON], rng: Random) -> str:
    declared = schema.get("type")
    if isinstance(declared, str):
        return declared
    if isinstance(declared, list) and declared:
        non_null = [t for t in declared if t != "null"]
        return str(
            rng.choice(non_null) if non_null and rng.random() < 0.9 else rng.choice(declared)
        )
    for kind, keywords in _TYPE_HINTS:
        if keywords & schema.keys():
            return kind
    return rng.choice(("string", "integer", "boolean"))


def _bounds(schema: dict[str, JSON], nudge: float) -> tuple[float, float]:
    lo, hi = schema.get("minimum"), schema.get("maximum")
    ex_lo, ex_hi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if isinstance(ex_lo, (int, float)) and not isinstance(ex_lo, bool):
        lo = ex_lo + nudge if lo is None else max(lo, ex_lo + nudge)
    if isinstance(ex_hi, (int, float)) and not isinstance(ex_hi, bool):
        hi = ex_hi - nudge if hi is None else min(hi, ex_hi - nudge)
    if lo is None:
        lo = -10 if hi is None else hi - 100
    return lo, lo + 100 if hi is None else hi


def _string_ok(text: str, schema: dict[str, JSON]) -> bool:
    if not schema.get("minLength", 0) <= len(text) <= schema.get("maxLength", len(text)):
        return False
    pattern = schema.get("pattern")
    return pattern is None or re.search(pattern, text) is not None


def id_patterns(schemas: Iterable[JSON]) -> list[re.Pattern[str]]:
    """The ``pattern`` of every id-named string in ``schemas``, compiled, in order of appearance.

    An id-named string is a property whose name ends in ``Id`` or the items of one whose name
    ends in ``Ids``; patterns that do not compile are left out.
    """
    found: dict[str, None] = {}
    for schema in schemas:
        _collect_id_patterns(schema, "", found, 0)
    compiled = []
    for pattern in found:
        try:
            compiled.append(re.compile(pattern))
        except re.error:
            continue
    return compiled


def _collect_id_patterns(schema: JSON, name: str, found: dict[str, None], depth: int) -> None:
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH * 2:
        return
    pattern = schema.get("pattern")
    if name.endswith("Id") and isinstance(pattern, str):
        found[pattern] = None
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for key, sub in properties.items():
            _collect_id_patterns(sub, str(key), found, depth + 1)
    item_name = name[:-1] if name.endswith("Ids") else ""
    _collect_id_patterns(schema.get("items"), item_name, found, depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(key)
        for sub in branches if isinstance(branches, list) else ():
            _collect_id_patterns(sub, name, found, depth + 1)
    definitions = schema.get("$defs")
    if isinstance(definitions, Mapping):
        for sub in definitions.values():
            _collect_id_patterns(sub, "", found, depth + 1)


def ids_in(value: JSON, patterns: list[re.Pattern[str]]) -> Iterator[str]:
    """The ids in a tool's output, in the order the output holds them.

    An id is a string stored under an ``id``, ``...Id`` or ``...Ids`` key, or one matching one
    of ``patterns`` (from :func:`id_patterns`) wherever it is.
    """
    stack: list[tuple[str, JSON]] = [("", value)]
    while stack:
        key, item = stack.pop()
        if isinstance(item, str):
            if key == "id" or key.endswith(("Id", "Ids")) or any(p.search(item) for p in patterns):
                yield item
        elif isinstance(item, Mapping):
            stack.extend((str(k), v) for k, v in reversed(list(item.items())))
        elif isinstance(item, (list, tuple)):
            stack.extend((key, v) for v in reversed(item))
