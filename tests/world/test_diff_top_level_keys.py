"""state-diff.json on top-level keys: a key added, removed or changed with a scalar value.

The expected documents are written out by hand (no diff code computes them), for the journaled
world, the deep-copied fallback and the plain ``diff_states`` algorithm.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

from silo.world.diff import diff_states
from silo.world.pool import World


def _seed() -> dict[str, Any]:
    return {"now": "2026-01-01", "rows": {"A": {"id": "A", "v": 1}}, "gone": 3}


def _mutate(state: Any) -> None:
    state["flag"] = True  # a new top-level key holding a scalar
    state["now"] = "2026-01-02"
    del state["gone"]


EXPECTED = {
    "scalars": [
        {"field": "now", "from": "2026-01-01", "to": "2026-01-02", "change": "changed"},
        {"field": "flag", "from": None, "to": True, "change": "added"},
        {"field": "gone", "from": 3, "to": None, "change": "removed"},
    ],
    "collections": {},
}


def test_plain_diff_reports_added_changed_and_removed_scalar_keys() -> None:
    after = _seed()
    _mutate(after)
    assert diff_states(_seed(), after) == EXPECTED


@pytest.mark.parametrize("tracked", [True, False])
def test_world_diff_reports_a_new_scalar_key(tracked: bool) -> None:
    # A dict subclass is not journaled: the world falls back to a deep-copied snapshot.
    world = World(_seed if tracked else (lambda: OrderedDict(_seed())), lambda state: [])
    assert world.tracked is tracked
    world.begin()
    _mutate(world.state)
    assert world.diff() == EXPECTED


def test_a_new_key_with_a_zero_or_empty_value_is_still_added() -> None:
    for value in (0, "", None, False):
        diff = diff_states({}, {"k": value})
        assert diff == {
            "scalars": [{"field": "k", "from": None, "to": value, "change": "added"}],
            "collections": {},
        }


def test_a_new_key_holding_rows_is_one_added_entry_and_a_kept_one_lists_rows() -> None:
    # Only a key that is a collection on both sides is diffed row by row (the documented shape).
    rows = [{"id": "X-1"}, {"id": "X-2"}]
    assert diff_states({}, {"items": rows}) == {
        "scalars": [{"field": "items", "from": None, "to": rows, "change": "added"}],
        "collections": {},
    }
    assert diff_states({"items": rows[:1]}, {"items": rows}) == {
        "scalars": [],
        "collections": {"items": {"added": ["X-2"], "removed": [], "changed": []}},
    }
