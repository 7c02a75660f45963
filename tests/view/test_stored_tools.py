"""silo-view shows a run's tool specs stored in the project's .silo/tools, and says when gone."""

from __future__ import annotations

from pathlib import Path

from silo import run_task
from silo.view.build import build_site


def test_the_viewer_lists_the_stored_specs_and_names_them_when_gone(
    toy_project: Path, tmp_path: Path
) -> None:
    result = run_task("toy", "TASK-001", "solver", project_dir=toy_project)
    assert result.run_dir is not None
    build_site(toy_project / ".silo" / "runs", tmp_path / "site")
    page = (tmp_path / "site" / "runs" / f"{result.run_dir.name}.html").read_text()
    assert "4 tools offered" in page and "<code>bump</code>" in page
    (stored,) = (toy_project / ".silo" / "tools").iterdir()
    stored.unlink()
    build_site(toy_project / ".silo" / "runs", tmp_path / "again")
    page = (tmp_path / "again" / "runs" / f"{result.run_dir.name}.html").read_text()
    assert f".silo/tools/{stored.name}" in page and "missing or damaged" in page
