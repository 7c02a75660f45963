"""state-changes.json edges: equal values in new objects, a field that changes type.

Expected documents are written out by hand.
"""

from __future__ import annotations

from typing import Any

from silo.world.changes import state_changes
from silo.world.diff import diff_states


def _changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    return state_changes(before, after, diff_states(before, after))


def test_a_top_level_scalar_set_to_an_equal_value_is_no_change() -> None:
    before = {"now": "".join(["2026-", "01-01"]), "n": 10**20}
    after = {"now": "".join(["2026-01", "-01"]), "n": 10**20 + 0}
    assert before["now"] is not after["now"]
    assert _changes(before, after) == {"changes": [], "omittedChanges": 0}


def test_a_top_level_scalar_that_changes_is_listed_with_both_values() -> None:
    assert _changes({"now": "a"}, {"now": "b", "new": 0}) == {
        "changes": [
            {"collection": None, "key": "now", "change": "changed",
             "fields": [{"path": "", "before": "a", "after": "b"}]},
            {"collection": None, "key": "new", "change": "added",
             "fields": [{"path": "", "before": None, "after": 0}]},
        ],
        "omittedChanges": 0,
    }  # fmt: skip


def test_a_field_that_turns_from_an_object_into_a_scalar_is_one_leaf() -> None:
    before = {"rows": {"R-1": {"id": "R-1", "meta": {"x": 1}, "keep": True}}}
    after = {"rows": {"R-1": {"id": "R-1", "meta": 5, "keep": True}}}
    assert _changes(before, after) == {
        "changes": [
            {"collection": "rows", "key": "R-1", "change": "changed",
             "fields": [{"path": "meta", "before": {"x": 1}, "after": 5}]},
        ],
        "omittedChanges": 0,
    }  # fmt: skip
