"""Input validation: fast path agrees with jsonschema; reports list every problem."""

from __future__ import annotations

from typing import Any

import pytest

from silo.schema.codegen import compile_check
from silo.schema.validator import InputValidator, ValidatorCache, validator_for

SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "pattern": "^C-\\d+$"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 500},
        "status": {"type": "string", "enum": ["open", "won"]},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
        "nested": {
            "type": "object",
            "properties": {"a": {"type": "number"}},
            "required": ["a"],
            "additionalProperties": False,
        },
    },
    "required": ["id"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    "value",
    [
        {"id": "C-1"},
        {"id": "C-1", "limit": 500, "status": "won", "tags": ["x"], "nested": {"a": 1.5}},
    ],
)
def test_valid_input_has_no_problems(value: dict[str, Any]) -> None:
    assert InputValidator(SCHEMA).problems(value) is None


def test_every_problem_is_listed_in_order() -> None:
    problems = InputValidator(SCHEMA).problems(
        {"limit": 0, "status": "lost", "tags": [1, "a", "b"], "nested": {}, "x": 1}
    )
    assert problems[:2] == ['"nested.a" is required', '"id" is required'] or problems[:2] == [
        '"id" is required',
        '"nested.a" is required',
    ]
    assert '"x" is not a parameter; expected one of: id, limit, status, tags, nested' in problems
    assert any(p.startswith('"limit":') for p in problems)
    assert any(p.startswith('"status":') for p in problems)
    assert any(p.startswith('"tags[0]":') for p in problems)
    assert any(p.startswith('"tags":') for p in problems)  # too many items


def test_2020_12_keywords_use_the_full_validator() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/n"}},
        "$defs": {"n": {"type": "integer"}},
        "dependentRequired": {"a": ["b"]},
    }
    assert compile_check(schema) is None  # outside the generated subset: jsonschema alone
    validator = InputValidator(schema)
    assert validator.problems({"a": 1, "b": 2}) is None
    assert validator.problems({"a": "x"}) == [
        "\"a\": 'x' is not of type 'integer'",
        "'b' is a dependency of 'a'",
    ]


def test_fast_path_does_not_fill_defaults() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "default": 5}}}
    value: dict[str, Any] = {}
    assert InputValidator(schema).problems(value) is None
    assert value == {}


def test_validators_are_cached_per_schema() -> None:
    assert validator_for(dict(SCHEMA)) is validator_for(dict(SCHEMA))


def test_the_cache_finds_a_schema_by_identity_and_equal_schemas_share_a_validator() -> None:
    cache = ValidatorCache(max_schemas=2)
    first, twin = dict(SCHEMA), dict(SCHEMA)
    found = cache.get(first)
    assert cache.get(first) is found and cache.get(twin) is found
    other = cache.get({"type": "object"})
    assert other is not found and other.problems({}) is None
    assert cache.get({"type": "string"}).problems(1) == ["1 is not of type 'string'"]
    # Past max_schemas a table starts again: the same answers, compiled anew.
    assert cache.get(first).problems({"id": "C-1"}) is None
