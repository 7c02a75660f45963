"""One rollout's hostile outcome never takes a group down: every run is recorded, resume finishes.

An agent file whose rollouts return a list nested 2,000 deep, a value whose ``__repr__`` and
``__str__`` raise, a cycle, or raise an exception whose ``__str__`` raises, run as a group
through ``silo-run``: no traceback, every run folder complete, a summary, and ``resume=true``
finds them all.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli._console import run

_AGENT = """
import itertools, threading

_next = itertools.count()
_lock = threading.Lock()


class Hostile:
    def __repr__(self):
        raise ValueError("repr refused")

    def __str__(self):
        raise ValueError("str refused")


class Unprintable(Exception):
    def __str__(self):
        raise ValueError("str refused")


def deep(levels):
    value = []
    for _ in range(levels):
        value = [value]
    return value


def agent(inp):
    with _lock:
        n = next(_next)
    kind = n % 4
    if kind == 0:
        return deep(2000)
    if kind == 1:
        return Hostile()
    if kind == 2:
        raise Unprintable()
    loop = []
    loop.append(loop)
    return loop
"""


def test_a_group_of_hostile_outcomes_is_recorded_whole_and_resume_finishes(
    toy_project: Path,
) -> None:
    (toy_project / "hostile.py").write_text(_AGENT)
    args = ("env=toy", "task=TASK-001", "agent=file", "agent.path=hostile.py", "runs=8",
            "max_concurrency=4", "fail_on_error=false")  # fmt: skip
    proc = run("silo-run", toy_project, *args)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 0, proc.stderr
    (group,) = (toy_project / ".silo" / "runs").iterdir()
    summary = json.loads((group / "summary.json").read_text())
    assert summary["rollouts"] == 8
    runs = [json.loads(p.read_text()) for p in group.glob("*/run.json")]
    assert len(runs) == 8
    assert sum(r.get("agentOutputTruncated") == {"keptDepth": 1023} for r in runs) == 2
    reasons = sorted(r["terminationReason"] for r in runs)
    assert reasons == ["agent_error"] * 2 + ["completed"] * 6
    again = run("silo-run", toy_project, *args, "resume=true")
    assert again.returncode == 0, again.stderr
    assert "resume: 8 of 8 rollouts skipped" in again.stdout + again.stderr
