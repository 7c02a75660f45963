"""silo.toolkit.results: detached copies, id order, equality filters, case-insensitive match."""

from __future__ import annotations

from silo.toolkit import contains, filtered, page, snapshot, sorted_by_id


def test_snapshot_is_detached() -> None:
    stored = {"id": "A-1", "tags": ["x"]}
    copy = snapshot(stored)
    copy["tags"].append("y")
    assert stored["tags"] == ["x"]


def test_page_copies_only_the_window_and_views_only_it() -> None:
    rows = [{"id": "A-1", "tags": []}, {"id": "A-2", "tags": []}, {"id": "A-3", "tags": []}]
    viewed: list[str] = []

    def view(row: dict) -> dict:
        viewed.append(row["id"])
        return row

    result = page(rows, {"limit": 1, "offset": 1}, view)
    assert viewed == ["A-2"]
    result["results"][0]["tags"].append("z")
    assert rows[1]["tags"] == []


def test_page_default_limit() -> None:
    rows = [{"id": str(n)} for n in range(60)]
    assert page(rows, {})["count"] == 50
    assert page(rows, {}, default_limit=7)["count"] == 7


def test_sorted_by_id_and_filtered() -> None:
    rows = [{"id": "B", "s": "open"}, {"id": "A", "s": "done"}, {"id": "C", "s": "open"}]
    assert [r["id"] for r in sorted_by_id(rows)] == ["A", "B", "C"]
    assert [r["id"] for r in filtered(rows, {"s": "open", "other": 1}, ["s"])] == ["B", "C"]
    assert [r["id"] for r in filtered(rows, {}, ["s"])] == ["A", "B", "C"]
    assert filtered([{"id": "X"}], {"s": None}, ["s"]) == [{"id": "X"}]


def test_contains_ignores_case_and_empty_values() -> None:
    assert contains("north", ["Northwind Freight", None])
    assert not contains("north", ["", None, "South"])
    assert contains("12", [12])
