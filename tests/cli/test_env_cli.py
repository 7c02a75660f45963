"""silo-env end to end: each noun and verb as a user runs it, --json output, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli._console import one_line_error, run


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "environments").mkdir()  # the project is here, not in a folder above tmp_path
    assert run("silo-init", tmp_path, "lib", "template=minimal").returncode == 0
    return tmp_path


def _files(project: Path) -> dict[str, str]:
    root = project / "environments" / "lib"
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def _json(project: Path, *words: str) -> object:
    proc = run("silo-env", project, *words, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_task_commands_keep_the_keys_they_were_not_given(project: Path) -> None:
    rows = _json(project, "task", "list", "env=lib")
    assert [r["id"] for r in rows] == ["TASK-001", "TASK-002"]  # type: ignore[union-attr,index]
    updated = _json(project, "task", "update", "env=lib", "id=TASK-001", "title=Lend Dune")
    assert updated["changed"] == ["title"]  # type: ignore[index,call-overload]
    shown = _json(project, "task", "show", "env=lib", "id=TASK-001")
    assert shown["entities"] == {"bookId": "BOOK-1", "member": "Ada"}  # type: ignore[index,call-overload]
    assert shown["title"] == "Lend Dune"  # type: ignore[index,call-overload]
    add = run(
        "silo-env",
        project,
        "task",
        "add",
        "env=lib",
        "id=TASK-003",
        "title=Return",
        "instruction=Return Emma.",
        "verifierId=VER-002",
        'entities={"bookId": "BOOK-2"}',
    )
    assert add.returncode == 0, add.stderr
    assert add.stdout.strip() == "Added task TASK-003 (environments/lib/tasks/TASK-003.json)"
    assert run("silo-env", project, "task", "remove", "env=lib", "id=TASK-003").returncode == 0
    assert not (project / "environments/lib/tasks/TASK-003.json").exists()


def test_data_commands(project: Path) -> None:
    assert _json(project, "data", "list", "env=lib") == [{"file": "books", "records": 3}]
    value = '{"title": "Kim", "author": "Rudyard Kipling", "borrower": null}'
    _json(project, "data", "update", "env=lib", "file=books", "id=BOOK-4", f"value={value}")
    books = _json(project, "data", "show", "env=lib", "file=books")
    assert books[-1]["id"] == "BOOK-4"  # type: ignore[index]
    source = project / "members.json"
    source.write_text('{"Ada": {}}')
    _json(project, "data", "add", "env=lib", "file=members", f"from={source}")
    assert json.loads((project / "environments/lib/data/members.json").read_text()) == {"Ada": {}}


def test_scaffolded_tool_and_verifier_load_validate_and_run(project: Path) -> None:
    tool = _json(project, "tool", "add", "env=lib", "name=count_books", "read_only=true")
    assert tool["readOnly"] is True  # type: ignore[index,call-overload]
    _json(project, "verifier", "add", "env=lib", "id=VER-009", "task=TASK-002", "name=Counted")
    tools = _json(project, "tool", "list", "env=lib")
    assert [(t["name"], t["readOnly"]) for t in tools][-1] == ("count_books", True)  # type: ignore[union-attr,index]
    verifiers = _json(project, "verifier", "list", "env=lib")
    assert verifiers[-1] == {"id": "VER-009", "name": "Counted", "tasks": ["TASK-002"]}  # type: ignore[index]
    check = run("silo-validate", project, "env=lib", "deep=false")
    assert check.returncode == 0, check.stdout
    assert "verifier_unused" in check.stdout  # VER-002 lost its only task to VER-009
    ran = run("silo-run", project, "env=lib", "task=TASK-002", "agent=solver")
    assert ran.returncode == 1 and "x TODO: what a correct run leaves" in ran.stdout


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ([], "missing a command; usage: silo-env <noun> <verb>"),
        (["frob"], 'unknown noun "frob"; use one of: task, data, tool, verifier'),
        (["task"], '"silo-env task" needs a verb: list, show, add, update, remove'),
        (["task", "list", "env="], "env= needs an environment name;"),
        (["task", "list", "env=nope"], 'unknown environment "nope"'),
        (["task", "list", "env=lib", "id=X"], 'unknown argument "id=X"; known: env=, format='),
        (["task", "show", "env=lib", "id=TASK-9"], 'no task "TASK-9" (known: TASK-001, TASK-002)'),
        (["task", "update", "env=lib", "id=TASK-001"], "nothing to update"),
        (
            ["task", "update", "env=lib", "id=TASK-001", "entities=[1]"],
            "entities= must be a JSON object",
        ),
        (["task", "add", "env=lib", "id=T", "entities={x"], "entities= is not valid JSON"),
        (["data", "add", "env=lib", "file=x"], "give the new content as value=JSON or from=FILE"),
        (["tool", "add", "env=lib", "name=lend_book"], 'already has a tool "lend_book"'),
        (
            ["tool", "add", "env=lib", "name=x", "read_only=maybe"],
            "read_only= must be true or false",
        ),
        (["verifier", "add", "env=lib", "id=VER-001"], 'already has a verifier "VER-001"'),
    ],
)
def test_mistakes_are_one_line_and_exit_two(project: Path, words: list[str], expected: str) -> None:
    before = _files(project)
    proc = run("silo-env", project, *words)
    assert proc.returncode == 2
    assert expected in one_line_error(proc, "silo-env")
    assert _files(project) == before


def test_help(project: Path) -> None:
    proc = run("silo-env", project, "--help")
    assert proc.returncode == 0 and "verifier list | add id=" in proc.stdout
