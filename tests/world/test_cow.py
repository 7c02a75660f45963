"""Copy-on-write worlds: many in flight over one base, each isolated and equal to a deep copy."""

from __future__ import annotations

import copy
import json
import pickle
import random
from typing import Any

import orjson
import pytest

from silo import Index
from silo.world.cow import CowDict, is_shared
from silo.world.diff import diff_states
from silo.world.pool import StateMutationError, World, WorldPool
from tests.world.test_indexes import _mutate as _mutate_rows
from tests.world.test_indexes import _scan
from tests.world.test_world import _fresh, _mutate

BY_OWNER = Index("rows", "owner")


def _shared_rows(world: World) -> int:
    rows = dict.get(world.state, "rows")
    if is_shared(rows):
        return len(rows)
    return sum(1 for row in dict.values(rows) if is_shared(row))


def test_worlds_in_flight_share_one_base_until_they_read() -> None:
    calls = []

    def create() -> dict[str, Any]:
        calls.append(1)
        return _fresh()

    pool = WorldPool(create, lambda state: [])
    worlds = [pool.acquire() for _ in range(50)]
    assert len(calls) == 1  # one create_state() for every world: the base
    assert all(_shared_rows(w) == 5 for w in worlds)
    assert dict.get(worlds[0].state, "rows") is dict.get(worlds[1].state, "rows")
    worlds[0].state["rows"]["R1"]  # a read copies that one row into that one world
    assert [_shared_rows(w) for w in worlds[:3]] == [4, 5, 5]


def test_writes_stay_in_their_world_and_never_reach_the_base() -> None:
    pool = WorldPool(_fresh, lambda state: [])
    a, b = pool.acquire(), pool.acquire()
    tags = a.state["rows"]["R2"]["tags"]  # a nested list read out of a row
    a.state["rows"]["R1"]["owner"] = "U2"
    tags.append("later")  # a later write through the reference
    a.state["log"].append({"id": "L-1"})
    a.state["now"] = "2027-01-01"
    assert b.state["rows"]["R1"]["owner"] == "U1"
    assert b.state["rows"]["R2"]["tags"] == ["a"]
    assert b.state["log"] == [{"id": "L-0", "n": 0}] and b.state["now"] == "2026-03-16"
    assert json.dumps(a.initial()) == json.dumps(_fresh())
    assert a.diff()["collections"]["rows"]["changed"] == ["R1", "R2"]
    pool.release(a)
    c = pool.acquire()  # the rolled-back world, fresh again
    assert c is a and json.dumps(c.state) == json.dumps(_fresh())


def test_a_view_is_its_world_to_every_reader() -> None:
    pool = WorldPool(_fresh, lambda state: [])
    world = pool.acquire()
    world.state["rows"]["R3"]["owner"] = "U9"
    del world.state["rows"]["R0"]
    world.state["rows"]["N1"] = {"id": "N1"}
    expected = copy.deepcopy(world.state)
    for reader in (world, pool.acquire()):  # one partly copied in, one never read
        state = reader.state
        plain = copy.deepcopy(state)
        assert type(plain) is dict and type(plain["rows"]["R1"]) is dict
        assert state == plain and len(state) == len(plain) and list(state) == list(plain)
        assert list(state["rows"]) == list(plain["rows"])
        assert orjson.dumps(state) == orjson.dumps(plain)  # reads the storage directly
        assert json.dumps(state) == json.dumps(plain)
        assert pickle.loads(pickle.dumps(state)) == plain
    assert copy.deepcopy(world.state) == expected


def test_no_read_hands_out_a_base_container() -> None:
    pool = WorldPool(_fresh, lambda state: [])
    other = pool.acquire()
    for read in (
        lambda s: dict(s["rows"])["R1"],
        lambda s: {**s["rows"]}["R1"],
        lambda s: (s["rows"] | {})["R1"],
        lambda s: ({} | s["rows"])["R1"],
        lambda s: copy.copy(s["rows"])["R1"],
        lambda s: s["rows"].copy()["R1"],
        lambda s: s["rows"].get("R1"),
        lambda s: next(iter(s["rows"].values())),
        lambda s: dict(s["rows"].items())["R1"],
        lambda s: s["rows"].setdefault("R1", {}),
        lambda s: s.get("rows")["R1"],
        lambda s: dict(s)["rows"]["R1"],
    ):
        world = pool.acquire()
        row = read(world.state)
        assert not is_shared(row)
        row["owner"] = "changed"  # a write through it changes that world only
        assert other.state["rows"]["R1"]["owner"] == "U1"
        pool.release(world, reusable=False)
    world = pool.acquire()
    assert not is_shared(world.state["rows"].pop("R1"))
    assert not is_shared(world.state.pop("log"))


def test_the_base_refuses_writes_through_a_storage_leak() -> None:
    world = WorldPool(_fresh, lambda state: []).acquire()
    leaked = next(iter(dict.values(dict.get(world.state, "rows"))))  # past the view on purpose
    with pytest.raises(StateMutationError, match="shared by every rollout"):
        leaked["owner"] = "Z"


def test_a_frozen_world_copies_nothing_in_and_its_initial_world_is_read_only() -> None:
    pool = WorldPool(_fresh, lambda state: [])
    world = pool.acquire()
    world.state["rows"]["R1"]["owner"] = "U2"
    world.freeze()
    assert world.state["rows"]["R2"]["owner"] == "U1"
    assert [row["owner"] for row in world.state["rows"].values()] == ["U1", "U2", "U1", "U1", "U1"]
    assert _shared_rows(world) == 4
    with pytest.raises(StateMutationError, match="verifiers must not modify state"):
        world.state["rows"]["R2"]["owner"] = "U3"  # a row the rollout never read: the base's
    with pytest.raises(StateMutationError):
        world.initial()["rows"]["R1"]["owner"] = "U3"
    assert world.initial()["rows"]["R1"]["owner"] == "U1"


def test_a_scanned_collection_becomes_a_plain_tracked_dict() -> None:
    world = WorldPool(_fresh, lambda state: []).acquire()
    assert type(world.state) is CowDict
    rows = world.state["rows"]
    list(rows.values())
    assert type(rows).__name__ == "TrackedDict" and _shared_rows(world) == 0
    for key in ("now", "log", "seq", "cfg"):
        world.state[key]
    assert type(world.state).__name__ == "TrackedDict"  # every top-level value is its own


@pytest.mark.slow  # a long fuzz
def test_worlds_in_flight_interleaved_match_the_deep_copy_oracle() -> None:
    pool = WorldPool(_fresh, lambda state: [])
    pristine = json.dumps(_fresh())
    rng = random.Random(11)
    in_flight = [pool.acquire() for _ in range(3)]
    for trial in range(1500):
        world = rng.choice(in_flight)
        _mutate(world.state, rng)
        if rng.random() < 0.3:
            final = copy.deepcopy(world.state)
            assert json.dumps(world.initial()) == pristine, trial
            assert json.dumps(world.diff()) == json.dumps(diff_states(_fresh(), final)), trial
            in_flight.remove(world)
            pool.release(world)
            in_flight.append(pool.acquire())
    assert len(pool._free) + len(in_flight) <= 4


@pytest.mark.slow  # a long fuzz
def test_indexes_over_worlds_in_flight_answer_what_a_scan_answers() -> None:
    def fresh() -> dict[str, Any]:
        owners = ["U1", "U2", "U3", None]
        rows = {f"R{i}": {"id": f"R{i}", "owner": owners[i % 3], "tags": ["a"]} for i in range(8)}
        return {"rows": rows, "log": []}

    pool = WorldPool(fresh, lambda state: [])
    rng = random.Random(5)
    in_flight = [pool.acquire() for _ in range(3)]
    for trial in range(3000):
        world = rng.choice(in_flight)
        if rng.random() < 0.6:
            _mutate_rows(world.state, rng)
        plain = copy.deepcopy(world.state)
        for value in ("U1", "U2", "U3", None):
            assert BY_OWNER.keys(world.state, value) == _scan(plain, value), trial
        if rng.random() < 0.15:
            in_flight.remove(world)
            pool.release(world)
            in_flight.append(pool.acquire())
