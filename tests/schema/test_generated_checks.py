"""The generated tier never accepts what jsonschema rejects, and takes valid input quickly."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from silo.agents.sampler import SchemaSampler, Unsatisfiable
from silo.loading.environment import load_environment
from silo.schema.codegen import compile_check
from silo.schema.validator import InputValidator

REPO = Path(__file__).resolve().parents[2]

ODD: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.0,
    0.5,
    2**70,
    float("nan"),
    float("inf"),
    "",
    "x",
    "USR-007",
    "USR-007\n",
    "USR-\u0660\u0661",
    "USR-\U0001d7d8\U0001d7d9",
    "USR-\u00b2\u00b3",
    "a" * 300,
    [],
    [1, "a"],
    {},
    {"id": "C-1"},
    (1, 2),
]


def _bent(value: Any, rng: random.Random) -> list[Any]:
    """Valid input bent in the ways agents get it wrong."""
    out: list[Any] = [value, *ODD]
    if isinstance(value, dict):
        for key in value:
            for bad in ODD:
                out.append({**value, key: bad})
            out.append({k: v for k, v in value.items() if k != key})
        out.append({**value, "unexpected": rng.random()})
    return out


def test_generated_checks_agree_with_jsonschema_on_the_crm_tools() -> None:
    env = load_environment("crm", REPO)
    rng = random.Random(5)
    sampler = SchemaSampler(rng, {"USR-001": None, "OPP-005": None})
    checked = 0
    for tool in env.pool.tools():
        schema = dict(tool.input_schema)
        check = compile_check(schema)
        assert check is not None, tool.name  # every CRM schema is in the generated subset
        reference = Draft202012Validator(schema)
        for _ in range(20):
            try:
                valid = sampler.sample_valid(schema)
            except Unsatisfiable:
                continue
            assert check(valid), (tool.name, valid)  # valid input takes the quick path
            for value in _bent(valid, rng):
                if check(value):  # never more lenient than the authority
                    assert reference.is_valid(value), (tool.name, value)
                checked += 1
    assert checked > 5000


SCHEMAS: list[dict[str, Any]] = [
    {"type": "string", "minLength": 2, "maxLength": 3},
    {"type": "string", "enum": ["open", "won"]},
    {"type": "string", "pattern": "^[a-z]+$"},
    {"type": "string", "pattern": r"^USR-\d{2,6}$"},
    {"type": "string", "pattern": r"^X[0-9]*$"},
    {"type": "string", "pattern": r"^\d{3}$"},
    {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
    {"type": "integer", "minimum": 1, "maximum": 500},
    {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5},
    {"type": "boolean"},
    {"type": "null"},
    {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2},
    {"type": "array"},
    {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": True, "c": False},
        "required": ["a"],
        "additionalProperties": False,
    },
    {"type": "object", "additionalProperties": {"type": "integer"}},
    {"type": "object", "properties": {"n": {"type": "number"}}},
    {
        "type": "object",
        "properties": {
            "nested": {
                "type": "object",
                "properties": {"deep": {"type": "array", "items": {"type": "null"}}},
                "required": ["deep"],
            }
        },
    },
    {
        "type": "object",
        "properties": {'it\'s "odd"\n\\': {"type": "integer"}},
        "required": ['it\'s "odd"\n\\'],
    },
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: str(s)[:40])
def test_generated_checks_are_never_more_lenient(schema: dict[str, Any]) -> None:
    check = compile_check(schema)
    assert check is not None
    reference = Draft202012Validator(schema)
    values = [*ODD, *[{"a": v} for v in ODD], *[[v] for v in ODD], *[{"n": v} for v in ODD]]
    values += [{'it\'s "odd"\n\\': 3}, {"nested": {"deep": [None]}}, {"a": "x", "b": 1}]
    values += ["2026-03-16", "2026-3-16", "USR-1234567", "X", "X12", "Xa", "123", "1234"]
    for value in values:
        if check(value):
            assert reference.is_valid(value), value
    for value in values:  # and what it is not sure about, jsonschema decides
        verdict = InputValidator(schema)
        assert (verdict.problems(value) is None) == reference.is_valid(value), value


def test_id_patterns_match_exactly_what_the_regex_matches() -> None:
    patterns = [r"^USR-\d{2,6}$", r"^OPP-\d+$", r"^X\d*$", r"^\d{3}$", r"^A_[0-9]{2,}$"]
    patterns += [r"^B-\d$", r"^C\d{0,2}$", r"^[0-9]+$", r"^D\d{2,}$", r"^E\d{0}$", r"^\d*$"]
    alphabet = ["0", "7", "\u0663", "\U0001d7d8", "\u00b2", "\u2460", "\n", "a", "-", "_"]
    rng = random.Random(9)
    for pattern in patterns:
        check = compile_check({"type": "string", "pattern": pattern})
        assert check is not None
        prefix = re.match(r"\^([A-Za-z0-9_-]*)", pattern).group(1)  # type: ignore[union-attr]
        for _ in range(5000):
            tail = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
            value = (prefix if rng.random() < 0.8 else "") + tail
            matches = re.search(pattern, value) is not None
            if value.endswith("\n"):  # "$" before a final newline: "not sure", never "valid"
                assert not check(value) or matches
            else:
                assert check(value) is matches, (pattern, value)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": ["string", "null"]},
        {"type": "string", "format": "date"},
        {"type": "string", "const": "x"},
        {"type": "integer", "multipleOf": 2},
        {"type": "array", "uniqueItems": True},
        {"anyOf": [{"type": "string"}]},
        {"$ref": "#/$defs/x", "$defs": {"x": {"type": "string"}}},
        {"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}},
        {"type": "string", "enum": ["a", 1]},
        {"type": "integer", "minimum": True},
        {"type": "string", "maxLength": -1},
        {"properties": {"a": {"type": "string"}}},
    ],
)
def test_schemas_outside_the_subset_are_left_to_jsonschema(schema: Any) -> None:
    assert compile_check(schema) is None


def test_deep_schemas_are_left_to_jsonschema() -> None:
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(40):
        schema = {"type": "array", "items": schema}
    assert compile_check(schema) is None


def test_the_generated_check_decides_valid_input_from_the_first_call() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer", "maximum": 3}},
        "required": ["n"],
        "additionalProperties": False,
    }
    validator = InputValidator(schema)
    assert all(validator.problems({"n": n}) is None for n in range(4))
    assert validator._full is None  # valid input never reached jsonschema
    verdicts = [validator.problems({"n": i % 5}) for i in range(10)]
    assert verdicts[:5] == verdicts[5:]
    assert verdicts[4] == ['"n": 4 is greater than the maximum of 3']
    assert validator.quick({"n": 3}) and not validator.quick({"n": 4})
    assert not validator.quick({"n": True}) and validator.problems({"n": True})


def test_a_schema_outside_the_subset_gets_the_same_verdicts_from_jsonschema() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": ["integer"], "maximum": 3}},  # a list of types
        "required": ["n"],
        "additionalProperties": False,
    }
    validator = InputValidator(schema)
    verdicts = [validator.problems({"n": i % 5}) for i in range(10)]
    assert verdicts[:5] == verdicts[5:]
    assert verdicts[:4] == [None] * 4
    assert verdicts[4] == ['"n": 4 is greater than the maximum of 3']
