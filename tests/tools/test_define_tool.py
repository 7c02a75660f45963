"""Tools: explicit schemas, the typed decorator form, ToolError outputs."""

from __future__ import annotations

from typing import Annotated, Literal

from jsonschema import Draft202012Validator
from pydantic import Field

from silo import ToolError, define_tool, tool


def test_define_tool_spec() -> None:
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    made = define_tool("ping", "Answer pong.", schema, lambda s, a: "pong", read_only=True)
    assert made.spec() == {"name": "ping", "description": "Answer pong.", "inputSchema": schema}
    assert made.read_only and made.run({}, {}) == "pong"


def test_decorator_derives_schema_from_signature_and_docstring() -> None:
    @tool(read_only=True)
    def list_deals(
        state: dict,
        owner_id: str,
        status: Literal["open", "won", "lost"] = "open",
        limit: Annotated[int, Field(ge=1, le=500)] = 50,
    ) -> dict:
        """List deals of one owner.

        Args:
            owner_id: The owner's user id, e.g. USR-004.
            status: Which deals to include.
            limit: Page size, 1 to 500.
        """
        return {"owner": owner_id, "status": status, "limit": limit}

    schema = list_deals.input_schema
    Draft202012Validator.check_schema(schema)
    assert list_deals.name == "list_deals" and list_deals.description == "List deals of one owner."
    assert schema["required"] == ["owner_id"] and schema["additionalProperties"] is False
    props = schema["properties"]
    assert props["owner_id"]["description"] == "The owner's user id, e.g. USR-004."
    assert props["status"]["enum"] == ["open", "won", "lost"]
    assert props["limit"]["minimum"] == 1 and props["limit"]["maximum"] == 500
    assert list_deals.run({}, {"owner_id": "U"}) == {"owner": "U", "status": "open", "limit": 50}


def test_tool_error_output_includes_details_only_when_given() -> None:
    assert ToolError("not_found", "No such deal.").to_output() == {
        "code": "not_found",
        "message": "No such deal.",
    }
    assert ToolError("conflict", "Same owner.", {"ownerId": "U"}).to_output()["details"] == {
        "ownerId": "U"
    }
