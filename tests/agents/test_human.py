"""agent=human: a person at a terminal, driven headless through silo-run's stdin and tmux."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from silo import run_task
from silo.agents.human import completer, parse_arguments
from tests.conftest import REPO, script


def _silo_run(runs: Path, task: str, typed: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [script("silo-run"), "env=crm", f"task={task}", "agent=human", f"runs_dir={runs}"],
        cwd=REPO,
        input=typed,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _solver(task: str, runs: Path) -> tuple[list[tuple[str, Any]], Any, Path]:
    solved = run_task("crm", task, "solver", project_dir=REPO, runs_dir=runs)
    steps: list[tuple[str, Any]] = []
    for line in (solved.run_dir / "trace.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["type"] == "tool_call":
            steps.append((event["tool"], event["input"]))
        elif event["type"] == "user_message" and event["role"] == "agent":
            steps.append(("say", event["text"]))
    return steps, solved.agent_output, solved.run_dir


def _typed(steps: list[tuple[str, Any]], answer: str) -> str:
    lines = []
    for i, (name, args) in enumerate(steps):
        if name == "say":
            lines.append(f"say {args}")
        elif i % 2 and all(isinstance(v, str) for v in args.values()):  # both ways to type
            lines.append(f"{name} " + " ".join(f"{k}={shlex.quote(v)}" for k, v in args.items()))
        else:
            lines.append(f"{name} {json.dumps(args)}")
    return "\n".join(["help", "tools", "not_a_tool x=1", *lines, f"finish {answer}", ""])


@pytest.mark.parametrize("task", ["TASK-002", "TASK-007"])
def test_a_person_typing_the_solvers_moves_gets_the_solvers_record(
    tmp_path: Path, task: str
) -> None:
    steps, answer, solver_dir = _solver(task, tmp_path / "solver")
    done = _silo_run(tmp_path / "human", task, _typed(steps, answer))
    assert done.returncode == 0, done.stderr
    assert "silo> " in done.stdout and "unknown command or tool 'not_a_tool'" in done.stdout
    for tool in ("get_user", "silo_finish"):  # every tool is shown with its schema, no silo_
        assert (f"  {tool}:" in done.stdout) is (tool == "get_user")
    (run_dir,) = [p.parent for p in (tmp_path / "human").glob("*/result.json")]
    result = json.loads((run_dir / "result.json").read_text())
    assert result["passed"] is True
    assert (run_dir / "state-diff.json").read_bytes() == (
        solver_dir / "state-diff.json"
    ).read_bytes()
    run = json.loads((run_dir / "run.json").read_text())
    assert run["agent"] == "human" and run["agentIdentity"] == {"kind": "human"}
    if task == "TASK-007":
        assert "The user wrote (TASK-007)" in done.stdout and "user: " in done.stdout


def test_leaving_without_finish_is_recorded_as_the_person_leaving(tmp_path: Path) -> None:
    done = _silo_run(tmp_path, "TASK-001", "list_users\n")
    assert done.returncode == 1, done.stderr
    result = json.loads(next(tmp_path.glob("*/result.json")).read_text())
    assert result["terminationReason"] == "agent_error" and result["toolCalls"] == 1
    assert "the person left (end of input) without finish" in result["error"]


def test_arguments_parse_as_json_or_key_value_and_say_what_is_wrong() -> None:
    assert parse_arguments('{"userId": "USR-004"}') == {"userId": "USR-004"}
    assert parse_arguments("limit=5 name='Fjord Maritime' flag=true raw=USR-1") == {
        "limit": 5,
        "name": "Fjord Maritime",
        "flag": True,
        "raw": "USR-1",
    }
    assert parse_arguments("") == {}
    for bad, why in [("[1]", "not key=value"), ("{1", "not valid JSON"), ("x", "not key=value")]:
        with pytest.raises(ValueError, match=why):
            parse_arguments(bad)


def test_tab_completes_tool_names_and_commands() -> None:
    complete = completer(["get_user", "get_account", "finish", "say"])
    assert [complete("get_", i) for i in range(3)] == ["get_user", "get_account", None]
    assert complete("fi", 0) == "finish" and complete("zz", 0) is None


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_in_a_real_terminal_tab_completes_and_the_run_is_recorded(tmp_path: Path) -> None:
    session = f"silo-human-{time.monotonic_ns()}"
    command = shlex.join(
        [script("silo-run"), "env=crm", "task=TASK-001", "agent=human", f"runs_dir={tmp_path}"]
    )
    subprocess.run(
        [
            "tmux",
            "new-session",
            "-d",
            "-s",
            session,
            "-x",
            "200",
            "-y",
            "50",
            f"cd {shlex.quote(str(REPO))} && {command}; sleep 30",
        ],
        check=True,
    )
    try:
        _wait_screen(session, "silo>")  # capture-pane drops the trailing space
        subprocess.run(["tmux", "send-keys", "-t", session, "list_us", "Tab"], check=True)
        _wait_screen(session, "silo> list_users")  # Tab completed the tool's name
        subprocess.run(["tmux", "send-keys", "-t", session, "Enter"], check=True)
        subprocess.run(["tmux", "send-keys", "-t", session, "finish no idea", "Enter"], check=True)
        _wait_screen(session, "run folder:")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
    result = json.loads(next(tmp_path.glob("*/result.json")).read_text())
    assert result["toolCalls"] == 1 and result["terminationReason"] == "completed"


def _wait_screen(session: str, text: str, limit_s: float = 120.0) -> None:
    deadline = time.monotonic() + limit_s
    while True:
        screen = subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True
        ).stdout
        if text in screen:
            return
        assert time.monotonic() < deadline, f"waited {limit_s} s for {text!r}:\n{screen}"
        time.sleep(0.1)
