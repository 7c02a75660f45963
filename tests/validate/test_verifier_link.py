"""A task links to its verifier by verifierId alone; a restated task id must agree with it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from silo.errors import SiloError
from silo.loading.environment import load_environment
from silo.validate.report import Report
from tests.validate.conftest import MakeEnv, task


def test_linked_by_verifier_id_alone_validates_clean(
    check_env: Callable[..., Report],
) -> None:
    report = check_env(deep=True, env_py={'"VER-001", "TASK-001", ': '"VER-001", '})
    assert report.findings == [], report.to_text()


def test_a_verifier_no_task_names_is_unused(check_env: Callable[..., Report]) -> None:
    extra = 'verifiers = [define_verifier("VER-9", "spare", _a_is_five), '
    report = check_env(env_py={"verifiers = [": extra})
    found = [f for f in report.findings if f.code == "verifier_unused"]
    assert len(found) == 1 and '"VER-9" is named by no task' in found[0].message
    assert report.ok


def test_running_a_task_whose_verifier_restates_another_task_is_refused(
    make_env: MakeEnv, tmp_path: Path
) -> None:
    root = make_env(files={"tasks/TASK-002.json": task("TASK-002", "VER-001")})
    env = load_environment(root, reload=True)
    assert env.verifier_for(env.task("TASK-001")).id == "VER-001"
    with pytest.raises(SiloError) as info:
        env.verifier_for(env.task("TASK-002"))
    assert info.value.code == "verifier_task_mismatch"
    assert 'ties to task "TASK-001"' in info.value.message
