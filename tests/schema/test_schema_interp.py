"""The schema interpreter never accepts what jsonschema rejects, and its tier hands over."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from silo.agents.sampler import SchemaSampler, Unsatisfiable
from silo.loading.environment import load_environment
from silo.schema.interp import Invalid, check, interpretable
from silo.schema.validator import COMPILE_AFTER, InputValidator

REPO = Path(__file__).resolve().parents[2]


def _mutations(value: Any, rng: random.Random) -> list[Any]:
    """Valid input bent in the ways agents get it wrong."""
    out: list[Any] = [value, {}, [], "x", None, 1.0, True]
    if isinstance(value, dict):
        for key in value:
            for bad in (None, -1, 10**9, 1.5, "", "x" * 300, [], {}, True):
                out.append({**value, key: bad})
            out.append({k: v for k, v in value.items() if k != key})
        out.append({**value, "unexpected": rng.random()})
    return out


def test_interpreter_agrees_with_jsonschema_on_the_crm_tools() -> None:
    env = load_environment("crm", REPO)
    rng = random.Random(11)
    sampler = SchemaSampler(rng, {"USR-001": None, "OPP-005": None})
    checked = 0
    for tool in env.pool.tools():
        schema = dict(tool.input_schema)
        assert interpretable(schema), tool.name
        reference = Draft202012Validator(schema)
        for _ in range(30):
            try:
                valid = sampler.sample_valid(schema)
            except Unsatisfiable:
                continue
            for value in _mutations(valid, rng):
                try:
                    check(schema, value)
                    accepted = True
                except Invalid:
                    accepted = False
                if accepted:  # never more lenient than the authority
                    assert reference.is_valid(value), (tool.name, value)
                checked += 1
    assert checked > 5000


def test_validator_verdicts_do_not_change_when_it_compiles() -> None:
    schema = {
        "type": "object",
        # A list of types: outside the closure tier, so the interpreter goes first.
        "properties": {"n": {"type": ["integer"], "maximum": 3}},
        "required": ["n"],
        "additionalProperties": False,
    }
    validator = InputValidator(schema)
    assert validator.quick is None and validator._cold
    verdicts = [validator.problems({"n": i % 5}) for i in range(COMPILE_AFTER * 2)]
    assert validator._fast is not None  # compiled after COMPILE_AFTER checks
    later = COMPILE_AFTER + 5 - COMPILE_AFTER % 5  # a multiple of 5 past the hand-over
    assert verdicts[:5] == verdicts[later : later + 5]
    assert verdicts[4] == ['"n": 4 is greater than the maximum of 3']
