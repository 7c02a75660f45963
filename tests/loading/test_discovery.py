"""locate: a new rollout's project, environment, task and runs folder, from what was named."""

from __future__ import annotations

from pathlib import Path

import pytest

from silo.loading.discovery import locate, project_path
from silo.loading.environment import load_environment
from tests.loading.test_loader import make


def test_names_resolve_to_the_projects_environment_task_and_runs_folder(tmp_path: Path) -> None:
    make(tmp_path, {})
    project, environment, task, runs = locate("mini", "TASK-001", tmp_path, None, True)
    assert project == tmp_path.resolve()
    assert (environment.name, task.id) == ("mini", "TASK-001")
    assert runs == tmp_path.resolve() / ".silo" / "runs"


def test_a_loaded_environment_with_its_runs_folder_needs_no_project(tmp_path: Path) -> None:
    environment = load_environment(make(tmp_path, {}))
    task = environment.task("TASK-001")
    found = locate(environment, task, None, tmp_path / "runs", True)
    assert found == (None, environment, task, tmp_path / "runs")
    assert locate(environment, task, None, None, False) == (None, environment, task, None)


def test_without_a_project_dir_the_project_is_found_from_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, {})
    (tmp_path / "deeper").mkdir()
    monkeypatch.delenv("SILO_PROJECT_DIR", raising=False)
    monkeypatch.chdir(tmp_path / "deeper")
    assert project_path(None) == tmp_path.resolve()
    assert project_path(Path("..")) == tmp_path.resolve()
