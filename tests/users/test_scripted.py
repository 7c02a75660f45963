"""The scripted user: deterministic replies, facts only when asked, the ending rule."""

from __future__ import annotations

from silo.tasks import UserFact, UserSpec
from silo.users.base import UserView
from silo.users.resolve import resolve_user
from silo.users.scripted import ScriptedUser

SPEC = UserSpec(
    persona="Marcus",
    goal="Update the deal",
    opening="Hi, update the fleet trackers deal.",
    facts=(
        UserFact("company", "Northwind Freight.", ("company",)),
        UserFact("amount", "It is $132,500.", ("amount", "how much")),
    ),
    turns=("I'm in a hurry.",),
    fallback="Sorry?",
    end_when=("updated",),
    end_say="Thanks, bye.",
)


def _reply(*agent_messages: str) -> tuple[str, bool]:
    transcript = [{"role": "user", "text": SPEC.opening}]
    for message in agent_messages:
        transcript.append({"role": "agent", "text": message})
    turn = ScriptedUser().reply(UserView(SPEC, transcript, len(agent_messages), 0))
    return turn.text, turn.ended


def test_the_user_refuses_to_reveal_a_fact_until_asked() -> None:
    assert "132,500" not in _reply("Hello! Which deal is this?")[0]
    assert "132,500" not in _reply("Hello!", "Sure, I will update it.?")[0]
    assert _reply("Hello!", "How much is it now?") == ("It is $132,500.", False)


def test_several_facts_asked_at_once_come_in_the_files_order() -> None:
    text, _ = _reply("What amount, and which company are you with?")
    assert text == "Northwind Freight. It is $132,500."


def test_turn_script_then_fallback_answer_anything_else() -> None:
    assert _reply("Hello!") == ("I'm in a hurry.", False)
    assert _reply("Hello!", "Hmm.") == ("Sorry?", False)


def test_a_confirmation_ends_but_a_question_with_the_phrase_does_not() -> None:
    assert _reply("I have updated it to $132,500.") == ("Thanks, bye.", True)
    assert _reply("Should it be updated to the new amount?")[1] is False


def test_the_same_messages_always_get_the_same_replies() -> None:
    assert {_reply("What amount?") for _ in range(5)} == {("It is $132,500.", False)}


def test_the_scripted_user_is_the_default_and_deterministic() -> None:
    resolved = resolve_user(None)
    assert resolved is not None and resolved.label == "scripted" and resolved.deterministic
    assert resolved.user.identity(3) == {
        "kind": "scripted", "model": None, "baseUrl": None, "temperature": None, "seed": None,
    }  # fmt: skip
