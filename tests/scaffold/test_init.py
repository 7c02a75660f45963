"""silo.scaffold: templates, names, collisions and atomic creation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import silo.scaffold as scaffold
from silo import distribution
from silo.errors import SiloError
from silo.scaffold import check_name, create_environment, suggest_name, template_dir
from silo.validate.report import validate_environment

REPO = Path(__file__).resolve().parents[2]
CRM = REPO / "environments" / "crm"
needs_crm = pytest.mark.skipif(not (CRM / "env.py").is_file(), reason="environments/crm absent")


def files_of(root: Path) -> set[str]:
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_blank_template(tmp_path: Path) -> None:
    root = create_environment(tmp_path, "first", "blank")
    assert root == tmp_path / "environments" / "first"
    assert files_of(root) == {
        "env.py",
        "silo.environment.json",
        "data/.gitkeep",
        "tasks/.gitkeep",
    }
    manifest = json.loads((root / "silo.environment.json").read_text())
    assert manifest == {
        "name": "first",
        "template": "blank",
        "templateVersion": distribution.version(),
        "entrypoint": "./env.py",
        "tools": [],
    }
    report = validate_environment("first", tmp_path)
    assert report.ok and report.codes() == ["no_tasks", "no_tools"]
    assert [f.level for f in report.findings] == ["warning", "warning"]


@needs_crm
def test_crm_template_is_a_copy_that_validates_clean(tmp_path: Path) -> None:
    root = create_environment(tmp_path, "sales", "crm")
    expected = {
        name
        for name in files_of(CRM)
        if name.endswith((".py", ".json", ".md")) and not Path(name).name.startswith(".")
    }
    assert files_of(root) == expected
    for name in expected - {"silo.environment.json"}:
        assert (root / name).read_bytes() == (CRM / name).read_bytes(), name
    manifest = json.loads((root / "silo.environment.json").read_text())
    assert manifest["name"] == "sales" and manifest["template"] == "crm"
    report = validate_environment("sales", tmp_path)  # deep: the CRM ships a solver
    # The CRM keeps its weighted rewards (its goldens): the no-op agent's floor is a warning.
    assert {(f.level, f.code) for f in report.findings} <= {("warning", "noop_rewarded")}
    assert report.ok, report.to_text()
    assert report.counts["tasks"] >= 1


def test_templates_resolve_from_the_installed_package() -> None:
    blank = template_dir("blank")
    assert blank.joinpath("env.py").is_file()
    assert template_dir("crm").joinpath("silo.environment.json").is_file()
    assert template_dir("erp").joinpath("silo.environment.json").is_file()
    with pytest.raises(SiloError) as info:
        template_dir("nope")
    assert info.value.code == "template_not_found"


def test_unknown_template_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(SiloError) as info:
        create_environment(tmp_path, "x", "nope")
    assert "available: blank, minimal, crm, project, erp" in info.value.message
    assert not (tmp_path / "environments").exists()


@pytest.mark.parametrize("existing", ["crm", "CRM", "Crm"])
def test_collision_is_case_insensitive_and_suggests(tmp_path: Path, existing: str) -> None:
    create_environment(tmp_path, existing)
    with pytest.raises(SiloError) as info:
        create_environment(tmp_path, "crm")
    assert info.value.code == "environment_already_exists"
    assert info.value.details["suggestion"] == "crm-2"
    assert 'try "crm-2"' in info.value.message


def test_suggestion_skips_taken_names_and_strips_the_number(tmp_path: Path) -> None:
    for name in ("crm", "crm-2", "CRM-3"):
        create_environment(tmp_path, name)
    with pytest.raises(SiloError) as info:
        create_environment(tmp_path, "crm-2")
    assert info.value.details["suggestion"] == "crm-4"


@pytest.mark.parametrize(
    ("name", "taken", "expected"),
    [
        ("crm", ["crm"], "crm-2"),
        ("crm-7", ["crm-7", "crm-2"], "crm-3"),
        ("a-1-2", ["A-1-2"], "a-1-3"),
        ("x.y", ["x.y", "X.Y-2"], "x.y-3"),
    ],
)
def test_suggest_name(name: str, taken: list[str], expected: str) -> None:
    assert suggest_name(name, taken) == expected


@pytest.mark.parametrize(
    "name", ["", ".hidden", "../x", "a/b", "a\\b", "-x", "_x", "a b", "é", "x/../../y", "."]
)
def test_unsafe_names_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(SiloError) as info:
        create_environment(tmp_path, name)
    assert info.value.code == "unsafe_name"
    assert not (tmp_path / "environments").exists()


@pytest.mark.parametrize("name", ["a", "crm2", "My_Env.v1", "0-x"])
def test_safe_names(name: str) -> None:
    check_name(name)


@pytest.mark.parametrize("failure", [KeyboardInterrupt, OSError])
def test_interrupted_creation_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: type[BaseException]
) -> None:
    real_copy = scaffold._copy_tree
    copied: list[str] = []

    def copy_then_fail(source: Any, dest: Path) -> None:
        copied.append(dest.name)
        if len(copied) > 1:  # the top folder is being filled: fail in the middle
            raise failure()
        real_copy(source, dest)

    monkeypatch.setattr(scaffold, "_copy_tree", copy_then_fail)
    with pytest.raises(failure):
        create_environment(tmp_path, "half", "blank")
    assert len(copied) > 1
    assert list((tmp_path / "environments").iterdir()) == []


def test_failed_rename_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any) -> None:
        raise PermissionError("read-only")

    monkeypatch.setattr(scaffold.os, "rename", refuse)
    with pytest.raises(PermissionError):
        create_environment(tmp_path, "late", "blank")
    assert list((tmp_path / "environments").iterdir()) == []


def test_existing_environments_are_never_touched(tmp_path: Path) -> None:
    root = create_environment(tmp_path, "keep")
    (root / "env.py").write_text("# mine\n")
    with pytest.raises(SiloError):
        create_environment(tmp_path, "KEEP", "crm")
    assert (root / "env.py").read_text() == "# mine\n"
