"""silo.jsonio.pretty: the text of every JSON artifact is json.dumps(indent=2)'s, byte for byte."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from silo.jsonio import pretty
from tests.json_values import TRICKY, random_value, same_text_or_error

SMALL_FLOATS = [1e-05, 2.5e-07, 1e-07, 0.0001, 0.00012, 123e-20, -3e-5, 5e-324]


def _reference(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _same_as_json(value: Any) -> None:
    same_text_or_error(pretty, _reference, value)


CASES = TRICKY + SMALL_FLOATS


# Ids by position and type: a repr holding an address differs between xdist workers.
@pytest.mark.parametrize(
    "value", CASES, ids=[f"{i}-{type(v).__name__}" for i, v in enumerate(CASES)]
)
def test_every_value_orjson_treats_differently_gets_jsons_text_or_error(value: Any) -> None:
    _same_as_json(value)


def test_random_json_values_get_exactly_jsons_text() -> None:
    rng = random.Random(12)
    for _ in range(3000):
        value = random_value(rng)
        assert pretty(value) == _reference(value), value
