"""A fuzzing agent: random tools with random, schema-valid arguments.

Contract: ``RandomAgent(seed=0, calls=20)`` makes up to ``calls`` tool calls. Each picks a tool
at random and draws an input from the tool's ``inputSchema`` (types, ``enum``, ``const``,
numeric bounds incl. exclusive ones and ``multipleOf``, string lengths, ``format`` (date,
date-time, email, uuid, uri), ``pattern`` (a generator for the common regex subset), required
and random optional properties, arrays with ``items``/``prefixItems``/``minItems``/``maxItems``/
``uniqueItems``, nested objects, ``anyOf``/``oneOf`` (a random branch), ``allOf``, and ``$ref`` to
``$defs``). Every drawn input is checked against the schema with ``jsonschema`` (formats too) and
redrawn if invalid; a tool whose schema cannot be satisfied is skipped and named in the output.
Strings for properties named ``...Id`` (and items of ``...Ids``) are often taken from ids seen in
earlier outputs (strings matching ``^[A-Z]+-\\d+$``), so calls reach real records.

Determinism: all choices come from one ``random.Random(seed)``; with ``seed=None`` the run's seed
(``AgentInput.seed``) is used instead. The Hydra config passes ``seed: ${seed}``, so by default
the agent follows the run's seed. ``RunLimitError`` ends the loop cleanly. The output is one line
summarising the calls and the error codes they returned.
"""

from __future__ import annotations

import copy
import datetime as dt
import math
import re
import string
import uuid
from collections import Counter
from random import Random
from re import _parser as sre  # type: ignore[attr-defined]
from typing import Any, ClassVar

from jsonschema import Draft202012Validator

from silo.agent import AgentInput, RunLimitError

__all__ = ["RandomAgent", "SchemaSampler", "Unsatisfiable"]

ID_PATTERN = re.compile(r"^[A-Z]+-\d+$")
_ALPHABET = string.ascii_letters + string.digits + " -_.@:/"
_CATEGORIES = {
    "CATEGORY_DIGIT": string.digits,
    "CATEGORY_NOT_DIGIT": string.ascii_letters + " -_",
    "CATEGORY_WORD": string.ascii_letters + string.digits + "_",
    "CATEGORY_NOT_WORD": " -.:/",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": string.ascii_letters + string.digits,
}
_WORDS = ("acme", "globex", "initech", "north", "renewal", "q3", "pilot", "urgent", "note", "x")
_MAX_DEPTH = 8
_ATTEMPTS = 25


class Unsatisfiable(Exception):
    """No value could be drawn for a schema (unsupported keyword or contradictory bounds)."""


class SchemaSampler:
    """Draws JSON values from JSON Schemas with ``rng``; ``ids`` are known record ids."""

    def __init__(self, rng: Random, ids: dict[str, None] | None = None) -> None:
        self.rng = rng
        self.ids = ids if ids is not None else {}
        self._validators: dict[int, Draft202012Validator] = {}

    def sample_valid(self, schema: Any) -> Any:
        """A value valid against ``schema`` (checked with jsonschema), or :class:`Unsatisfiable`."""
        key = id(schema)
        if key not in self._validators:
            self._validators[key] = Draft202012Validator(
                schema, format_checker=Draft202012Validator.FORMAT_CHECKER
            )
        for _ in range(_ATTEMPTS):
            try:
                value = self.value(schema, root=schema)
            except Unsatisfiable:
                continue
            if self._validators[key].is_valid(value):
                return value
        raise Unsatisfiable("no valid value found")

    def value(self, schema: Any, root: Any, name: str = "", depth: int = 0) -> Any:
        if depth > _MAX_DEPTH * 2 or schema is False:
            raise Unsatisfiable("schema too deep or false")
        if schema is True or not isinstance(schema, dict):
            schema = {}
        schema = self._flatten(schema, root)
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
                        merged = _merge(base, self._flatten(branch, root))
                        return self.value(merged, root, name, depth + 1)
                    except Unsatisfiable:
                        continue
                raise Unsatisfiable(f"no satisfiable {key} branch")
        kind = _pick_type(schema, self.rng)
        method = getattr(self, f"_{kind}", None)
        if method is None:
            raise Unsatisfiable(f"unsupported type {kind!r}")
        return method(schema, root, name, depth)

    def _flatten(self, schema: dict[str, Any], root: Any) -> dict[str, Any]:
        """Resolve a local ``$ref`` and merge ``allOf`` parts into one schema."""
        for _ in range(32):
            if "$ref" in schema:
                rest = {k: v for k, v in schema.items() if k != "$ref"}
                schema = _merge(_resolve(root, schema["$ref"]), rest)
            elif "allOf" in schema:
                parts = [self._flatten(p, root) for p in schema["allOf"] if isinstance(p, dict)]
                merged = {k: v for k, v in schema.items() if k != "allOf"}
                for part in parts:
                    merged = _merge(merged, part)
                schema = merged
            else:
                return schema
        raise Unsatisfiable("$ref cycle")

    def _null(self, schema: dict[str, Any], root: Any, name: str, depth: int) -> None:
        return None

    def _boolean(self, schema: dict[str, Any], root: Any, name: str, depth: int) -> bool:
        return self.rng.random() < 0.5

    def _integer(self, schema: dict[str, Any], root: Any, name: str, depth: int) -> int:
        lo, hi = _bounds(schema, integer=True)
        step = schema.get("multipleOf", 1)
        if not isinstance(step, int) or step <= 0:
            step = 1
        first, last = math.ceil(lo / step), math.floor(hi / step)
        if first > last:
            raise Unsatisfiable("empty integer range")
        k = self.rng.choice((first, last, self.rng.randint(first, last)))
        return k * step

    def _number(self, schema: dict[str, Any], root: Any, name: str, depth: int) -> float | int:
        if self.rng.random() < 0.3 or "multipleOf" in schema:
            return self._integer(schema, root, name, depth)
        lo, hi = _bounds(schema, integer=False)
        return round(self.rng.uniform(lo, hi), 2)

    def _string(self, schema: dict[str, Any], root: Any, name: str, depth: int) -> str:
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
                candidate = fitting[0] if use_real else self._from_regex(pattern)
            if candidate is None:
                candidate = self._word(schema)
            if _string_ok(candidate, schema):
                return candidate
        raise Unsatisfiable("no string meets the constraints")

    def _formatted(self, fmt: Any) -> str | None:
        day = dt.date(2024, 1, 1) + dt.timedelta(days=self.rng.randint(0, 1500))
        if fmt == "date":
            return day.isoformat()
        if fmt == "date-time":
            return (
                f"{day.isoformat()}T{self.rng.randint(0, 23):02d}:{self.rng.randint(0, 59):02d}:00Z"
            )
        if fmt == "email":
            return f"{self.rng.choice(_WORDS)}{self.rng.randint(1, 99)}@example.com"
        if fmt == "uuid":
            return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        if fmt in ("uri", "url"):
            return f"https://example.com/{self.rng.choice(_WORDS)}"
        return None

    def _word(self, schema: dict[str, Any]) -> str:
        lo = schema.get("minLength", 0)
        hi = schema.get("maxLength", max(lo, 16))
        text = " ".join(self.rng.choice(_WORDS) for _ in range(self.rng.randint(1, 3)))
        if self.rng.random() < 0.2:
            text = "".join(self.rng.choice(_ALPHABET) for _ in range(self.rng.randint(lo, hi)))
        text = text[:hi]
        while len(text) < lo:
            text += self.rng.choice(string.ascii_lowercase)
        return text

    def _from_regex(self, pattern: str) -> str:
        try:
            parsed = sre.parse(pattern)
        except re.error as exc:
            raise Unsatisfiable(f"bad pattern: {exc}") from None
        return self._regex_items(list(parsed))

    def _regex_items(self, items: list[tuple[Any, Any]]) -> str:
        out: list[str] = []
        for op, av in items:
            kind = str(op)
            if kind == "LITERAL":
                out.append(chr(av))
            elif kind == "NOT_LITERAL":
                out.append(self.rng.choice([c for c in _ALPHABET if ord(c) != av]))
            elif kind == "ANY":
                out.append(self.rng.choice(string.ascii_letters + string.digits))
            elif kind == "IN":
                out.append(self._regex_set(av))
            elif kind == "BRANCH":
                out.append(self._regex_items(list(self.rng.choice(av[1]))))
            elif kind == "SUBPATTERN":
                out.append(self._regex_items(list(av[-1])))
            elif kind in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                low, high, sub = av
                high = min(high, low + 3)
                out.extend(self._regex_items(list(sub)) for _ in range(self.rng.randint(low, high)))
            elif kind != "AT":
                raise Unsatisfiable(f"unsupported regex construct {kind}")
        return "".join(out)

    def _regex_set(self, items: list[tuple[Any, Any]]) -> str:
        negate = bool(items) and str(items[0][0]) == "NEGATE"
        if negate:
            choices = [c for c in _ALPHABET if not _in_set(c, items[1:])]
            if not choices:
                raise Unsatisfiable("negated class excludes every character")
            return self.rng.choice(choices)
        op, av = self.rng.choice(items)
        kind = str(op)
        if kind == "LITERAL":
            return chr(av)
        if kind == "RANGE":
            return chr(self.rng.randint(av[0], av[1]))
        if kind == "CATEGORY" and str(av) in _CATEGORIES:
            return self.rng.choice(_CATEGORIES[str(av)])
        raise Unsatisfiable(f"unsupported regex class item {kind}")

    def _array(self, schema: dict[str, Any], root: Any, name: str, depth: int) -> list[Any]:
        prefix = list(schema.get("prefixItems", []))
        lo = max(schema.get("minItems", 0), 0)
        hi = schema.get("maxItems", lo + 3)
        if lo > hi:
            raise Unsatisfiable("minItems > maxItems")
        count = lo if depth >= _MAX_DEPTH else self.rng.randint(lo, hi)
        item_name = name[:-1] if name.endswith("Ids") else ""
        items: list[Any] = []
        seen: set[str] = set()
        for index in range(count):
            sub = prefix[index] if index < len(prefix) else schema.get("items", {})
            for _ in range(10 if schema.get("uniqueItems") else 1):
                item = self.value(sub, root, item_name, depth + 1)
                key = repr(item)
                if key not in seen:
                    break
            seen.add(key)
            items.append(item)
        return items

    def _object(self, schema: dict[str, Any], root: Any, name: str, depth: int) -> dict[str, Any]:
        props: dict[str, Any] = schema.get("properties", {})
        required = list(schema.get("required", []))
        out: dict[str, Any] = {}
        for key, sub in props.items():
            if key in required or (depth < _MAX_DEPTH and self.rng.random() < 0.5):
                out[key] = self.value(sub, root, key, depth + 1)
        extra = schema.get("additionalProperties", {})
        for key in required:
            if key not in out:
                out[key] = self.value(extra, root, key, depth + 1)
        return out


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = {**base, **extra}
    if "properties" in base and "properties" in extra:
        merged["properties"] = {**base["properties"], **extra["properties"]}
    if "required" in base and "required" in extra:
        merged["required"] = list(dict.fromkeys([*base["required"], *extra["required"]]))
    return merged


def _resolve(root: Any, ref: str) -> dict[str, Any]:
    if not ref.startswith("#"):
        raise Unsatisfiable(f"only local $ref is supported, not {ref!r}")
    node = root
    for part in filter(None, ref[1:].split("/")):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            raise Unsatisfiable(f"unresolvable $ref {ref!r}")
        node = node[part]
    if not isinstance(node, dict):
        raise Unsatisfiable(f"$ref {ref!r} is not a schema object")
    return node


def _pick_type(schema: dict[str, Any], rng: Random) -> str:
    declared = schema.get("type")
    if isinstance(declared, str):
        return declared
    if isinstance(declared, list) and declared:
        non_null = [t for t in declared if t != "null"]
        return rng.choice(non_null) if non_null and rng.random() < 0.9 else rng.choice(declared)
    if {"properties", "required", "additionalProperties"} & schema.keys():
        return "object"
    if {"items", "prefixItems", "minItems", "maxItems"} & schema.keys():
        return "array"
    if {"pattern", "minLength", "maxLength", "format"} & schema.keys():
        return "string"
    if {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} & schema.keys():
        return "number"
    return rng.choice(("string", "integer", "boolean"))


def _bounds(schema: dict[str, Any], *, integer: bool) -> tuple[float, float]:
    lo, hi = schema.get("minimum"), schema.get("maximum")
    ex_lo, ex_hi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    nudge = 1 if integer else 0.01
    if isinstance(ex_lo, (int, float)) and not isinstance(ex_lo, bool):
        lo = max(lo, ex_lo + nudge) if lo is not None else ex_lo + nudge
    if isinstance(ex_hi, (int, float)) and not isinstance(ex_hi, bool):
        hi = min(hi, ex_hi - nudge) if hi is not None else ex_hi - nudge
    if lo is None:
        lo = -10 if hi is None else hi - 100
    if hi is None:
        hi = lo + 100
    return lo, hi


def _string_ok(text: str, schema: dict[str, Any]) -> bool:
    if not schema.get("minLength", 0) <= len(text) <= schema.get("maxLength", len(text)):
        return False
    pattern = schema.get("pattern")
    return pattern is None or re.search(pattern, text) is not None


def _in_set(char: str, items: list[tuple[Any, Any]]) -> bool:
    for op, av in items:
        kind = str(op)
        if (kind == "LITERAL" and ord(char) == av) or (
            kind == "RANGE" and av[0] <= ord(char) <= av[1]
        ):
            return True
        if kind == "CATEGORY" and char in _CATEGORIES.get(str(av), ""):
            return True
    return False


def _harvest_ids(value: Any, ids: dict[str, None]) -> None:
    if isinstance(value, str):
        if ID_PATTERN.match(value):
            ids.setdefault(value, None)
    elif isinstance(value, dict):
        for item in value.values():
            _harvest_ids(item, ids)
    elif isinstance(value, list):
        for item in value:
            _harvest_ids(item, ids)


class RandomAgent:
    """Random schema-valid tool calls; see the module docstring for the contract."""

    deterministic: ClassVar[bool] = True

    def __init__(self, seed: int | None = 0, calls: int = 20) -> None:
        self.seed = seed
        self.calls = calls

    def __call__(self, inp: AgentInput) -> dict[str, Any]:
        seed = inp.seed if self.seed is None else self.seed
        rng = Random(seed)
        ids: dict[str, None] = {}
        sampler = SchemaSampler(rng, ids)
        usable = [spec for spec in inp.tools if isinstance(spec.get("name"), str)]
        skipped: list[str] = []
        codes: Counter[str] = Counter()
        made = ok = 0
        stopped = ""
        while made < self.calls and usable and not inp.signal.aborted:
            spec = rng.choice(usable)
            try:
                arguments = sampler.sample_valid(spec.get("inputSchema") or {"type": "object"})
            except Unsatisfiable:
                usable.remove(spec)
                skipped.append(spec["name"])
                continue
            try:
                result = inp.call_tool(spec["name"], arguments)
            except RunLimitError as exc:
                stopped = exc.reason
                break
            made += 1
            output = result.get("output")
            if result.get("isError"):
                code = output.get("code") if isinstance(output, dict) else None
                codes[str(code or "error")] += 1
            else:
                ok += 1
                _harvest_ids(output, ids)
        if inp.signal.aborted and not stopped:
            stopped = inp.signal.reason or "cancelled"
        summary = f"random agent (seed {seed}): {made} calls, {ok} ok, {made - ok} errors"
        if codes:
            summary += " (" + ", ".join(f"{c} x{n}" for c, n in sorted(codes.items())) + ")"
        if skipped:
            summary += f"; skipped (schema not satisfiable): {', '.join(sorted(skipped))}"
        if stopped:
            summary += f"; stopped: {stopped}"
        return {"output": summary}
