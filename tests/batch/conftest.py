"""Fixtures of the batch tests: the model agents' fake servers (tests/agents) are importable."""

from __future__ import annotations

import sys
from pathlib import Path

# The fake model servers live with the agents' tests, which import each other by bare name.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))
