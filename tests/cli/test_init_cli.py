"""silo-init end to end: creation, next steps, refusals, and a fresh environment validating."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli._console import one_line_error, run

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _project_here(tmp_path: Path) -> None:
    """Make ``tmp_path`` a project, so no stray project in a folder above it is found instead."""
    (tmp_path / ".silo").mkdir()


def test_blank_environment_then_validate(tmp_path: Path) -> None:
    proc = run("silo-init", tmp_path, "demo")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == 'Created environment "demo" from blank at environments/demo'
    assert "  2. silo-validate env=demo" in lines
    assert any(line.startswith("  3. silo-run env=demo task=") for line in lines)
    manifest = json.loads(
        (tmp_path / "environments" / "demo" / "silo.environment.json").read_text()
    )
    assert manifest["template"] == "blank" and manifest["entrypoint"] == "./env.py"
    check = run("silo-validate", tmp_path, "env=demo")
    assert check.returncode == 0, check.stdout
    assert check.stdout.splitlines() == [
        "WARNING  no_tasks  environments/demo has no tasks; add tasks/<ID>.json files",
        "WARNING  no_tools  environments/demo: bind_tools(state) returns no tools; agents cannot act",
        "OK  demo  data=0 tasks=0 tools=0 verifiers=0",
    ]


@pytest.mark.skipif(not (REPO / "environments/crm/env.py").is_file(), reason="no CRM yet")
def test_crm_environment_validates_clean(tmp_path: Path) -> None:
    proc = run("silo-init", tmp_path, "sales", "template=crm")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith('Created environment "sales" from crm at environments/sales')
    assert "silo-run env=sales task=TASK-001" in proc.stdout
    check = run("silo-validate", tmp_path, "env=sales")
    assert check.returncode == 0, check.stdout
    # The CRM keeps weighted rewards (its goldens): the no-op agent's floor is a warning.
    lines = check.stdout.splitlines()
    ok = next(i for i, line in enumerate(lines) if line.startswith("OK  sales  data="))
    assert all(line.startswith("WARNING  noop_rewarded  ") for line in lines[:ok])
    assert lines[ok + 1 :] and all(line.startswith("TEMPLATE  ") for line in lines[ok + 1 :])


def test_created_at_the_project_root_from_a_subfolder(tmp_path: Path) -> None:
    (tmp_path / "environments").mkdir()
    (tmp_path / "notes" / "deep").mkdir(parents=True)
    proc = run("silo-init", tmp_path / "notes" / "deep", "here")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "environments" / "here" / "env.py").is_file()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["Demo"], 'environment "Demo" already exists (as "demo"); try "Demo-3"'),
        (["demo-2"], 'environment "demo-2" already exists; try "demo-3"'),
        (["../escape"], '"../escape" is not a usable environment name'),
        ([".hidden"], '".hidden" is not a usable environment name'),
        (["new", "template=nope"], 'unknown template "nope"; available: blank, minimal, crm'),
    ],
)
def test_refusals_exit_two(tmp_path: Path, args: list[str], expected: str) -> None:
    assert run("silo-init", tmp_path, "demo").returncode == 0
    assert run("silo-init", tmp_path, "demo-2").returncode == 0
    proc = run("silo-init", tmp_path, *args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert one_line_error(proc, "silo-init").startswith(expected)
    assert sorted(p.name for p in (tmp_path / "environments").iterdir()) == ["demo", "demo-2"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], "missing the environment name"),
        (["a", "b"], 'unexpected argument "b"'),
        (["a", "tmpl=crm"], 'unknown argument "tmpl=crm"'),
    ],
)
def test_usage_mistakes_exit_two_too(tmp_path: Path, args: list[str], expected: str) -> None:
    proc = run("silo-init", tmp_path, *args)
    assert proc.returncode == 2
    assert expected in one_line_error(proc, "silo-init")
    assert not (tmp_path / "environments").exists()


def test_package_scaffold_is_an_installable_environment_package(tmp_path: Path) -> None:
    proc = run("silo-init", tmp_path, "--package", "shelf")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == (
        'Created package "silo-env-shelf" offering env=shelf (from minimal) at silo-env-shelf/'
    )
    root = tmp_path / "silo-env-shelf"
    pyproject = (root / "pyproject.toml").read_text()
    assert '[project.entry-points."silo.environments"]\nshelf = "silo_env_shelf:ENVIRONMENT"' in (
        pyproject
    )
    assert 'dependencies = ["silo-worlds>=' in pyproject
    environment = root / "src" / "silo_env_shelf" / "environment"
    manifest = json.loads((environment / "silo.environment.json").read_text())
    assert manifest["name"] == "shelf" and manifest["template"] == "minimal"
    assert (root / "tests" / "test_environment.py").is_file()
    assert "{env: shelf, agent: solver}" in (root / "baselines" / "silo-baselines.yaml").read_text()
    # The environment inside is complete: it validates as a folder before any install.
    check = run("silo-validate", tmp_path, f"env={environment}")
    assert check.returncode == 0, check.stdout + check.stderr


def test_package_scaffold_refuses_a_template_without_solver_and_an_existing_folder(
    tmp_path: Path,
) -> None:
    blank = run("silo-init", tmp_path, "--package", "shelf", "template=blank")
    assert blank.returncode == 2
    assert one_line_error(blank, "silo-init").startswith('template "blank" has no solver')
    assert [p.name for p in tmp_path.iterdir()] == [".silo"]  # the project marker alone
    unknown = run("silo-init", tmp_path, "--package", "shelf", "template=nosuch")
    assert one_line_error(unknown, "silo-init").startswith('unknown template "nosuch"')
    (tmp_path / "silo-env-shelf").mkdir()
    again = run("silo-init", tmp_path, "--package", "shelf")
    assert again.returncode == 2
    assert 'folder "silo-env-shelf" already exists' in one_line_error(again, "silo-init")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".silo", "silo-env-shelf"]
