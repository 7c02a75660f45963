"""Savepoints: a restored call leaves the world, its diff, rollback and indexes as before it."""

from __future__ import annotations

import copy
import json
import random

import pytest

from silo.world.diff import diff_states
from silo.world.pool import WorldPool
from tests.world import test_indexes as index_cases
from tests.world import test_world as world_cases


@pytest.mark.slow  # a long fuzz
def test_a_restored_call_leaves_the_world_as_it_was_before_the_call() -> None:
    pool = WorldPool(world_cases._fresh, lambda state: [])
    pristine = json.dumps(world_cases._fresh())
    rng = random.Random(17)
    for trial in range(1500):
        world = pool.acquire()
        savepoint = world.savepoint()
        assert savepoint is not None
        for _ in range(rng.randint(0, 3)):  # calls that succeed: kept
            savepoint.open()
            world_cases._mutate(world.state, rng)
            savepoint.close()
        before_call = json.dumps(world.state)  # key order included
        savepoint.open()
        for _ in range(rng.randint(1, 5)):
            world_cases._mutate(world.state, rng)
        savepoint.restore()
        assert json.dumps(world.state) == before_call, trial
        for _ in range(rng.randint(0, 2)):  # the rollout goes on after the failed call
            world_cases._mutate(world.state, rng)
        final = copy.deepcopy(world.state)
        assert json.dumps(world.initial()) == pristine, trial
        assert json.dumps(world.diff()) == json.dumps(diff_states(world_cases._fresh(), final))
        pool.release(world)
        assert json.dumps(pool._free[-1].state) == pristine, trial


@pytest.mark.slow  # a long fuzz
def test_indexes_answer_a_scan_after_a_restored_call() -> None:
    pool = WorldPool(index_cases._fresh, lambda state: [])
    by_owner = index_cases.BY_OWNER
    rng = random.Random(5)
    for trial in range(1500):
        world = pool.acquire()
        savepoint = world.savepoint()
        assert savepoint is not None
        index_cases._mutate(world.state, rng)
        by_owner.keys(world.state, "U1")  # filed before the call
        savepoint.open()
        for _ in range(rng.randint(1, 5)):
            index_cases._mutate(world.state, rng)
            by_owner.keys(world.state, rng.choice(index_cases.OWNERS))  # filed mid-call
        savepoint.restore()
        plain = copy.deepcopy(world.state)
        for value in index_cases.OWNERS:
            assert by_owner.keys(world.state, value) == index_cases._scan(plain, value), trial
        pool.release(world)


def test_a_closed_savepoint_keeps_the_call() -> None:
    world = WorldPool(world_cases._fresh, lambda state: []).acquire()
    savepoint = world.savepoint()
    assert savepoint is not None
    savepoint.open()
    world.state["rows"]["R1"]["owner"] = "U9"
    savepoint.close()
    assert world.state["rows"]["R1"]["owner"] == "U9"
    assert world.diff()["collections"]["rows"]["changed"] == ["R1"]
