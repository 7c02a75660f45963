"""silo.grading.nothing_else_changed: the collateral-damage check read from the state diff."""

from __future__ import annotations

from typing import Any

from silo.grading import nothing_else_changed
from silo.tasks import Task
from silo.verifiers import VerifierContext

TASK = Task("TASK-002", "Move deals", "Move OPP-005 to USR-003.", "VER-002")


def _context(collections: dict[str, Any], scalars: Any = ()) -> VerifierContext:
    diff = {"scalars": list(scalars), "collections": collections}
    return VerifierContext("done", TASK, diff)


def _entry(added: Any = (), removed: Any = (), changed: Any = ()) -> dict[str, Any]:
    return {"added": list(added), "removed": list(removed), "changed": list(changed)}


def test_only_the_task_rows_and_appended_logs_pass() -> None:
    context = _context(
        {
            "opportunities": _entry(changed=["OPP-005"]),
            "auditLog": _entry(added=["AUD-0001"]),
            "sequences": _entry(changed=["AUD"]),
        }
    )
    found = nothing_else_changed(
        context, {"opportunities": ["OPP-005"], "sequences": None}, appendable=["auditLog"]
    )
    assert (found.passed, found.required, found.detail) == (True, False, "nothing else changed")


def test_rows_outside_the_task_and_rewritten_logs_and_scalars_fail_by_name() -> None:
    context = _context(
        {
            "opportunities": _entry(changed=["OPP-005", "OPP-009"]),
            "contacts": _entry(removed=["CON-003"]),
            "auditLog": _entry(added=["AUD-0002"], changed=["AUD-0001"]),
        },
        [{"field": "now", "from": "a", "to": "b", "change": "changed"}],
    )
    found = nothing_else_changed(context, {"opportunities": ["OPP-005"]}, ["auditLog"])
    assert not found.passed and not found.required
    assert found.detail == (
        "also changed: opportunities.OPP-009 (changed), contacts.CON-003 (removed), "
        "auditLog.AUD-0001 (changed), now (scalar)"
    )


def test_without_a_state_diff_the_check_fails_and_says_why() -> None:
    found = nothing_else_changed(VerifierContext("done", TASK), {})
    assert not found.passed
    assert found.detail == "the verifier context carries no state diff"


def test_without_a_diff_the_worlds_are_compared_row_by_row() -> None:
    initial = {"opportunities": {"OPP-005": {"o": "U4"}, "OPP-009": {"o": "U1"}}, "log": [1]}
    moved = {"opportunities": {"OPP-005": {"o": "U3"}, "OPP-009": {"o": "U1"}}, "log": [1, 2]}
    damaged = {"opportunities": {"OPP-005": {"o": "U3"}, "OPP-009": {"o": "U2"}}, "log": [2]}
    context = VerifierContext("done", TASK)
    rows = {"opportunities": ["OPP-005"]}
    assert nothing_else_changed(context, rows, ["log"], worlds=(moved, initial)).passed
    found = nothing_else_changed(context, rows, ["log"], worlds=(damaged, initial))
    assert (
        found.detail == "also changed: opportunities.OPP-009 (changed), log.(rewritten) (changed)"
    )


def test_numbers_are_read_as_a_person_writes_them_and_ids_are_not_numbers() -> None:
    from silo.grading import last_number_is, numbers_in, states_number

    assert numbers_in("$507,500 and 36.0% over 1,250,000") == [507500.0, 36.0, 1250000.0]
    assert numbers_in("-$5 and total -12.5") == [-5.0, -12.5]
    # An id, a sprint name or a date's month and day is not a figure the agent stated.
    assert numbers_in("WI-004 in Sprint-4, due 2026-03-16") == [2026.0]
    assert numbers_in("3,4 and 1,25") == [3.0, 4.0, 1.0, 25.0]
    answer = "I moved OPP-007 (Northwind) to $132,500."
    assert last_number_is(answer, 132500) and not states_number(answer, -7)
    assert not states_number("See OPP-132500 for details", 132500)
