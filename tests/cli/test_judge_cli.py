"""silo-run judge=: rubric items judged after the runs, apart from the checks, and result.json
the same with and without a judge."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, script

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))

import fake_openai  # noqa: E402


def _run(runs: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # The project is the runs' folder, so the judge cache (<project>/.silo/judge-cache) is the
    # test's own, never the checkout's: a verdict cached by an earlier run would hide a request.
    return subprocess.run(
        [script("silo-run"), "env=crm", "task=TASK-007", f"runs_dir={runs}", *args],
        cwd=REPO, capture_output=True, text=True, timeout=300,
        env={**os.environ, "SILO_PROJECT_DIR": str(runs.parent)},
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


def test_a_model_judge_without_a_model_is_one_line_before_any_rollout(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    proc = _run(runs, "judge=anthropic")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "silo-run: judge=anthropic needs judge.model=<model name> (e.g. "
        "judge.model=claude-sonnet-4-5)"
    ]
    assert not runs.exists() or not any(runs.iterdir())


def test_an_openai_judge_grades_through_silo_run(tmp_path: Path) -> None:
    verdict = json.dumps({"verdict": "fail", "reason": "never confirmed"})
    with fake_openai.FakeOpenAI([fake_openai.final(verdict)]) as server:
        proc = _run(
            tmp_path / "runs", "judge=openai", "judge.model=m", f"judge.base_url={server.base_url}"
        )
    assert proc.returncode == 0, proc.stderr
    assert "judged items (apart from the checks): 0 pass, 2 fail, 0 abstain over 1 run(s)" in (
        proc.stdout
    )
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert json.loads((run_dir / "result.json").read_text())["passed"] is True
    kinds = [
        json.loads(line)["type"] for line in (run_dir / "trace.jsonl").read_text().splitlines()
    ]
    assert kinds.count("judge_step") == 2


def test_a_dead_judge_endpoint_is_a_judge_error_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = _run(tmp_path / "judged", "judge=openai", "judge.model=m",
                f"judge.base_url=http://127.0.0.1:{port}/v1")  # fmt: skip
    _run(tmp_path / "plain")
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(
        "silo-run: judge error (not the agent's failure): judge=openai: cannot connect to the "
        f"model endpoint at http://127.0.0.1:{port}/v1"
    )
    (judged_dir,), (plain_dir,) = (tmp_path / "judged").iterdir(), (tmp_path / "plain").iterdir()
    judgement = json.loads((judged_dir / "judgement.json").read_text())
    assert judgement["judgeErrors"] and judgement["items"][0]["verdicts"][0]["verdict"] == "error"
    assert (judged_dir / "result.json").read_bytes() == (plain_dir / "result.json").read_bytes()


def test_silo_baseline_refuses_a_model_judge(tmp_path: Path) -> None:
    proc = subprocess.run(
        [script("silo-baseline"), "check", "env=crm", "agent=solver", "task=TASK-007",
         "judge=scripted", "+judge.also=[openai]"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "silo-baseline: judge=openai is a model judge, which is not deterministic, so its "
        "verdicts cannot be a baseline; use judge=scripted or leave judge= out"
    ]
