"""silo-env refuses a data edit that stops the environment from starting, and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli._console import one_line_error, run
from tests.cli._helpdesk import helpdesk_project


def _data(project: Path) -> dict[str, bytes]:
    folder = project / "environments" / "helpdesk" / "data"
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_removing_a_file_create_state_reads_is_refused_with_nothing_written(
    tmp_path: Path,
) -> None:
    project = helpdesk_project(tmp_path)
    before = _data(project)
    proc = run("silo-env", project, "data", "remove", "env=helpdesk", "file=books")
    assert proc.returncode == 2
    line = one_line_error(proc, "silo-env")
    assert line.startswith(
        "removing environments/helpdesk/data/books.json would stop environment 'helpdesk' "
        "from starting: its world no longer builds ("
    )
    assert "state.py:" in line and "FileNotFoundError" in line
    assert line.endswith("; nothing was changed")
    assert _data(project) == before
    assert run("silo-run", project, "task=TASK-001").returncode == 0  # still runs


def test_an_update_that_breaks_the_world_is_undone(tmp_path: Path) -> None:
    project = helpdesk_project(tmp_path)
    before = _data(project)
    proc = run("silo-env", project, "data", "update", "env=helpdesk", "file=books", "value=42")
    assert proc.returncode == 2
    assert "would stop environment 'helpdesk' from starting" in one_line_error(proc, "silo-env")
    assert _data(project) == before


def test_edits_that_keep_it_starting_are_written(tmp_path: Path) -> None:
    project = helpdesk_project(tmp_path)
    added = run("silo-env", project, "data", "add", "env=helpdesk", "file=notes", 'value={"a": 1}')
    assert added.returncode == 0, added.stderr
    folder = project / "environments" / "helpdesk" / "data"
    assert json.loads((folder / "notes.json").read_text()) == {"a": 1}
    removed = run("silo-env", project, "data", "remove", "env=helpdesk", "file=notes")
    assert removed.returncode == 0, removed.stderr
    assert not (folder / "notes.json").exists()
