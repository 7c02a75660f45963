"""silo.toolkit.solving: a strict caller that raises on refusals, instruction reading."""

from __future__ import annotations

from typing import Any

import pytest

from silo.toolkit import SolverError, first_match, strict_caller


class Input:
    """An agent input whose only tool echoes, and refuses ``bad``."""

    def call_tool(self, name: str, input: dict[str, Any]) -> Any:
        if name == "bad":
            return {"output": {"code": "not_found", "message": "no"}, "isError": True}
        return {"output": {"echo": input}, "isError": False}


def test_strict_caller_returns_the_output() -> None:
    assert strict_caller(Input())("echo", {"a": 1}) == {"echo": {"a": 1}}


def test_strict_caller_raises_on_a_refusal_naming_the_call() -> None:
    with pytest.raises(SolverError, match=r"bad\(\{'a': 1\}\) was refused: .*not_found"):
        strict_caller(Input())("bad", {"a": 1})


def test_first_match() -> None:
    assert first_match(r"(USR-\d+)", "Acting as Ada (USR-001)") == "USR-001"
    with pytest.raises(SolverError, match="the instruction has no match for"):
        first_match(r"(OPP-\d+)", "nothing here")
