"""silo.toolkit.paging: the schema's default page size is the window's."""

from __future__ import annotations

from silo.toolkit import Paging, schema

ROWS = [{"id": f"R-{n:02d}", "n": n} for n in range(1, 8)]


def test_properties_state_the_page_size_once() -> None:
    props = Paging(default_limit=3, max_limit=10).properties()
    assert props["limit"] == {
        "type": "integer",
        "description": "Maximum number of results to return (default 3).",
        "minimum": 1,
        "maximum": 10,
        "default": 3,
    }
    assert props["offset"]["default"] == 0 and props["offset"]["maximum"] == 1_000_000


def test_defaults_can_be_stated_in_words_only() -> None:
    props = Paging(state_defaults=False, offset_description="Skip these.").properties()
    assert "default" not in props["limit"] and "default" not in props["offset"]
    assert props["offset"]["description"] == "Skip these."


def test_listing_and_searching_inputs() -> None:
    paging = Paging()
    made = paging.listing({"status": schema.choice(("a",), "S.")})
    assert list(made["properties"]) == ["status", "limit", "offset"] and made["required"] == []
    search = paging.searching({"status": schema.choice(("a",), "S.")})
    assert list(search["properties"]) == ["query", "status", "limit", "offset"]
    assert search["required"] == ["query"]


def test_page_without_limit_uses_the_default_the_schema_promises() -> None:
    result = Paging(default_limit=3).page(ROWS, {})
    assert [r["n"] for r in result["results"]] == [1, 2, 3]
    assert (result["total"], result["count"], result["offset"]) == (7, 3, 0)


def test_page_window_and_view() -> None:
    result = Paging().page(ROWS, {"limit": 2, "offset": 5}, lambda row: {"id": row["id"]})
    assert result == {
        "total": 7,
        "count": 2,
        "offset": 5,
        "results": [{"id": "R-06"}, {"id": "R-07"}],
    }
