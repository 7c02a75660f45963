"""silo.toolkit.writes: the actor is checked before a write tool's body, and audited by the helper."""

from __future__ import annotations

from typing import Any

import pytest

from silo import ToolError
from silo.toolkit import AuditTrail, Sequences, Writes, actor_id, obj, text

WRITES = Writes(AuditTrail(Sequences()), actor_id(r"^USR-\d+$", "user", "USR-1"))


def world() -> dict[str, Any]:
    return {
        "now": "2026-03-16",
        "sequences": {},
        "auditLog": [],
        "users": {
            "USR-1": {"id": "USR-1", "name": "Ada", "active": True},
            "USR-2": {"id": "USR-2", "name": "Bo", "active": False},
        },
        "notes": {},
    }


def _add_note(state: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    state["notes"]["N-1"] = {"id": "N-1", "text": args["text"]}
    WRITES.audit(state, args, "note.created", "note", "N-1", {"length": len(args["text"])})
    return state["notes"]["N-1"]


ADD_NOTE = WRITES.tool(
    "add_note", "Add a note.", WRITES.input({"text": text("The note.")}, ["text"]), _add_note
)


def test_input_puts_the_actor_first_and_requires_it() -> None:
    schema = ADD_NOTE.input_schema
    assert list(schema["properties"]) == ["actorId", "text"]
    assert schema["required"] == ["actorId", "text"]
    assert schema["properties"]["actorId"]["pattern"] == r"^USR-\d+$"


def test_each_input_gets_its_own_copy_of_the_actor_schema() -> None:
    first = WRITES.input({})
    first["properties"]["actorId"]["description"] = "changed"
    assert WRITES.input({})["properties"]["actorId"]["description"] != "changed"


def test_an_active_actor_runs_the_body_and_the_row_names_them() -> None:
    state = world()
    assert ADD_NOTE.run(state, {"actorId": "USR-1", "text": "hi"}) == {"id": "N-1", "text": "hi"}
    assert state["auditLog"] == [
        {
            "id": "AUD-001",
            "at": "2026-03-16",
            "actorId": "USR-1",
            "action": "note.created",
            "entityType": "note",
            "entityId": "N-1",
            "details": {"length": 2},
        }
    ]


@pytest.mark.parametrize(
    ("actor", "code", "words"),
    [
        ("USR-9", "not_found", "actorId USR-9 is not a user; see list_users"),
        ("USR-2", "not_allowed", "deactivated"),
    ],
)
def test_an_unknown_or_deactivated_actor_is_refused_before_the_body(
    actor: str, code: str, words: str
) -> None:
    state = world()
    with pytest.raises(ToolError) as refused:
        ADD_NOTE.run(state, {"actorId": actor, "text": "hi"})
    assert refused.value.code == code
    assert words in refused.value.message
    assert state["notes"] == {} and state["auditLog"] == []


def test_a_write_tool_whose_input_does_not_require_the_actor_is_the_environments_mistake() -> None:
    with pytest.raises(ValueError, match="must require actorId"):
        WRITES.tool("bad", "No actor.", obj({"text": text("The note.")}, ["text"]), _add_note)
