"""The public API: every exported name resolves, and importing silo stays light."""

from __future__ import annotations

import subprocess
import sys

import silo


def test_every_exported_name_resolves() -> None:
    assert silo.__all__ == sorted(silo.__all__)
    for name in silo.__all__:
        assert getattr(silo, name) is not None, name


def test_importing_silo_does_not_load_the_engine_or_heavy_libraries() -> None:
    code = (
        "import sys, silo; "
        "print(sorted(m for m in ('hydra', 'jsonschema', 'pydantic', 'deepdiff', "
        "'fastjsonschema', 'silo.rollout.run', 'silo.rollout.session') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_sweep_from_python(toy_project) -> None:  # type: ignore[no-untyped-def]
    points = [silo.Point("toy", "TASK-001", "solver", "solver", silo.Budget())]
    group = toy_project / ".silo" / "runs" / "py"
    outcomes = silo.run_points(points, 2, project_dir=toy_project, group_dir=group, group_id="py")
    assert [o.passed for o in outcomes] == [True, True]
    assert silo.summarize(group)["rows"][0]["passHatK"] == {"1": 1.0, "2": 1.0}


def test_a_session_from_python(toy_project) -> None:  # type: ignore[no-untyped-def]
    with silo.open_session("toy", "TASK-001", project_dir=toy_project) as session:
        assert isinstance(session, silo.Session)
        session.call_tool("bump", {"id": "C-1"})
        session.call_tool("bump", {"id": "C-1"})
        result = session.finish("bumped")
    assert isinstance(result, silo.RolloutResult) and result.passed
