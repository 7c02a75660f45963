"""json_copy: orjson where it provably agrees, the standard library's copy and errors elsewhere.

The reference is what the engine did before orjson: ``compact`` (the standard library's
encoder) for the text, read back with ``exact_loads``; a value that is not JSON raises there.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from typing import Any

import pytest

from silo import jsonio as _jsonio
from silo.jsonio import compact, exact_loads, json_copy, plain_copy
from tests.json_values import TRICKY, containers, nested, same, tracked


def _reference(value: Any) -> tuple[str, Any] | type[BaseException]:
    """The text and copy the standard library gives, or the type of error it raises."""
    try:
        text = compact(value)
    except (TypeError, ValueError) as exc:
        return type(exc)
    return text, exact_loads(text)


def _check(value: Any) -> None:
    expected = _reference(value)
    if isinstance(expected, type):
        with pytest.raises(expected):
            json_copy(value)
        return
    text, copy = json_copy(value)
    same(copy, expected[1])
    assert text == expected[0]
    assert not containers(copy) & containers(value)  # no container is shared


@pytest.mark.parametrize("value", TRICKY, ids=lambda v: type(v).__name__)
def test_tricky_values_behave_as_the_standard_library_does(value: Any) -> None:
    _check(value)


@pytest.mark.parametrize("value", TRICKY, ids=lambda v: type(v).__name__)
def test_without_orjson_the_standard_library_does_it_all(
    value: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "orjson", None)  # ``import orjson`` fails
    assert _jsonio.orjson_functions() is None
    monkeypatch.setattr(_jsonio, "_ORJSON", None)
    _check(value)


def test_nesting_beyond_the_recursion_limit_raises_what_it_raised() -> None:
    value = nested(sys.getrecursionlimit() + 100)
    with pytest.raises(RecursionError):
        compact(value)
    with pytest.raises(RecursionError):
        json_copy(value)


def test_strings_are_written_exactly_as_the_standard_library_writes_them() -> None:
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    for start in range(0, len(every), 4096):
        chunk = every[start : start + 4096]
        _check({chunk: chunk, "list": [chunk]})


def test_the_copy_is_fresh_even_when_the_value_is_state() -> None:
    state = tracked()
    _, copy = json_copy(state)
    assert type(copy) is dict and type(copy["tags"]) is list
    copy["tags"].append("mine")
    assert state["tags"] == [1, "two", {"three": 3.0}]


def _random_json(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.randint(-(2**70), 2**70) if rng.random() < 0.1 else rng.randint(-999, 999)
    if kind == 2:  # every magnitude, including those orjson spells differently
        return rng.choice([-1, 1]) * 10.0 ** rng.uniform(-12, 20)
    if kind == 3:
        return round(rng.uniform(-1e6, 1e6), rng.randint(0, 6))
    if kind in (4, 5):
        return "".join(rng.choice('ab é\n"\\/\u2028\U0001f600') for _ in range(rng.randint(0, 6)))
    if kind == 6:
        return [_random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {f"k{i}": _random_json(rng, depth + 1) for i in range(rng.randint(0, 4))}


def test_random_json_copies_like_the_standard_library() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        value = _random_json(rng)
        expected = _reference(value)
        assert not isinstance(expected, type)
        text, copy = json_copy(value)
        same(copy, expected[1])
        # The text is the standard library's, but for how floats below 1e-4 are spelt
        # (0.00001 rather than 1e-05): the same JSON value either way.
        same(json.loads(text), expected[1])
        assert text == expected[0] or _only_small_floats_differ(text, expected[0])


def _only_small_floats_differ(ours: str, theirs: str) -> bool:
    import re

    number = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
    ours_parts, theirs_parts = number.split(ours), number.split(theirs)
    if ours_parts != theirs_parts:
        return False
    pairs = zip(number.findall(ours), number.findall(theirs), strict=True)
    return all(a == b or (float(a) == float(b) and abs(float(a)) < 1e-4) for a, b in pairs)


def test_plain_json_never_takes_the_slow_path(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow(value: Any) -> str:
        raise AssertionError("the standard library path ran")

    monkeypatch.setattr(_jsonio, "compact", slow)
    value = {"id": "OPP-007", "amount": 126000, "p": 0.25, "tags": ["a", None, True], "e": {}}
    text, copy = json_copy(value)
    assert copy == value and text == json.dumps(value, separators=(",", ":"))
    json_copy(tracked())


def test_compact_encoders_give_the_standard_librarys_text_and_errors() -> None:
    settings: dict[str, Any] = {"ensure_ascii": False, "separators": (",", ":"), "sort_keys": True}
    encode = _jsonio.compact_encoder(json.JSONEncoder(**settings, default=repr))
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference detected"):
        encode(loop)
    value = {"b": [1, 2.5, None], "a": {"é": object}}
    assert encode(value) == json.dumps(value, **settings, default=repr)

    class Upper(json.JSONEncoder):
        def encode(self, o: Any) -> str:
            return super().encode(o).upper()

    assert _jsonio.compact_encoder(Upper())("x") == '"X"'  # a subclass keeps its own encode
    with pytest.raises(ValueError, match="indent=None"):
        _jsonio.compact_encoder(json.JSONEncoder(indent=2))


@pytest.mark.parametrize(
    "value", TRICKY, ids=[f"{i}-{type(v).__name__}" for i, v in enumerate(TRICKY)]
)
def test_plain_copy_is_an_equal_copy_sharing_no_container(value: Any) -> None:
    try:
        expected = copy.deepcopy(value)
    except Exception as exc:
        with pytest.raises(type(exc)):
            plain_copy(value)
        return
    copied = plain_copy(value)
    assert not containers(copied) & containers(value)
    try:
        comparable = expected == value  # not NaN, nor an object without its own equality
    except RecursionError:  # a cycle: the container check above is what holds
        comparable = False
    if comparable:
        assert copied == value
    # deepcopy's type, or (where orjson copied) the plain JSON type it compares equal to
    assert type(copied) is type(expected) or type(copied) in (dict, list, str, int, float)
