"""Field-level changes (silo.world.changes): values, paths, duplicates, bounds, determinism."""

from __future__ import annotations

import copy
import json
from typing import Any

from silo.world.changes import MAX_CHANGES, MAX_VALUE_CHARS, state_changes
from silo.world.diff import diff_states
from silo.world.pool import WorldPool


def _fresh() -> dict[str, Any]:
    return {
        "now": "2026-03-16",
        "opportunities": {
            f"OPP-00{i}": {"id": f"OPP-00{i}", "stage": "open", "meta": {"tags": ["a", "b"]}}
            for i in range(1, 6)
        },
        "auditLog": [{"id": "AUD-0001", "action": "seed"}],
    }


def _changes_of(mutate: Any) -> dict[str, Any]:
    """Run ``mutate`` as a rollout on a journaled world and return its state-changes document."""
    pool = WorldPool(_fresh, lambda state: [])
    world = pool.acquire()
    world.begin()
    mutate(world.state)
    world.freeze()
    document = state_changes(world.initial(), world.state, world.diff())
    pool.release(world)
    return document


def _plain(before: Any, mutate: Any) -> dict[str, Any]:
    """The same document from two deep-copied plain states (the untracked fallback)."""
    after = copy.deepcopy(before)
    mutate(after)
    return state_changes(before, after, diff_states(before, after))


def test_a_value_only_change_names_the_field_and_both_values() -> None:
    def mutate(state: dict[str, Any]) -> None:
        state["opportunities"]["OPP-005"]["stage"] = "won"

    document = _changes_of(mutate)
    assert document == {
        "changes": [
            {
                "collection": "opportunities",
                "key": "OPP-005",
                "change": "changed",
                "fields": [{"path": "stage", "before": "open", "after": "won"}],
            }
        ],
        "omittedChanges": 0,
    }
    assert document == _plain(_fresh(), mutate)


def test_nested_paths_added_and_removed_rows_and_top_level_scalars() -> None:
    def mutate(state: dict[str, Any]) -> None:
        state["opportunities"]["OPP-001"]["meta"]["tags"][1] = "c"
        state["opportunities"]["OPP-002"]["meta"]["owner"] = "USR-1"
        del state["opportunities"]["OPP-003"]
        state["opportunities"]["OPP-009"] = {"id": "OPP-009", "stage": "open"}
        state["auditLog"].append({"id": "AUD-0002", "action": "moved"})
        state["now"] = "2026-03-17"

    document = _changes_of(mutate)
    found = {(c["collection"], c["key"], c["change"]): c["fields"] for c in document["changes"]}
    assert found[("opportunities", "OPP-001", "changed")] == [
        {"path": "meta.tags[1]", "before": "b", "after": "c"}
    ]
    assert found[("opportunities", "OPP-002", "changed")] == [
        {"path": "meta.owner", "before": None, "after": "USR-1"}
    ]
    assert {"path": "stage", "before": "open", "after": None} in found[
        ("opportunities", "OPP-003", "removed")
    ]
    assert {"path": "stage", "before": None, "after": "open"} in found[
        ("opportunities", "OPP-009", "added")
    ]
    assert found[("auditLog", "AUD-0002", "added")] == [
        {"path": "id", "before": None, "after": "AUD-0002"},
        {"path": "action", "before": None, "after": "moved"},
    ]
    assert found[(None, "now", "changed")] == [
        {"path": "", "before": "2026-03-16", "after": "2026-03-17"}
    ]
    assert document == _plain(_fresh(), mutate)


def test_duplicate_ids_in_an_array_are_reported_not_collapsed() -> None:
    def mutate(state: dict[str, Any]) -> None:
        state["auditLog"].append({"id": "AUD-0001", "action": "seed"})  # an identical twin

    document = _changes_of(mutate)
    assert document["changes"] == [
        {
            "collection": "auditLog",
            "key": "AUD-0001",
            "change": "added",
            "occurrence": 1,
            "duplicates": {"before": 1, "after": 2},
            "fields": [
                {"path": "id", "before": None, "after": "AUD-0001"},
                {"path": "action", "before": None, "after": "seed"},
            ],
        }
    ]


def test_large_values_are_replaced_by_a_marker_and_changes_are_capped() -> None:
    big = "x" * (MAX_VALUE_CHARS + 1)

    def mutate(state: dict[str, Any]) -> None:
        state["opportunities"]["OPP-001"]["stage"] = big

    (field,) = _changes_of(mutate)["changes"][0]["fields"]
    marker = field["after"]
    assert marker["truncated"] == len(json.dumps(big))
    assert len(marker["sha256"]) == 64 and len(marker["head"]) == 200

    def flood(state: dict[str, Any]) -> None:
        state["auditLog"].extend({"id": f"N-{i}"} for i in range(MAX_CHANGES + 3))

    document = _changes_of(flood)
    assert len(document["changes"]) == MAX_CHANGES
    assert document["omittedChanges"] == 3


def test_no_change_gives_an_empty_document_and_repeats_are_identical() -> None:
    assert _changes_of(lambda state: None) == {"changes": [], "omittedChanges": 0}

    def mutate(state: dict[str, Any]) -> None:
        state["opportunities"]["OPP-004"]["stage"] = "lost"
        state["auditLog"][0]["action"] = "edited"

    first, second = _changes_of(mutate), _changes_of(mutate)
    assert json.dumps(first) == json.dumps(second)
    assert [c["key"] for c in first["changes"]] == ["OPP-004", "AUD-0001"]
