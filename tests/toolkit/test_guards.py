"""silo.toolkit.guards: one clear ToolError per kind of bad input, nothing written on refusal."""

from __future__ import annotations

from datetime import date

import pytest

from silo import ToolError
from silo.toolkit import guards

STATE = {
    "users": {
        "U-1": {"id": "U-1", "name": "Ada", "active": True},
        "U-2": {"id": "U-2", "name": "Bo", "active": False},
    }
}


def refusal(call, *args, **kwargs) -> ToolError:  # type: ignore[no-untyped-def]
    with pytest.raises(ToolError) as caught:
        call(*args, **kwargs)
    return caught.value


def test_find_record_names_the_label_and_the_finder() -> None:
    assert guards.find_record(STATE, "users", "U-1", "user", "list_users")["name"] == "Ada"
    error = refusal(guards.find_record, STATE, "users", "U-9", "user", "list_users")
    assert (error.code, error.message, error.details) == (
        "not_found",
        "no user has id U-9; look it up with list_users",
        {"id": "U-9"},
    )


def test_acting_record_refuses_unknown_and_deactivated_actors() -> None:
    assert guards.acting_record(STATE, "users", "U-1", "user", "see list_users")["id"] == "U-1"
    unknown = refusal(guards.acting_record, STATE, "users", "U-9", "user", "see list_users")
    assert (unknown.code, unknown.message) == (
        "not_found",
        "actorId U-9 is not a user; see list_users",
    )
    inactive = refusal(guards.acting_record, STATE, "users", "U-2", "user", "see list_users")
    assert (inactive.code, inactive.message, inactive.details) == (
        "not_allowed",
        "Bo (U-2) is deactivated and cannot make changes; act as an active user",
        {"id": "U-2"},
    )


def test_require_active_words_the_consequence() -> None:
    error = refusal(guards.require_active, STATE["users"]["U-2"], "U-2", "cannot own records")
    assert error.message == "Bo (U-2) is deactivated and cannot own records"


def test_parse_day_refuses_impossible_dates() -> None:
    assert guards.parse_day("2026-03-16", "dueDate") == date(2026, 3, 16)
    error = refusal(guards.parse_day, "2026-02-30", "dueDate")
    assert (error.code, error.message) == (
        "invalid_input",
        "dueDate '2026-02-30' is not a real calendar date (YYYY-MM-DD)",
    )
    assert guards.parse_day("2026-03-16T09:00:00Z", "at", date_part=True) == date(2026, 3, 16)
    refusal(guards.parse_day, "2026-03-16T09:00:00Z", "at")


def test_blank_text_and_blank_queries() -> None:
    assert guards.non_blank("  Acme ", "name") == "Acme"
    assert refusal(guards.non_blank, "   ", "name").message == "name is blank; give it some text"
    assert guards.search_term({"query": "  NorthWind "}) == "northwind"
    assert refusal(guards.search_term, {"query": " "}).code == "invalid_input"


def test_changes_needs_at_least_one_field() -> None:
    assert guards.changes({"a": 1, "x": 2}, ("a", "b")) == {"a": 1}
    assert refusal(guards.changes, {"x": 2}, ("a", "b")).message == (
        "nothing to update; pass at least one of: a, b"
    )


def test_apply_changes_reports_from_to_and_copies_what_it_writes() -> None:
    record = {"id": "R-1", "tags": ["a"], "name": "Old"}
    new_tags = ["b"]
    diff = guards.apply_changes(record, {"tags": new_tags, "name": "Old"})
    assert diff == {"tags": {"from": ["a"], "to": ["b"]}}
    new_tags.append("c")
    assert record == {"id": "R-1", "tags": ["b"], "name": "Old"}


def test_apply_changes_refuses_a_no_op_and_writes_nothing() -> None:
    record = {"id": "R-1", "name": "Same"}
    error = refusal(guards.apply_changes, record, {"name": "Same"})
    assert (error.code, error.message) == (
        "conflict",
        "every value given already matches the record; nothing changed",
    )
    assert record == {"id": "R-1", "name": "Same"}
