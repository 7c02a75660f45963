"""The task file's optional user block: parsed into a UserSpec, every mistake one line."""

from __future__ import annotations

from typing import Any

import pytest

from silo.errors import TaskError
from silo.tasks import parse_task

BASE = {"id": "T-1", "title": "t", "instruction": "do it", "verifierId": "V-1"}
USER = {
    "persona": "Pat, a customer.",
    "goal": "Get it done.",
    "opening": "Hi there.",
    "facts": [{"name": "amount", "value": "It's $5.", "askedBy": ["amount"]}],
    "turns": ["First scripted reply."],
    "ending": {"when": ["done"], "say": "Bye."},
}


def test_a_task_without_a_user_block_has_no_user() -> None:
    assert parse_task(BASE, "t.json").user is None


def test_the_user_block_is_parsed_and_kept_in_the_task_json() -> None:
    task = parse_task({**BASE, "user": USER}, "t.json")
    assert task.user is not None
    assert task.user.opening == "Hi there." and task.user.end_when == ("done",)
    assert task.user.facts[0].asked_in("What AMOUNT was it?")
    assert not task.user.facts[0].asked_in("Which deal?")
    assert task.to_json()["user"] == USER  # run.json records the block as the file says it


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"opening": ""}, '"opening" must be a non-empty string'),
        ({"mood": "grumpy"}, 'unknown key "mood"'),
        ({"facts": [{"name": "a", "value": "b"}]}, "facts[0].askedBy must be a non-empty list"),
        ({"facts": "amount"}, '"facts" must be a list'),
        ({"ending": {"when": []}}, "ending.when must be a non-empty list"),
        ({"turns": [1]}, '"turns" must be a list of strings'),
    ],
)
def test_a_bad_user_block_is_one_line_naming_the_file(change: dict[str, Any], message: str) -> None:
    with pytest.raises(TaskError) as caught:
        parse_task({**BASE, "user": {**USER, **change}}, "tasks/T-1.json")
    assert caught.value.code == "task_invalid"
    assert message in caught.value.message and "tasks/T-1.json" in caught.value.message
    assert "\n" not in caught.value.message
