"""Fixtures for the ready-made agents' tests (helpers live in agent_helpers.py)."""

from __future__ import annotations

import pytest
from agent_helpers import Solution, solve


@pytest.fixture
def solution() -> Solution:
    return solve()
