"""Journaled worlds: initial snapshot, diff and rollback agree with a deep-copy oracle."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from silo.world.diff import diff_states
from silo.world.pool import StateMutationError, WorldPool


def _fresh() -> dict[str, Any]:
    return {
        "now": "2026-03-16",
        "rows": {f"R{i}": {"id": f"R{i}", "owner": "U1", "tags": ["a"]} for i in range(5)},
        "log": [{"id": "L-0", "n": 0}],
        "seq": {"L": 0},
        "cfg": {"x": 1},
    }


def _mutate(state: dict[str, Any], rng: random.Random) -> None:
    rows = state.get("rows")
    choice = rng.randint(0, 19)
    if choice == 0 and rows and "R1" in rows:
        rows["R1"]["owner"] = "U2"
    elif choice == 1 and isinstance(rows, dict):
        rows[f"N{rng.randint(0, 3)}"] = {"id": "N", "owner": "U3"}
    elif choice == 2 and isinstance(rows, dict):
        rows.pop(f"R{rng.randint(0, 4)}", None)
    elif choice == 3:
        state["log"].append({"id": f"L-{rng.randint(1, 9)}"})
    elif choice == 4 and state["log"]:
        state["log"][0]["n"] = rng.randint(1, 5)
    elif choice == 5:
        state["seq"]["L"] += 1
    elif choice == 6:
        state["now"] = "2026-04-01"
    elif choice == 7 and rows and "R2" in rows:
        rows["R2"]["tags"].append("b")
    elif choice == 8:
        state["extra"] = [1]
    elif choice == 9:
        state.pop("cfg", None)
    elif choice == 10 and isinstance(rows, dict):
        state["rows"] = dict(list(rows.items())[:2])
    elif choice == 11 and rows and "R3" in rows:
        rows["R4"] = rows["R3"]
        rows["R4"]["owner"] = "Z"
    elif choice == 12:
        state["log"].insert(0, {"id": "first"})
    elif choice == 13 and isinstance(rows, dict):
        rows.update({"R0": {"id": "R0", "owner": "U9"}, "N9": {}})
    # Plain containers a call stores inside a row or a log item, changed in place later on.
    elif choice == 14 and rows and "R1" in rows:
        rows["R1"]["meta"] = {"k": rng.randint(1, 5), "deep": {"v": 1}}
    elif choice == 15 and rows and isinstance(rows.get("R1", {}).get("meta"), dict):
        rows["R1"]["meta"]["deep"]["v"] += 1
        rows["R1"]["meta"]["k"] = rng.randint(6, 9)
    elif choice == 16 and rows and "R2" in rows:
        rows["R2"].setdefault("notes", []).append({"n": rng.randint(1, 5)})
    elif choice == 17 and state["log"]:
        state["log"][-1].setdefault("tags", []).append("t")
    elif choice == 18 and rows and "R3" in rows:
        rows["R3"]["tags"][0:1] = [{"x": 1}]
    elif choice == 19 and rows and "R3" in rows:
        tags = rows["R3"]["tags"]
        if tags and isinstance(tags[0], dict):
            tags[0]["x"] += 1
        if rows.get("R2", {}).get("notes"):
            rows["R2"]["notes"][0]["n"] += 10


def test_random_mutations_match_the_deep_copy_oracle() -> None:
    pool = WorldPool(_fresh, lambda state: [])
    pristine = json.dumps(_fresh())
    rng = random.Random(7)
    for trial in range(1500):
        world = pool.acquire()
        for _ in range(rng.randint(1, 6)):
            _mutate(world.state, rng)
        final = copy.deepcopy(world.state)
        assert json.dumps(world.initial()) == pristine, trial
        assert json.dumps(world.diff()) == json.dumps(diff_states(_fresh(), final)), trial
        pool.release(world)
        assert json.dumps(pool._free[-1].state) == pristine, trial
    assert len(pool._free) == 1  # one world served every rollout


def test_frozen_world_refuses_mutation() -> None:
    pool = WorldPool(_fresh, lambda state: [])
    world = pool.acquire()
    world.freeze()
    with pytest.raises(StateMutationError):
        world.state["seq"]["L"] = 5
    with pytest.raises(StateMutationError):
        world.initial()["log"][0]["n"] = 9


def test_copies_of_tracked_values_are_plain() -> None:
    world = WorldPool(_fresh, lambda state: []).acquire()
    row = copy.deepcopy(world.state["rows"]["R1"])
    assert type(row) is dict and type(row["tags"]) is list
    assert type(copy.copy(world.state["log"])) is list


def test_untrackable_state_falls_back_to_snapshots() -> None:
    def create() -> dict[str, Any]:
        return {"items": {"a": {1, 2}}, "n": 1}

    pool = WorldPool(create, lambda state: [])
    world = pool.acquire()
    assert not world.tracked
    world.state["n"] = 2
    world.state["items"]["a"].add(3)
    assert world.initial() == {"items": {"a": {1, 2}}, "n": 1}
    assert world.diff()["scalars"] == [{"field": "n", "from": 1, "to": 2, "change": "changed"}]
    pool.release(world)
    assert pool._free == []  # never reused


def test_diff_reports_removed_keys_and_null_transitions() -> None:
    before = {"a": 1, "b": None, "c": {"x": 1}, "d": [1]}
    after = {"a": None, "b": {"k": 1}, "c": {"x": 1}}
    diff = diff_states(before, after)
    assert diff["scalars"] == [
        {"field": "a", "from": 1, "to": None, "change": "changed"},
        {"field": "b", "from": None, "to": {"k": 1}, "change": "changed"},
        {"field": "d", "from": [1], "to": None, "change": "removed"},
    ]
    assert diff["collections"] == {}
