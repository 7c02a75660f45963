"""Tool specs stored once per project by content: what run_start names, and every way back."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from silo import run_task
from silo.artifacts.tool_store import offered_tools
from silo.rollout.session import open_session


def _start(run_dir: Path) -> dict[str, Any]:
    first = (run_dir / "trace.jsonl").read_text(encoding="utf-8").splitlines()[0]
    start = json.loads(first)
    assert start["type"] == "run_start"
    return dict(start)


def _oracles(run_dir: Path) -> tuple[bytes, bytes]:
    return (run_dir / "result.json").read_bytes(), (run_dir / "state-diff.json").read_bytes()


def test_runs_under_silo_name_one_stored_file_whose_name_is_its_sha256(toy_project: Path) -> None:
    first = run_task("toy", "TASK-001", "solver", project_dir=toy_project)
    second = run_task("toy", "TASK-002", "solver", project_dir=toy_project)
    assert first.run_dir is not None and second.run_dir is not None
    (stored,) = (toy_project / ".silo" / "tools").iterdir()  # one file for both runs
    data = stored.read_bytes()
    assert stored.name == f"{hashlib.sha256(data).hexdigest()}.json"
    for run_dir in (first.run_dir, second.run_dir):
        start = _start(run_dir)
        assert "tools" not in start and start["toolsSha256"] == stored.stem
        assert offered_tools(run_dir, start) == json.loads(data)
    names = {t["name"] for t in json.loads(data)}
    assert names == {"read", "bump", "boom", "refuse"}


def test_a_run_outside_silo_keeps_its_specs_and_writes_nothing_beside_it(
    toy_project: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "elsewhere"
    outside = run_task("toy", "TASK-001", "solver", project_dir=toy_project, runs_dir=runs)
    assert outside.run_dir is not None
    assert list(runs.iterdir()) == [outside.run_dir]  # no store among the run folders
    start = _start(outside.run_dir)
    assert "toolsSha256" not in start
    inside = run_task("toy", "TASK-001", "solver", project_dir=toy_project)
    assert inside.run_dir is not None
    # The same specs either way, and the graded documents are the same bytes.
    assert offered_tools(outside.run_dir, start) == offered_tools(
        inside.run_dir, _start(inside.run_dir)
    )
    assert _oracles(outside.run_dir) == _oracles(inside.run_dir)


def test_a_session_and_an_in_memory_run_offer_the_stored_specs(toy_project: Path) -> None:
    session = open_session("toy", "TASK-001", project_dir=toy_project)
    tools = session.tools
    done = session.finish("done")
    assert done.run_dir is not None
    assert offered_tools(done.run_dir, _start(done.run_dir)) == tools
    memory = run_task("toy", "TASK-001", "solver", project_dir=toy_project, write_artifacts=False)
    start = json.loads(memory.trace_lines[0])
    assert start["tools"] == tools and "toolsSha256" not in start


def test_a_missing_damaged_or_hostile_reference_reads_as_no_specs(toy_project: Path) -> None:
    result = run_task("toy", "TASK-001", "solver", project_dir=toy_project)
    assert result.run_dir is not None
    start = _start(result.run_dir)
    (stored,) = (toy_project / ".silo" / "tools").iterdir()
    assert offered_tools(result.run_dir, {**start, "toolsSha256": "../../etc/passwd"}) is None
    stored.write_bytes(stored.read_bytes().replace(b"bump", b"pump"))  # no longer its name
    assert offered_tools(result.run_dir, start) is None
    stored.unlink()
    assert offered_tools(result.run_dir, start) is None
