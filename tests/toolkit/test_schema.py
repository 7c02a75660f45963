"""silo.toolkit.schema: the builders' exact output, fresh dicts, and the checks they make."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from silo.toolkit import schema


def test_obj_is_closed_and_lists_required() -> None:
    made = schema.obj({"id": schema.text("Id.")}, ["id"])
    assert made == {
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "Id.", "minLength": 1, "maxLength": 200}
        },
        "required": ["id"],
        "additionalProperties": False,
    }
    Draft202012Validator.check_schema(made)


def test_obj_refuses_a_required_name_that_is_not_a_property() -> None:
    with pytest.raises(ValueError, match=r"required names missing from properties: \['nope'\]"):
        schema.obj({"id": schema.text("Id.")}, ["id", "nope"])


def test_key_order_is_fixed_so_the_offered_text_stays_the_same() -> None:
    assert list(schema.number("N.", minimum=0, maximum=5)) == [
        "type",
        "description",
        "minimum",
        "maximum",
    ]
    assert json.dumps(schema.number("Amount.", exclusive_minimum=0, maximum=10)) == (
        '{"type": "number", "description": "Amount.", "exclusiveMinimum": 0, "maximum": 10}'
    )
    assert list(schema.integer("I.", 1, 9, 3)) == [
        "type",
        "description",
        "minimum",
        "maximum",
        "default",
    ]


def test_optional_parts_are_left_out_unless_given() -> None:
    assert "default" not in schema.integer("I.", 1, 9)
    assert "default" not in schema.flag("F.")
    assert schema.flag("F.", False)["default"] is False
    assert schema.number("N.") == {"type": "number", "description": "N."}


def test_patterns_dates_emails_and_enums() -> None:
    assert schema.matching("Id.", r"^A-\d+$") == {
        "type": "string",
        "description": "Id.",
        "pattern": r"^A-\d+$",
    }
    assert schema.day("When.")["pattern"] == schema.DATE_PATTERN
    assert schema.choice(("a", "b"), "Pick.") == {
        "type": "string",
        "description": "Pick.",
        "enum": ["a", "b"],
    }
    check = Draft202012Validator(schema.email("Mail."))
    assert check.is_valid("a@b.co") and not check.is_valid("a@b") and not check.is_valid("a b@c.d")


def test_actor_id_words_the_default_description_and_accepts_another() -> None:
    made = schema.actor_id(r"^USR-\d{3}$", "user", "USR-002")
    assert made["description"] == (
        "Id of the active user making this change (e.g. USR-002); recorded in the audit log."
    )
    assert schema.actor_id(r"^U$", "user", "U", "Who approves.")["description"] == "Who approves."


def test_nullable_and_query_and_no_input() -> None:
    made = schema.nullable(schema.day("Due."), "Due, or null to clear it.")
    assert (
        made["anyOf"][1] == {"type": "null"} and made["description"] == "Due, or null to clear it."
    )
    assert schema.query()["description"] == schema.QUERY_DESCRIPTION
    assert schema.no_input() == schema.obj({})


def test_every_call_returns_a_fresh_dict() -> None:
    first = schema.text("T.")
    first["maxLength"] = 1
    assert schema.text("T.")["maxLength"] == 200
    properties = {"a": schema.flag("A.")}
    made = schema.obj(properties)
    made["properties"]["b"] = schema.flag("B.")
    assert list(properties) == ["a"]
