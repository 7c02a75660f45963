"""silo-run judge=: rubric items judged after the runs, apart from the checks, and result.json
the same with and without a judge."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import REPO, script


def _run(runs: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [script("silo-run"), "env=crm", "task=TASK-007", f"runs_dir={runs}", *args],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_a_scripted_judge_leaves_result_json_as_it_is(tmp_path: Path) -> None:
    judged = _run(tmp_path / "judged", "judge=scripted")
    plain = _run(tmp_path / "plain")
    assert judged.returncode == plain.returncode == 0, judged.stderr + plain.stderr
    assert "judged items (apart from the checks): 2 pass, 0 fail, 0 abstain over 1 run(s)" in (
        judged.stdout
    )
    assert "judged items" not in plain.stdout
    (judged_dir,) = (tmp_path / "judged").iterdir()
    (plain_dir,) = (tmp_path / "plain").iterdir()
    assert (judged_dir / "judgement.json").is_file() and not (plain_dir / "judgement.json").exists()
    for name in ("result.json", "state-diff.json"):
        assert (judged_dir / name).read_bytes() == (plain_dir / name).read_bytes()


def test_a_model_judge_is_one_line_before_any_rollout(tmp_path: Path) -> None:
    proc = _run(tmp_path, "judge=anthropic")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "silo-run: judge=anthropic: model judges are not available in this version; use "
        "judge=scripted or judge=<pkg.module:factory>"
    ]
    assert not tmp_path.exists() or not any(tmp_path.iterdir())
