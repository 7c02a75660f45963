"""Project-tracking tools under random use: seeded sequences of schema-valid calls with real ids
shuffled in. Whatever the sequence, a tool either succeeds with JSON output or refuses with a
ToolError that leaves the world untouched, and every verifier can grade the world it leaves."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from project_helpers import ACTOR, MUTATIONS, READS

import silo

NAMES = sorted(MUTATIONS) + sorted(READS)


def _shuffled_args(rng: random.Random, name: str, ids: dict[str, list[str]]) -> dict[str, Any]:
    base = MUTATIONS[name][0] if name in MUTATIONS else READS[name]
    args = {"actorId": ACTOR, **base} if name in MUTATIONS else dict(base)
    for key, value in list(args.items()):
        prefix = value.split("-")[0] if isinstance(value, str) else ""
        if prefix in ids and rng.random() < 0.7:
            args[key] = rng.choice(ids[prefix])
    return args


@pytest.mark.parametrize("seed", range(4))
def test_random_calls_never_crash_or_leak(tracker: Any, project_env: Any, seed: int) -> None:
    rng = random.Random(seed)
    state = tracker.state
    ids = {
        "MEM": list(state["members"]),
        "WI": list(state["workItems"]),
        "SPR": list(state["sprints"]),
        "PROJ": list(state["projects"]),
        "TEAM": list(state["teams"]),
        "TL": list(state["timeLogs"]),
        "WS": list(state["workflowStates"]),
    }
    succeeded = 0
    for _ in range(150):
        name = rng.choice(NAMES)
        args = _shuffled_args(rng, name, ids)
        if not tracker.schema_accepts(name, args):
            continue
        before = copy.deepcopy(state)
        try:
            json.dumps(tracker.tools[name].run(state, args))
            succeeded += 1
        except silo.ToolError as error:
            assert state == before, (
                f"{name}({args}) refused with {error.code} but changed the world"
            )
    assert succeeded > 30
    initial = project_env.create_state()
    for task in project_env.tasks.values():  # each task names its verifier
        context = silo.VerifierContext(agent_output="3", task=task)
        project_env.verifiers[task.verifier_id].check(state, initial, context)
