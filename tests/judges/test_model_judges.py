"""Model judges (judge=openai|anthropic) against scripted fake endpoints on loopback: verdicts
in judgement.json, judge_step events appended to the run's trace (redacted), endpoint failures
recorded as judge errors (never cached), and answers that are not verdicts abstained."""

from __future__ import annotations

import json
import socket
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agents"))

import fake_anthropic  # noqa: E402
import fake_openai  # noqa: E402

import silo  # noqa: E402
from silo.errors import ConfigError  # noqa: E402
from silo.judges import judge_run  # noqa: E402
from silo.judges.judgement import model_judges, resolve_judges  # noqa: E402
from tests.waiting import SAFETY_S  # noqa: E402

PROJECT = Path(__file__).resolve().parents[2]
PASS = json.dumps({"verdict": "pass", "reason": "the agent asked first"})


def _solved(tmp_path: Path) -> tuple[Path, silo.RolloutResult]:
    run = silo.run_task(
        env="crm", task="TASK-007", agent="solver", project_dir=PROJECT, runs_dir=tmp_path
    )
    assert run.run_dir is not None
    return run.run_dir, run


def _trace(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_openai_judge_grades_each_item_and_its_calls_join_the_trace(tmp_path: Path) -> None:
    run_dir, run = _solved(tmp_path)
    before = _trace(run_dir)
    result = (run_dir / "result.json").read_bytes()
    with fake_openai.FakeOpenAI([fake_openai.final(PASS)]) as server:
        judges = resolve_judges(
            [{"name": "openai", "model": "judge-m", "base_url": server.base_url}]
        )
        document = judge_run(run_dir, run.task, judges)
    assert (document["passed"], document["failed"], document["judgeErrors"]) == (2, 0, [])
    verdict = document["items"][0]["verdicts"][0]
    assert verdict == {
        "judge": "openai", "verdict": "pass", "reason": "the agent asked first", "model": "judge-m",
        "usage": {"promptTokens": 11, "completionTokens": 7, "totalTokens": 18},
    }  # fmt: skip
    # The request: the judge's instructions, the assertion and the conversation; no tools. The
    # items are graded at once, so their requests may arrive in either order.
    assert len(server.requests) == 2
    asked = "Assertion: The agent asked the customer which deal"
    [body] = [r["json"] for r in server.requests if asked in r["json"]["messages"][1]["content"]]
    assert body["model"] == "judge-m" and "tools" not in body
    assert body["messages"][0]["role"] == "system" and "verdict" in body["messages"][0]["content"]
    prompt = body["messages"][1]["content"]
    assert "[the agent called the tool update_opportunity]" in prompt
    # Two judge_step events after the run's own, numbered on from its last seq.
    after = _trace(run_dir)
    assert after[: len(before)] == before
    steps = after[len(before) :]
    assert [(s["type"], s["judge"], s["item"]) for s in steps] == [
        ("judge_step", "openai", "asked-which-deal"), ("judge_step", "openai", "confirmed-amount"),
    ]  # fmt: skip
    assert [s["seq"] for s in steps] == [before[-1]["seq"] + 1, before[-1]["seq"] + 2]
    assert steps[0]["response"]["text"] == PASS and steps[0]["api"] == "openai.chat"
    assert (run_dir / "result.json").read_bytes() == result


def test_an_anthropic_judge_reads_a_fail_verdict_out_of_prose(tmp_path: Path) -> None:
    run_dir, run = _solved(tmp_path)
    answer = 'Looking at it: {"verdict": "fail", "reason": "no confirmation"} as asked.'
    with fake_anthropic.FakeAnthropic([fake_anthropic.final(answer)]) as server:
        judges = resolve_judges(
            [{"name": "anthropic", "model": "claude-j", "base_url": server.base_url}]
        )
        document = judge_run(run_dir, run.task, judges)
    assert (document["passed"], document["failed"]) == (0, 2)
    assert document["items"][1]["verdicts"][0]["reason"] == "no confirmation"
    assert server.requests[0]["json"]["system"].startswith("You grade one assertion")
    assert [e["api"] for e in _trace(run_dir) if e["type"] == "judge_step"] == [
        "anthropic.messages"
    ] * 2


def test_an_answer_without_a_verdict_is_an_abstention(tmp_path: Path) -> None:
    run_dir, run = _solved(tmp_path)
    with fake_openai.FakeOpenAI([fake_openai.final("I think it is fine.")]) as server:
        judges = resolve_judges([{"name": "openai", "model": "m", "base_url": server.base_url}])
        document = judge_run(run_dir, run.task, judges)
    assert document["abstained"] == 2
    reason = document["items"][0]["verdicts"][0]["reason"]
    assert reason == "the judge's answer held no pass/fail verdict: 'I think it is fine.'"


def test_a_failing_endpoint_is_a_judge_error_recorded_and_never_cached(tmp_path: Path) -> None:
    run_dir, run = _solved(tmp_path / "runs")
    cache = tmp_path / "cache"
    with fake_openai.FakeOpenAI([fake_openai.error(503, "overloaded")]) as server:
        node = {"name": "openai", "model": "m", "base_url": server.base_url, "max_retries": 1}
        document = judge_run(run_dir, run.task, resolve_judges([node]), cache)
    assert (document["passed"], document["failed"], document["abstained"]) == (0, 0, 0)
    assert document["items"][0]["verdicts"][0]["verdict"] == "error"
    (error,) = document["judgeErrors"]
    assert error.startswith("judge=openai: the model endpoint at") and "overloaded" in error
    assert [e["type"] for e in _trace(run_dir) if e["type"].startswith("judge_")] == [
        "judge_retry", "judge_retry"
    ]  # fmt: skip
    assert not cache.exists() or not any(cache.iterdir())
    with fake_openai.FakeOpenAI([fake_openai.final(PASS)]) as server:
        node = {"name": "openai", "model": "m", "base_url": server.base_url}
        again = judge_run(run_dir, run.task, resolve_judges([node]), cache)
        assert len(server.requests) == 2 and again["passed"] == 2 and not again["judgeErrors"]
        # The verdicts were cached by content: judging the same run again sends nothing.
        judge_run(run_dir, run.task, resolve_judges([node]), cache)
        assert len(server.requests) == 2


def test_a_key_the_judge_is_sent_back_is_redacted_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-judge-secret-0123456789"
    monkeypatch.setenv("JUDGE_KEY", secret)
    run_dir, run = _solved(tmp_path)
    echoed = json.dumps({"verdict": "pass", "reason": f"key {secret}"})
    with fake_openai.FakeOpenAI([fake_openai.final(echoed)]) as server:
        node = {
            "name": "openai",
            "model": "m",
            "base_url": server.base_url,
            "api_key_env": "JUDGE_KEY",
        }
        judge_run(run_dir, run.task, resolve_judges([node]))
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {secret}"
    for name in ("trace.jsonl", "judgement.json"):
        text = (run_dir / name).read_text()
        assert secret not in text and "key ***" in text, name


def test_bad_model_judge_settings_are_one_line() -> None:
    with pytest.raises(ConfigError, match=r"judge=openai needs judge.model=<model name>"):
        resolve_judges(["openai"])
    with pytest.raises(ConfigError, match=r"judge=anthropic: agent|judge=anthropic: .*judge\."):
        resolve_judges([{"name": "anthropic", "model": "m", "max_tokens": 0}])
    with pytest.raises(ConfigError, match=r"^judge=openai: judge.tempreture is not a setting"):
        resolve_judges([{"name": "openai", "model": "m", "tempreture": 0}])
    assert model_judges([{"name": "scripted", "also": ["anthropic"]}]) == ["anthropic"]
    assert model_judges(["scripted", {"name": "none"}]) == []


def test_a_dead_endpoint_fails_fast_with_one_line(tmp_path: Path) -> None:
    run_dir, run = _solved(tmp_path)
    node = {"name": "openai", "model": "m", "base_url": f"http://127.0.0.1:{_free_port()}/v1"}
    document = judge_run(run_dir, run.task, resolve_judges([node]))
    assert "cannot connect to the model endpoint" in document["judgeErrors"][0]
    assert "judge.base_url" in document["judgeErrors"][0]


def test_a_folder_of_runs_is_judged_with_its_calls_in_flight_together(tmp_path: Path) -> None:
    from silo.judges.judgement import judge_runs

    runs = [_solved(tmp_path / str(n)) for n in range(3)]
    together = threading.Barrier(2)  # passes only when two requests are held at once

    def answer(body: dict[str, Any]) -> fake_openai.Reply:
        together.wait(timeout=SAFETY_S)  # a safety net: sequential calls never get here twice
        return fake_openai.final(PASS)

    with fake_openai.FakeOpenAI([answer]) as server:
        judges = resolve_judges([{"name": "openai", "model": "m", "base_url": server.base_url}])
        documents = judge_runs([(d, r.task) for d, r in runs], judges)
    assert [d["passed"] for d in documents] == [2, 2, 2]
    assert len(server.requests) == 6 and server.peak_in_flight >= 2
    for run_dir, _ in runs:  # each run's trace holds its own two calls
        items = [e["item"] for e in _trace(run_dir) if e["type"] == "judge_step"]
        assert sorted(items) == ["asked-which-deal", "confirmed-amount"]
