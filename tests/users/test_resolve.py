"""Choosing a simulated user from config: names, targets, mappings, one-line mistakes."""

from __future__ import annotations

import pytest

from silo.errors import ConfigError
from silo.users.resolve import resolve_user


def test_none_means_no_user() -> None:
    assert resolve_user("none") is None
    assert resolve_user({"name": "none"}) is None


def test_a_target_with_settings_is_built() -> None:
    resolved = resolve_user({"_target_": "silo.users.scripted:ScriptedUser"})
    assert resolved is not None and resolved.label == "ScriptedUser"


@pytest.mark.parametrize(
    ("spec", "code", "words"),
    [
        ("bogus", "user_not_found", 'unknown user "bogus"'),
        ({"_target_": "nowhere.at_all:User"}, "user_not_found", "cannot import user target"),
        ({"name": "openai"}, "user_invalid", "set user.model=<model name>"),
        ({"name": "openai", "model": "m", "max_turns": 0}, "user_invalid", "user.max_turns=0"),
        ({"_target_": "silo.tasks:UserSpec"}, "user_invalid", "cannot build user"),
    ],
)
def test_mistakes_are_one_line_config_errors(spec: object, code: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_user(spec)
    assert caught.value.code == code and words in caught.value.message
