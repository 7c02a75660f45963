"""Tool and verifier scaffolding: written, registered, and the environment still loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from silo.authoring.generate import add_tool, add_verifier
from silo.authoring.tasks import add_task, show_task
from silo.errors import SiloError
from silo.loading.environment import load_environment
from silo.scaffold import create_environment
from silo.validate.report import validate_environment

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return create_environment(tmp_path, "lib", "minimal")


def _snapshot(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_a_scaffolded_tool_and_verifier_load_and_validate(root: Path, tmp_path: Path) -> None:
    result = add_tool(root, "return_book", description="Take a book back.")
    assert result["files"] == [
        "environments/lib/tools/return_book.py",
        "environments/lib/tools/__init__.py",
    ]
    add_tool(root, "count_books", read_only=True)
    add_task(
        root,
        {"id": "TASK-003", "title": "Return", "instruction": "Return Emma.", "verifierId": "V"},
    )
    add_verifier(root, "VER-003", task_id="TASK-003", name="Emma returned")
    env = load_environment(root, reload=True)
    tools = {t.name: t for t in env.bind_tools(env.create_state())}
    assert list(tools) == ["find_books", "lend_book", "return_book", "count_books"]
    assert tools["count_books"].read_only and not tools["return_book"].read_only
    assert tools["return_book"].description == "Take a book back."
    assert show_task(root, "TASK-003")["verifierId"] == "VER-003"
    assert env.verifier_for(env.task("TASK-003")).name == "Emma returned"
    report = validate_environment("lib", tmp_path, deep=False)
    assert report.ok and report.counts["tools"] == 4 and report.counts["verifiers"] == 3


def test_registration_works_on_the_crm_layout(tmp_path: Path) -> None:
    if not (REPO / "environments/crm/env.py").is_file():
        pytest.skip("no CRM")
    root = create_environment(tmp_path, "sales", "crm")
    add_tool(root, "close_account")
    add_verifier(root, "VER-010")  # the CRM template ships VER-001..VER-009
    env = load_environment(root, reload=True)
    assert "close_account" in [t.name for t in env.bind_tools(env.create_state())]
    assert "VER-010" in env.verifiers and env.verifiers["VER-010"].task_id == ""


def test_a_registration_that_breaks_loading_is_undone(root: Path) -> None:
    init = root / "tools" / "__init__.py"
    init.write_text(init.read_text() + "\nassert len(TOOLS) == 2, 'two tools only'\n")
    before = _snapshot(root)
    with pytest.raises(SiloError) as info:
        add_tool(root, "return_book")
    assert info.value.code == "registration_failed"
    assert "two tools only" in info.value.message and "nothing was changed" in info.value.message
    assert _snapshot(root) == before


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda r: add_tool(r, "lend_book"), 'already has a tool "lend_book"'),
        (lambda r: add_tool(r, "class"), 'name="class" is not a tool name'),
        (lambda r: add_verifier(r, "VER-001"), 'already has a verifier "VER-001"'),
        (lambda r: add_verifier(r, "VER-9", task_id="TASK-9"), 'unknown task "TASK-9"'),
    ],
)
def test_refusals_change_nothing(root: Path, call: object, expected: str) -> None:
    before = _snapshot(root)
    with pytest.raises(SiloError) as info:
        call(root)  # type: ignore[operator]
    assert expected in info.value.message
    assert _snapshot(root) == before


def test_an_environment_without_a_verifiers_list_is_refused(root: Path) -> None:
    (root / "verifiers.py").write_text(
        (root / "verifiers.py")
        .read_text()
        .replace("VERIFIERS = [", "VERIFIERS = list([")
        .replace("),\n]", "),\n])")
    )
    with pytest.raises(SiloError, match="no module-level list VERIFIERS"):
        add_verifier(root, "VER-003")
