"""silo.jsonio.compact_encoder: one-line JSON is the standard encoder's text, byte for byte.

The trace's events, ``compact`` and ``canonical`` go through orjson where it provably writes the
same text; every value orjson treats differently must still get json's own text or error.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from silo.jsonio import canonical, compact, compact_encoder
from silo.rollout.trace import event_json
from tests.json_values import TRICKY, random_value, same_text_or_error

SMALL_FLOATS = [1e-05, 2.5e-07, 1e-07, 0.0001, 0.00012, 123e-20, -3e-5, 5e-324, 1e16, 1e22]
KEYS = ["b", "a", "B", "é", "z", "😀", "ä", "\x7f", "a b", ""]

ENCODERS: dict[str, tuple[Callable[[Any], str], Callable[[Any], str]]] = {
    "event_json": (
        event_json,
        lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":"), default=repr),
    ),
    "compact": (
        compact,
        lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":"), allow_nan=False),
    ),
    "canonical": (
        canonical,
        lambda v: json.dumps(
            v,
            ensure_ascii=False,
            separators=(",", ":"),
            sort_keys=True,
            allow_nan=False,
            default=repr,
        ),  # fmt: skip
    ),
}


def _same_as_json(name: str, value: Any) -> None:
    same_text_or_error(*ENCODERS[name], value)


CASES = TRICKY + SMALL_FLOATS + [{k: i for i, k in enumerate(KEYS)}]


@pytest.mark.parametrize("name", sorted(ENCODERS))
@pytest.mark.parametrize(
    "value", CASES, ids=[f"{i}-{type(v).__name__}" for i, v in enumerate(CASES)]
)
def test_every_value_orjson_treats_differently_gets_jsons_text_or_error(
    name: str, value: Any
) -> None:
    _same_as_json(name, value)


def _with_keys(rng: random.Random, value: Any) -> Any:
    """``value`` with its dict keys drawn from ``KEYS``: sort order across scripts and planes."""
    if isinstance(value, dict):
        return {rng.choice(KEYS) + k: _with_keys(rng, v) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_keys(rng, v) for v in value]
    return value


@pytest.mark.parametrize("name", sorted(ENCODERS))
def test_random_json_values_get_exactly_jsons_text(name: str) -> None:
    rng = random.Random(7)
    for _ in range(2000):
        _same_as_json(name, _with_keys(rng, random_value(rng)))


def test_an_encoder_orjson_cannot_mimic_keeps_its_own_text() -> None:
    ascii_only = compact_encoder(json.JSONEncoder(separators=(",", ":")))
    spaced = compact_encoder(json.JSONEncoder(ensure_ascii=False))
    assert ascii_only({"é": 1}) == '{"\\u00e9":1}'
    assert spaced({"é": [1, 2]}) == '{"é": [1, 2]}'
