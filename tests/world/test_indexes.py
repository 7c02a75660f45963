"""Indexes answer exactly what a scan answers, on journaled worlds, across rollbacks."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from silo import Index
from silo.world.pool import WorldPool

OWNERS = ["U1", "U2", "U3", None]
BY_OWNER = Index("rows", "owner")


def _fresh() -> dict[str, Any]:
    return {
        "rows": {f"R{i}": {"id": f"R{i}", "owner": OWNERS[i % 3], "tags": ["a"]} for i in range(8)},
        "log": [],
    }


def _scan(state: dict[str, Any], value: Any) -> list[str]:
    rows = state["rows"]
    return [
        key
        for key, row in rows.items()
        if isinstance(row, dict) and "owner" in row and row["owner"] == value
    ]


def _mutate(state: dict[str, Any], rng: random.Random) -> None:
    rows = state["rows"]
    key = f"R{rng.randint(0, 9)}"
    choice = rng.randint(0, 11)
    if choice == 0 and key in rows:
        rows[key]["owner"] = rng.choice(OWNERS)
    elif choice == 1:
        rows[key] = {"id": key, "owner": rng.choice(OWNERS)}
    elif choice == 2:
        rows.pop(key, None)
    elif choice == 3 and key in rows:
        rows[key].pop("owner", None)
    elif choice == 4 and key in rows:
        rows[key]["owner"] = ["unhashable"]
    elif choice == 5:
        rows.update({key: {"owner": "U2"}, "N1": {"owner": "U1"}})
    elif choice == 6:
        state["rows"] = {k: v for k, v in list(rows.items())[:3]}
    elif choice == 7 and key in rows:
        rows[key].update({"owner": "U3", "tags": ["b"]})
    elif choice == 8:
        state["log"].append({"id": key})
    elif choice == 9 and key in rows:
        row = rows.pop(key)
        rows[key] = row  # deleted and re-added: moves to the end of the collection
    elif choice == 10 and key in rows and "R3" in rows:
        rows["R3"] = rows[key]  # one row under two keys: a change through either moves both
    elif choice == 11 and "R3" in rows and isinstance(rows["R3"], dict):
        rows["R3"]["owner"] = rng.choice(OWNERS)


@pytest.mark.slow  # a long fuzz
def test_lookups_match_a_scan_through_random_rollouts() -> None:
    pool = WorldPool(_fresh, lambda state: [])
    rng = random.Random(11)
    for trial in range(1500):
        world = pool.acquire()
        for _ in range(rng.randint(0, 8)):
            _mutate(world.state, rng)
            if rng.random() < 0.5:  # lookups mid-rollout re-file only what changed
                value = rng.choice(OWNERS)
                plain = copy.deepcopy(world.state)
                assert BY_OWNER.keys(world.state, value) == _scan(plain, value), trial
        plain = copy.deepcopy(world.state)
        for value in OWNERS:
            assert BY_OWNER.keys(world.state, value) == _scan(plain, value), trial
            assert BY_OWNER.rows(world.state, value) == [
                plain["rows"][k] for k in _scan(plain, value)
            ]
        pool.release(world)
    assert len(pool._free) == 1  # the same world (and its index) served every rollout


def test_after_a_rollback_the_index_describes_the_restored_world() -> None:
    pool = WorldPool(_fresh, lambda state: [])
    world = pool.acquire()
    assert BY_OWNER.keys(world.state, "U1") == ["R0", "R3", "R6"]
    world.state["rows"]["R0"]["owner"] = "U2"
    world.state["rows"]["R9"] = {"owner": "U1"}
    assert BY_OWNER.keys(world.state, "U1") == ["R3", "R6", "R9"]
    pool.release(world)
    again = pool.acquire()
    assert again is world
    assert BY_OWNER.keys(again.state, "U1") == ["R0", "R3", "R6"]
    assert BY_OWNER.keys(again.state, "U2") == ["R1", "R4", "R7"]


def test_a_built_index_does_not_rescan_the_collection() -> None:
    world = WorldPool(_fresh, lambda state: []).acquire()
    assert BY_OWNER.keys(world.state, "U3") == ["R2", "R5"]
    # A write that bypasses the tracked containers (and so the journal) is invisible to the
    # index: proof that lookups read the index, not the collection.
    dict.__setitem__(world.state["rows"]["R0"], "owner", "U3")
    assert BY_OWNER.keys(world.state, "U3") == ["R2", "R5"]
    world.state["rows"]["R0"]["tags"].append("b")  # a tracked change to that row re-files it
    assert BY_OWNER.keys(world.state, "U3") == ["R0", "R2", "R5"]


def test_plain_states_and_the_read_only_initial_world_are_scanned() -> None:
    plain = _fresh()
    assert BY_OWNER.keys(plain, "U1") == ["R0", "R3", "R6"]
    world = WorldPool(_fresh, lambda state: []).acquire()
    world.state["rows"]["R0"]["owner"] = "U2"
    world.freeze()
    initial = world.initial()
    assert BY_OWNER.keys(initial, "U1") == ["R0", "R3", "R6"]
    assert BY_OWNER.keys(world.state, "U1") == ["R3", "R6"]


def test_rows_that_cannot_be_filed_never_match() -> None:
    state = {"rows": {"A": {"owner": ["x"]}, "B": "not a row", "C": {}, "D": {"owner": None}}}
    world = WorldPool(lambda: copy.deepcopy(state), lambda s: []).acquire()
    for target in (state, world.state):
        assert BY_OWNER.keys(target, None) == ["D"]
        assert BY_OWNER.keys(target, "x") == []
