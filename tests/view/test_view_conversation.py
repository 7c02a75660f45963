"""The run page shows a conversational run's conversation, once, with who ended it."""

from __future__ import annotations

from pathlib import Path

from silo.rollout.run import run_task
from silo.view.run_detail import run_detail
from silo.view.site import render

ROOT = Path(__file__).resolve().parents[2]


def test_the_conversation_is_on_the_run_page_once_with_its_ending(tmp_path: Path) -> None:
    result = run_task("crm", "TASK-007", "solver", project_dir=ROOT, runs_dir=tmp_path)
    assert result.run_dir is not None
    html = render(result.run_dir)
    assert html.count('id="run-conversation"') == 1
    assert html.index('id="run-conversation"') < html.index('id="run-checks"')
    assert "We&#x27;ve agreed new numbers" in html or "We've agreed new numbers" in html
    assert "The agreed figure is $132,500." in html
    assert "Ended by user: the agent said &quot;updated&quot;: the goal is met" in html
    _, body = run_detail(result.run_dir)
    assert body.count('class="msg user"') == 4 and body.count('class="msg assistant"') == 3


def test_a_run_without_a_user_keeps_its_page_as_before(tmp_path: Path) -> None:
    result = run_task("crm", "TASK-004", "solver", project_dir=ROOT, runs_dir=tmp_path)
    assert result.run_dir is not None
    _, body = run_detail(result.run_dir)
    assert body.count('id="run-conversation"') == 1  # the last section, saying there is none
    assert "No conversation events: the task has no simulated user." in body
