"""Values the engine tests copy: every way orjson is more lenient or stricter than json.

``TRICKY`` holds them; ``random_value`` draws plain JSON values; ``same`` compares with types all the way down; ``containers`` lists the
ids of a value's dicts and lists (a copy must share none with its original).
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import enum
import math
import random
import uuid
from decimal import Decimal
from typing import Any

import orjson

from silo.world.tracked import TrackedDict, TrackedList


class Color(enum.Enum):
    RED = "red"


class Level(enum.Enum):
    LOW = 1


class Size(enum.IntEnum):
    S = 1


class Tone(enum.StrEnum):
    DARK = "dark"


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Name(str):
    pass


class Count(int):
    pass


class Ratio(float):
    pass


Pair = collections.namedtuple("Pair", "a b")


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _circular() -> Any:
    loop: list[Any] = []
    loop.append(loop)
    return loop


def tracked() -> Any:
    inner = TrackedList([1, "two", {"three": 3.0}])
    return TrackedDict({"id": "R1", "tags": inner, "n": None})


# Every way orjson is more lenient (NaN, datetime, UUID, Enum, dataclass, Fragment, tuple) or
# stricter (non-str keys, huge ints, lone surrogates, deep nesting) than the standard library.
TRICKY: list[Any] = [
    float("nan"),
    {"x": float("nan")},
    [1.0, float("inf")],
    {"deep": [{"x": -float("inf")}]},
    datetime.datetime(2026, 3, 16, 12, 30),
    {"when": datetime.date(2026, 3, 16)},
    [datetime.time(9, 15)],
    uuid.UUID("12345678-1234-5678-1234-567812345678"),
    {"id": uuid.UUID(int=7)},
    Color.RED,
    {"level": Level.LOW},
    [Size.S, Tone.DARK],
    Point(1, 2),
    {"point": Point(3, 4)},
    orjson.Fragment(b'{"a":1}'),
    {"raw": orjson.Fragment(b"[]")},
    (1, 2),
    {"t": (1, [2, (3,)])},
    Pair(1, "b"),
    {1: "int key"},
    {1.5: "float key"},
    {True: "bool key", None: "none key"},
    {"a": 1, 2: "mixed keys"},
    {(1, 2): "tuple key"},
    2**64,
    -(2**63) - 1,
    [2**63 - 1, -(2**63), 2**64 - 1],
    {"big": 10**30},
    "\ud800",
    {"\udc00": 1},
    ["ok", "\udfff"],
    nested(254),
    nested(300),
    _circular(),
    b"bytes",
    {1, 2},
    Decimal("1.5"),
    object(),
    Name("sub"),
    {Name("key"): Count(3), "r": Ratio(0.5)},
    True,
    None,
    -0.0,
    [1e16, 1.5e300, 5e-324, 0.1, 100.0],
    'caf\u00e9 \u2028 \U0001f600 \x00\x1f\x7f "quoted" \\',
    {"": [], "e": {}},
    tracked(),
]


def same(a: Any, b: Any) -> None:
    """Equal, with the same types all the way down (a list is not a tuple, str is not Name)."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            same(a[key], b[key])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            same(x, y)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert a == b


def containers(value: Any, found: set[int] | None = None) -> set[int]:
    found = set() if found is None else found
    if isinstance(value, (dict, list)) and id(value) not in found:  # cycles end here
        found.add(id(value))
        for item in value.values() if isinstance(value, dict) else value:
            containers(item, found)
    return found


def random_value(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value: floats of every magnitude, escapes, nesting up to depth 4."""
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
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {f"k{i}": random_value(rng, depth + 1) for i in range(rng.randint(0, 4))}


def same_text_or_error(ours: Any, reference: Any, value: Any) -> None:
    """``ours(value)`` gives ``reference(value)``'s text, or raises the same type of error."""
    import pytest

    try:
        expected = reference(value)
    except Exception as exc:
        with pytest.raises(type(exc)):
            ours(value)
        return
    assert ours(value) == expected, value
