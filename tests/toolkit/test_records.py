"""silo.toolkit.records: ids from the sequences table, append-only audit rows."""

from __future__ import annotations

from typing import Any

from silo.toolkit import AuditTrail, Sequences


def world() -> dict[str, Any]:
    return {"now": "2026-03-16", "sequences": {"ACC": 11}, "auditLog": []}


def test_mint_advances_the_stored_counter_and_pads() -> None:
    ids = Sequences(widths={"AUD": 4})
    state = world()
    assert ids.mint(state, "ACC") == "ACC-012"
    assert ids.mint(state, "ACC") == "ACC-013"
    assert ids.mint(state, "AUD") == "AUD-0001"
    assert state["sequences"] == {"ACC": 13, "AUD": 1}


def test_a_prefix_without_a_counter_starts_after_unset() -> None:
    assert Sequences(unset=1).mint(world(), "PO") == "PO-002"


def test_record_appends_one_row_stamped_with_the_world_clock() -> None:
    trail = AuditTrail(Sequences(widths={"AUD": 4}))
    state = world()
    details = {"changes": {"name": {"from": "a", "to": "b"}}}
    row = trail.record(state, "USR-1", "account.updated", "account", "ACC-001", details)
    assert state["auditLog"] == [row]
    assert row == {
        "id": "AUD-0001",
        "at": "2026-03-16",
        "actorId": "USR-1",
        "action": "account.updated",
        "entityType": "account",
        "entityId": "ACC-001",
        "details": details,
    }
    details["changes"]["name"]["to"] = "c"
    assert row["details"]["changes"]["name"]["to"] == "b"
    assert trail.record(state, "USR-1", "account.created", "account", "ACC-002")["details"] == {}
    assert [r["id"] for r in state["auditLog"]] == ["AUD-0001", "AUD-0002"]
