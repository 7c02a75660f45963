"""The newcomer's helpdesk project: a tmp project whose one environment silo-init created."""

from __future__ import annotations

from pathlib import Path

from tests.cli._console import run


def helpdesk_project(tmp_path: Path) -> Path:
    """A project folder holding only ``environments/helpdesk`` (the minimal template)."""
    project = tmp_path / "desk"
    (project / "environments").mkdir(parents=True)
    made = run("silo-init", project, "helpdesk", "template=minimal")
    assert made.returncode == 0, made.stderr
    return project
