"""silo.jsonio.pretty: the text of every JSON artifact is json.dumps(indent=2)'s, byte for byte."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from silo.jsonio import pretty
from tests.json_values import TRICKY

SMALL_FLOATS = [1e-05, 2.5e-07, 1e-07, 0.0001, 0.00012, 123e-20, -3e-5, 5e-324]


def _reference(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _same_as_json(value: Any) -> None:
    try:
        expected = _reference(value)
    except Exception as exc:
        with pytest.raises(type(exc)):
            pretty(value)
        return
    assert pretty(value) == expected


CASES = TRICKY + SMALL_FLOATS


# Ids by position and type: a repr holding an address differs between xdist workers.
@pytest.mark.parametrize(
    "value", CASES, ids=[f"{i}-{type(v).__name__}" for i, v in enumerate(CASES)]
)
def test_every_value_orjson_treats_differently_gets_jsons_text_or_error(value: Any) -> None:
    _same_as_json(value)


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.randint(-(10**20), 10**20)
    if kind == 2:  # floats of every magnitude: where the two libraries' formats part
        return rng.choice([-1, 1]) * rng.random() * 10.0 ** rng.randint(-12, 24)
    if kind == 3:
        return "".join(rng.choice('ab é😀"\\\n\x01e-0.') for _ in range(rng.randint(0, 8)))
    if kind in (4, 5):
        return rng.choice(["", "x", "OPP-007", "2026-03-16", "1e-5 in text"])
    if kind == 6:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {f"k{i}": _random_value(rng, depth + 1) for i in range(rng.randint(0, 4))}


def test_random_json_values_get_exactly_jsons_text() -> None:
    rng = random.Random(12)
    for _ in range(3000):
        value = _random_value(rng)
        assert pretty(value) == _reference(value), value
