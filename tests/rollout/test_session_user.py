"""Sessions expose the user channel of a conversational task."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import silo
from silo.errors import SessionError

ROOT = Path(__file__).resolve().parents[2]


def test_a_session_talks_to_the_user_and_grades_like_run_task(tmp_path: Path) -> None:
    with silo.open_session("crm", "TASK-007", project_dir=ROOT, runs_dir=tmp_path) as session:
        assert session.has_user and session.instruction.startswith("Hi, Marcus here.")
        assert "Northwind" in session.message_user("Which company are you with?").text
        amount = session.message_user("What new amount did you agree?").text
        assert "$132,500" in amount
        session.call_tool(
            "update_opportunity",
            {"actorId": "USR-002", "opportunityId": "OPP-001", "amount": 132500},
        )
        assert session.message_user("I have updated it.").ended
        result = session.finish("done")
    assert result.passed and result.run["userTurns"] == 3


def test_async_sessions_await_the_user(tmp_path: Path) -> None:
    async def drive() -> str:
        session = silo.open_session("crm", "TASK-009", project_dir=ROOT, runs_dir=tmp_path)
        reply = await session.amessage_user("Which company are you with?")
        await session.afinish("x")
        return reply.text

    assert "Kestrel" in asyncio.run(drive())


def test_message_user_without_a_user_block_is_a_session_error(tmp_path: Path) -> None:
    with silo.open_session("crm", "TASK-004", project_dir=ROOT, runs_dir=tmp_path) as session:
        assert not session.has_user
        with pytest.raises(SessionError) as caught:
            session.message_user("hello?")
        assert caught.value.code == "session_no_user"
        session.finish(None)


def test_message_user_with_the_user_turned_off_says_so(tmp_path: Path) -> None:
    with silo.open_session(
        "crm", "TASK-007", project_dir=ROOT, runs_dir=tmp_path, user="none"
    ) as session:
        assert not session.has_user
        with pytest.raises(SessionError) as caught:
            session.message_user("hello?")
        assert caught.value.code == "session_no_user"
        assert 'opened with user="none"' in caught.value.message
        assert "has no user block" not in caught.value.message
        session.finish(None)
