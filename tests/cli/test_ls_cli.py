"""silo-ls (and silo-run --list) end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from silo.cli import ls
from tests.cli._console import one_line_error, run


def test_lists_environments(toy_project: Path) -> None:
    proc = run("silo-ls", toy_project)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:2] == ["Environments (1):", "  toy  blank  3 tasks"]
    # The environments this repository ships as packages (installed with it) work from any
    # folder, so they are listed too.
    assert lines[2:] == ["Installed (env=<name> from any folder): crm, erp, project"]


def test_lists_tasks_and_tools(toy_project: Path) -> None:
    proc = run("silo-ls", toy_project, "env=toy")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:3] == ["Environment toy", "Tasks (3):", "  TASK-001  easy  Toy task 1"]
    assert "Tools (4):" in lines
    assert "  read    ro  Read one counter." in lines
    assert "  bump    rw  Add to a counter." in lines
    assert lines[-1] == "3 tasks, 4 tools, 3 verifiers"


def test_json(toy_project: Path) -> None:
    document = json.loads(run("silo-ls", toy_project, "env=toy", "--json").stdout)
    assert document["counts"] == {"tasks": 3, "tools": 4, "verifiers": 3}
    assert document["tasks"][0] == {"id": "TASK-001", "difficulty": "easy", "title": "Toy task 1"}
    assert document["tools"][0] == {
        "name": "read",
        "readOnly": True,
        "description": "Read one counter.",
        "inputSchema": {  # what the agent is offered, as @tool or define_tool made it
            "type": "object",
            "properties": {
                "id": {
                    "type": "string",
                    "description": "Counter id, e.g. C-1.",
                    "pattern": "^C-\\d+$",
                }
            },
            "required": ["id"],
            "additionalProperties": False,
        },
    }
    listing = json.loads(run("silo-ls", toy_project, "--json").stdout)
    assert listing == {
        "environments": [{"name": "toy", "template": "blank", "tasks": 3}],
        "installed": ["crm", "erp", "project"],
    }


def test_empty_project(tmp_path: Path) -> None:
    (tmp_path / ".silo").mkdir()  # the project is here, not in a folder above tmp_path
    proc = run("silo-ls", tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.startswith("No environments in ")
    assert (
        proc.stdout.splitlines()[1] == "Installed (env=<name> from any folder): crm, erp, project"
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["task=TASK-001"], 'unknown argument "task=TASK-001"; known: env='),
        (["env=nope"], 'unknown environment "nope"'),
    ],
)
def test_mistakes_exit_two(toy_project: Path, args: list[str], expected: str) -> None:
    proc = run("silo-ls", toy_project, *args)
    assert proc.returncode == 2
    assert expected in one_line_error(proc, "silo-ls")


def test_silo_run_list_ignores_run_words(toy_project: Path) -> None:
    proc = run("silo-run", toy_project, "env=toy", "task=TASK-001", "agent=noop", "--list")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "Environment toy"
    assert not (toy_project / ".silo" / "runs").exists() or not any(
        (toy_project / ".silo" / "runs").iterdir()
    )


def test_main_returns_the_status_in_process(
    toy_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(toy_project)
    monkeypatch.delenv("SILO_PROJECT_DIR", raising=False)
    assert ls.main(["env=toy", "runs=3", "-m"], prog="silo-run --list") == 0
    assert capsys.readouterr().out.startswith("Environment toy")
    assert ls.main(["env=nope"], prog="silo-run --list") == 2
    assert capsys.readouterr().err.startswith("silo-run --list: unknown environment")
