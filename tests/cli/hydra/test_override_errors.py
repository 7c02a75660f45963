"""Override typos that reach Hydra: one line with a suggestion, exit 2 (issue 17).

Before, each of these printed Hydra's multi-line error (the search path, a ``HYDRA_FULL_ERROR``
hint) on stderr.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli._console import one_line_error, run


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["agent.modle=x"], 'unknown key "agent.modle"; known: name'),
        (
            ["agent=openai", "agent.max_tokenz=5"],
            'unknown key "agent.max_tokenz"; did you mean agent.max_tokens? known: ',
        ),
        (
            ["-m", "hydra/launcher=jobib"],
            'unknown hydra/launcher "jobib"; did you mean joblib? available: basic, joblib',
        ),
        (["-m", "+sweep=nosuch"], 'unknown sweep "nosuch"; available: crm_all'),
        (["-m", "agent.modle=x"], 'unknown key "agent.modle"; known: name'),
        (["-m", "agent.modle=x,y"], 'sweep job #0 (agent.modle=x): unknown key "agent.modle"'),
        (
            ["-m", "hydra.launcher.n_jobz=3"],
            'unknown key "hydra.launcher.n_jobz"; known: _target_',
        ),
        (["budget.max_tool_callz=3"], "did you mean max_tool_calls? known: max_tool_calls"),
    ],
)
def test_an_override_typo_is_one_line_with_a_suggestion_and_exit_2(
    toy_project: Path, args: list[str], expected: str
) -> None:
    proc = run("silo-run", toy_project, *args, "env=toy", "task=TASK-001")
    assert proc.returncode == 2
    assert expected in one_line_error(proc, "silo-run")
    assert not (toy_project / ".silo" / "runs").exists() or not any(
        (toy_project / ".silo" / "runs").iterdir()
    )  # refused before anything ran


def test_silo_mcp_lists_its_own_keys_not_silo_runs(toy_project: Path) -> None:
    proc = run("silo-mcp", toy_project, "env=toy", "runs=3")
    assert proc.returncode == 2
    line = one_line_error(proc, "silo-mcp")
    assert line.startswith('unknown key "runs"; did you mean runs_dir? known: env, budget, task')
    assert "transport" in line and "max_concurrency" not in line and "resume" not in line
    proc = run("silo-mcp", toy_project, "env=toy", "agent=solver")
    assert 'unknown key "agent"' in one_line_error(proc, "silo-mcp")
