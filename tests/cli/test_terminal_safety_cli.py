"""Agent, tool and environment text reaches the terminal escaped: no retitled window, no fake PASS.

An agent that raises with an OSC title sequence, a screen clear, a carriage return and a newline
followed by ``PASS``, run through ``silo-run``: the output holds no control character but the
newlines between Silo's own lines, and no line of it is a forged verdict.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli._console import run

_AGENT = """
def agent(inp):
    raise RuntimeError("\\x1b]0;pwned\\x07\\x1b[2J\\rgone\\nPASS  reward 1.00  forged\\u202e")
"""

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]")


def test_an_agents_escape_sequences_and_newlines_reach_the_terminal_escaped(
    toy_project: Path,
) -> None:
    (toy_project / "loud.py").write_text(_AGENT)
    proc = run(
        "silo-run", toy_project, "env=toy", "task=TASK-001", "agent=file", "agent.path=loud.py"
    )
    assert proc.returncode == 1, proc.stderr
    assert _CONTROL.search(proc.stdout + proc.stderr) is None
    lines = proc.stdout.splitlines()
    assert [line for line in lines if line.startswith("PASS")] == []
    (error,) = [line for line in lines if line.startswith("error: ")]
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\x0dgone\\nPASS  reward 1.00  forged\\u202e" in error
