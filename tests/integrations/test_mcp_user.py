"""silo-mcp on conversational tasks: silo.message_user with the real MCP client.

Over stdio (the console script, as MCP clients launch it) and the SDK's in-memory transport.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from silo.integrations.episodes import EpisodeSpec, EpisodeTable
from silo.integrations.mcp_server import FINISH_TOOL, MESSAGE_TOOL, START_TOOL, build_server
from silo.loading.environment import load_environment

REPO = Path(__file__).resolve().parents[2]
SILO_MCP = str(Path(sys.executable).parent / "silo-mcp")
NOT_A_MESSAGE = "a message to the user is a non-empty string; nothing was sent"
# Refused before anything is sent: no user turn, nothing in the trace.
BAD_MESSAGES: list[dict[str, Any]] = [{"text": ""}, {"text": "  "}, {"text": 5}, {"txt": "hi"}]


def _stdio(*args: str) -> StdioServerParameters:
    # These tests read the grade silo_finish returns on request (finish_result=grade).
    return StdioServerParameters(
        command=SILO_MCP, args=[*args, "finish_result=grade"], cwd=str(REPO)
    )


def _payload(result: Any) -> Any:
    return json.loads(result.content[0].text)


def _run_json(run_dir: Path) -> Any:
    return json.loads((run_dir / "run.json").read_text())


def test_stdio_conversation_reaches_the_model_and_gives_run_task_bytes(
    tmp_path: Path, solver_steps: Any, scripted_record: Any
) -> None:
    steps, answer = solver_steps("TASK-007")
    steps = [*steps, (MESSAGE_TOOL, {"text": "Anything else?"})]  # after the user ended
    runs = tmp_path / "mcp"
    seen: dict[str, Any] = {"replies": []}

    async def client() -> None:
        params = _stdio("env=crm", "task=TASK-007", f"runs_dir={runs}")
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            seen["instructions"] = (await s.initialize()).instructions
            seen["tools"] = {t.name: t for t in (await s.list_tools()).tools}
            seen["prompt"] = (await s.get_prompt("TASK-007")).messages[0].content.text
            seen["bad"] = [await s.call_tool(MESSAGE_TOOL, args) for args in BAD_MESSAGES]
            for name, args in steps:
                result = await s.call_tool(name, args)
                if name == MESSAGE_TOOL:
                    seen["replies"].append((result.is_error, _payload(result)))
            seen["finish"] = _payload(await s.call_tool(FINISH_TOOL, {"answer": answer}))

    anyio.run(client)
    opening = "Hi, Marcus here. We've agreed new numbers on the fleet trackers deal"
    assert opening in seen["instructions"] and MESSAGE_TOOL in seen["instructions"]
    assert seen["prompt"].startswith(opening)  # the prompt is the user's message
    message_tool = seen["tools"][MESSAGE_TOOL]
    assert opening in str(message_tool.description)  # every client shows this to the model
    assert message_tool.input_schema["required"] == ["text"]
    bad = [(r.is_error, _payload(r)) for r in seen["bad"]]
    assert bad[:3] == [(True, {"code": "invalid_input", "message": NOT_A_MESSAGE})] * 3
    assert (
        bad[3][0] and bad[3][1]["message"] == f'{MESSAGE_TOOL} takes {{"text": "<your message>"}}'
    )
    replies = seen["replies"]
    assert [is_error for is_error, _ in replies] == [False, False, False, True]
    assert "Northwind" in replies[0][1]["text"] and "$132,500" in replies[1][1]["text"]
    assert replies[2][1]["ended"] and replies[3][1]["ended"]  # the refusal after the end
    assert seen["finish"]["passed"] is True
    run_dir = Path(seen["finish"]["runDir"])
    run = _run_json(run_dir)
    assert (run["userTurns"], run["conversationEndedBy"]) == (3, "user")
    trace = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    messages = [(e["messageId"], e["role"]) for e in trace if e["type"] == "user_message"]
    assert messages == [(0, "user"), *[(i, r) for i in (1, 2, 3) for r in ("agent", "user")]]
    record = (run_dir / "result.json").read_bytes(), (run_dir / "state-diff.json").read_bytes()
    assert record == scripted_record("TASK-007", steps, answer, tmp_path / "b")


@pytest.mark.slow  # a real MCP client and a silo-mcp process: an edge the default suite leaves to -m slow
def test_a_task_without_a_user_does_not_offer_the_channel(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def client() -> None:
        params = _stdio("env=crm", "task=TASK-001", f"runs_dir={tmp_path}")
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            seen["tools"] = [t.name for t in (await s.list_tools()).tools]
            seen["call"] = await s.call_tool(MESSAGE_TOOL, {"text": "hello?"})
            seen["prompt"] = (await s.get_prompt("TASK-001")).messages[0].content.text

    anyio.run(client)
    assert MESSAGE_TOOL not in seen["tools"] and FINISH_TOOL in seen["tools"]
    assert seen["call"].is_error and _payload(seen["call"])["code"] == "session_no_user"
    assert seen["prompt"] == load_environment("crm", REPO).task("TASK-001").instruction


@pytest.mark.slow  # a real MCP client and a silo-mcp process: an edge the default suite leaves to -m slow
def test_user_none_rolls_a_conversational_task_out_without_the_channel(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def client() -> None:
        params = _stdio("env=crm", "task=TASK-007", "user=none", f"runs_dir={tmp_path}")
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            seen["instructions"] = (await s.initialize()).instructions
            seen["tools"] = [t.name for t in (await s.list_tools()).tools]
            seen["prompt"] = (await s.get_prompt("TASK-007")).messages[0].content.text

    anyio.run(client)
    instruction = load_environment("crm", REPO).task("TASK-007").instruction
    assert MESSAGE_TOOL not in seen["tools"] and MESSAGE_TOOL not in seen["instructions"]
    assert instruction in seen["instructions"] and seen["prompt"] == instruction


def test_starting_a_conversation_lists_the_channel_and_notifies_the_client(
    tmp_path: Path,
) -> None:
    seen: dict[str, Any] = {"notified": []}

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            seen["notified"].append(message)
        await anyio.lowlevel.checkpoint()

    async def client() -> None:
        params = _stdio("env=crm", f"runs_dir={tmp_path}")
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, message_handler=on_message) as s,
        ):
            init = await s.initialize()
            seen["listChanged"] = init.capabilities.tools.list_changed
            seen["before"] = [t.name for t in (await s.list_tools()).tools]
            seen["early"] = _payload(await s.call_tool(MESSAGE_TOOL, {"text": "hi"}))
            seen["start"] = _payload(await s.call_tool(START_TOOL, {"task_id": "TASK-008"}))
            seen["after"] = {t.name: t for t in (await s.list_tools()).tools}
            reply = await s.call_tool(MESSAGE_TOOL, {"text": "Which company are you with?"})
            seen["reply"] = _payload(reply)

    anyio.run(client)
    assert seen["listChanged"] is True
    assert MESSAGE_TOOL not in seen["before"] and seen["early"]["code"] == "task_not_chosen"
    opening = seen["start"]["opening"]
    assert opening == seen["start"]["instruction"] and MESSAGE_TOOL in seen["start"]["conversation"]
    assert opening in str(seen["after"][MESSAGE_TOOL].description)
    assert len(seen["notified"]) == 1
    assert not seen["reply"]["isError"] and seen["reply"]["text"]


def test_in_memory_the_turn_budget_refuses_and_is_recorded(tmp_path: Path) -> None:
    spec = EpisodeSpec(
        env="crm",
        task="TASK-009",
        project_dir=REPO,
        runs_dir=tmp_path,
        budget={"max_user_turns": 1},
    )
    table = EpisodeTable(spec, spec.load())
    seen: dict[str, Any] = {}

    async def client() -> None:
        async with Client(build_server(table, "grade")) as c:
            seen["first"] = await c.call_tool(MESSAGE_TOOL, {"text": "Which company are you with?"})
            seen["over"] = await c.call_tool(MESSAGE_TOOL, {"text": "Which deal?"})
            seen["finish"] = _payload(await c.call_tool(FINISH_TOOL, {"answer": "x"}))

    try:
        anyio.run(client)
    finally:
        table.close_all()
    assert not seen["first"].is_error and "Kestrel" in _payload(seen["first"])["text"]
    over = _payload(seen["over"])
    assert seen["over"].is_error and over["isError"] and over["ended"]
    assert "budget.max_user_turns=1" in over["text"]
    run = _run_json(Path(seen["finish"]["runDir"]))
    assert (run["userTurns"], run["conversationEndedBy"]) == (1, "budget")
