"""Task files edited through silo.authoring: every other key survives, the result still parses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from silo.authoring.tasks import add_task, list_tasks, remove_task, show_task, update_task
from silo.errors import SiloError
from silo.scaffold import create_environment


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return create_environment(tmp_path, "lib", "minimal")


def test_list_and_show(root: Path) -> None:
    assert [(t["id"], t["verifierId"]) for t in list_tasks(root)] == [
        ("TASK-001", "VER-001"),
        ("TASK-002", "VER-002"),
    ]
    assert show_task(root, "TASK-001")["entities"] == {"bookId": "BOOK-1", "member": "Ada"}


def test_update_keeps_entities_and_unknown_keys(root: Path) -> None:
    path = root / "tasks" / "TASK-001.json"
    raw = json.loads(path.read_text())
    path.write_text(json.dumps({**raw, "notes": "keep me"}))
    result = update_task(root, "TASK-001", {"title": "Lend Dune"})
    assert result["changed"] == ["title"]
    after = json.loads(path.read_text())
    assert after == {**raw, "notes": "keep me", "title": "Lend Dune"}
    assert list(after) == [*raw, "notes"]  # the file's key order is kept


def test_add_writes_a_task_that_loads(root: Path) -> None:
    fields = {
        "id": "TASK-003",
        "title": "Return",
        "instruction": "Return Emma.",
        "verifierId": "VER-003",
        "entities": {"bookId": "BOOK-2"},
    }
    add_task(root, fields)
    assert json.loads((root / "tasks" / "TASK-003.json").read_text()) == fields
    assert "TASK-003" in [t["id"] for t in list_tasks(root)]


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda r: add_task(r, {"id": "TASK-001"}), 'task "TASK-001" already exists'),
        (lambda r: add_task(r, {"id": "T-9", "title": "x"}), 'missing a non-empty string "'),
        (lambda r: add_task(r, {"id": "../x"}), 'id="../x" cannot name a file'),
        (lambda r: update_task(r, "TASK-001", {"difficulty": "epic"}), '"difficulty" is'),
        (lambda r: update_task(r, "TASK-001", {"id": "TASK-9"}), "add a new task"),
        (lambda r: show_task(r, "TASK-9"), 'no task "TASK-9" (known: TASK-001, TASK-002)'),
    ],
)
def test_refusals_change_nothing(root: Path, call: object, expected: str) -> None:
    before = {p.name: p.read_text() for p in (root / "tasks").iterdir()}
    with pytest.raises(SiloError) as info:
        call(root)  # type: ignore[operator]
    assert expected in info.value.message
    assert {p.name: p.read_text() for p in (root / "tasks").iterdir()} == before


def test_remove(root: Path) -> None:
    remove_task(root, "TASK-002")
    assert [t["id"] for t in list_tasks(root)] == ["TASK-001"]
