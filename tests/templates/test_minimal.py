"""The minimal template: every authoring concept once, in the recommended style, and sound."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from silo.loading.environment import load_environment
from silo.scaffold import create_environment, template_dir
from silo.tools import ToolError
from silo.validate.report import validate_environment


@pytest.fixture
def library(tmp_path: Path) -> Path:
    return create_environment(tmp_path, "library", "minimal")


def test_it_is_small(library: Path) -> None:
    lines = sum(len(p.read_text().splitlines()) for p in library.rglob("*.py"))
    assert 100 <= lines <= 200, lines


def test_it_validates_with_no_finding_at_all(library: Path, tmp_path: Path) -> None:
    report = validate_environment("library", tmp_path)  # deep: the template ships a solver
    assert report.findings == [], report.to_text()
    assert report.counts == {"data": 1, "tasks": 2, "tools": 2, "verifiers": 2}


def test_it_uses_the_recommended_style() -> None:
    source = {p.name: p.read_text() for p in Path(str(template_dir("minimal"))).rglob("*.py")}
    everything = "\n".join(source.values())
    assert source["books.py"].count("define_tool(") == 2  # the one documented way (authoring.md)
    assert "from silo.toolkit.schema import obj, text" in source["books.py"]
    assert "@tool" not in everything
    assert "raise ToolError" in source["books.py"]
    assert "TypedDict" in source["state.py"]
    assert "from silo.grading import" in source["verifiers.py"]
    assert "check(" in source["verifiers.py"] and "optional(" in source["verifiers.py"]


def test_verifiers_do_not_restate_their_task(library: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        env = load_environment(library, reload=True)
    assert {v.id: v.task_id for v in env.verifiers.values()} == {"VER-001": "", "VER-002": ""}
    assert [env.verifier_for(t).id for t in env.tasks.values()] == ["VER-001", "VER-002"]


def test_one_read_only_tool_and_one_mutating_tool_that_refuses(library: Path) -> None:
    env = load_environment(library, reload=True)
    state = env.create_state()
    tools = {tool.name: tool for tool in env.bind_tools(state)}
    assert {name: t.read_only for name, t in tools.items()} == {
        "find_books": True,
        "lend_book": False,
    }
    assert tools["lend_book"].input_schema["required"] == ["book_id", "member"]
    assert tools["lend_book"].run(state, {"book_id": "BOOK-1", "member": "Ada"})
    with pytest.raises(ToolError) as info:
        tools["lend_book"].run(state, {"book_id": "BOOK-1", "member": "Bo"})
    assert info.value.code == "invalid_state"
    assert env.create_state()["books"]["BOOK-1"]["borrower"] is None  # worlds share nothing
