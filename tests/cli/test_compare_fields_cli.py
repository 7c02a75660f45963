"""silo-compare reads state-changes.json: a tool that also changes an unchecked field shows."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli._console import run
from tests.cli._helpdesk import helpdesk_project


def _run(project: Path, folder: str) -> Path:
    proc = run("silo-run", project, "task=TASK-001", f"hydra.run.dir=.silo/runs/{folder}")
    assert proc.returncode == 0, proc.stderr
    return next((project / ".silo" / "runs" / folder).glob("run_*"))


def test_a_field_level_bug_with_the_same_verdicts_is_a_changed_cell(tmp_path: Path) -> None:
    project = helpdesk_project(tmp_path)
    before = _run(project, "a")
    tools = project / "environments" / "helpdesk" / "tools" / "books.py"
    buggy = '    book["borrower"] = member\n    book["author"] = ""\n'
    tools.write_text(tools.read_text().replace('    book["borrower"] = member\n', buggy))
    after = _run(project, "b")
    proc = run("silo-compare", project, str(before), str(after))
    assert proc.returncode == 0, proc.stderr
    assert "  TASK-001 solver: same result, the world differs" in proc.stdout
    assert '    field books.BOOK-1.author: "Frank Herbert" -> "" (not changed in A)' in proc.stdout
    assert proc.stdout.splitlines()[-1] == "1 cells: 1 CHANGED; no pass rate dropped"
    document = json.loads(run("silo-compare", project, str(before), str(after), "--json").stdout)
    (cell,) = document["cells"]
    assert cell["status"] == "changed" and cell["detail"]["resultFields"] == []


def test_two_runs_of_the_same_code_stay_the_same(tmp_path: Path) -> None:
    project = helpdesk_project(tmp_path)
    proc = run("silo-compare", project, str(_run(project, "a")), str(_run(project, "b")))
    assert proc.stdout.splitlines()[-1] == "1 cells: 1 same; no pass rate dropped"
