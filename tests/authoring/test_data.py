"""Data files edited through silo.authoring: whole files, or one record of a collection."""

from __future__ import annotations

from pathlib import Path

import pytest

from silo.authoring.data import add_data, list_data, remove_data, show_data, update_data
from silo.errors import SiloError
from silo.scaffold import create_environment


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return create_environment(tmp_path, "lib", "minimal")


def test_list_show_add_remove(root: Path) -> None:
    assert list_data(root) == [{"file": "books", "records": 3}]
    add_data(root, "members.json", {"Ada": {"since": 2020}})
    assert show_data(root, "members") == {"Ada": {"since": 2020}}
    assert list_data(root)[1] == {"file": "members", "records": 1}
    remove_data(root, "members")
    assert [row["file"] for row in list_data(root)] == ["books"]


def test_update_one_record_of_a_list_or_a_keyed_object(root: Path) -> None:
    update_data(root, "books", {"title": "Kim"}, record_id="BOOK-4")
    update_data(root, "books", {"title": "Dune II"}, record_id="BOOK-1")
    books = show_data(root, "books")
    assert [b["id"] for b in books] == ["BOOK-1", "BOOK-2", "BOOK-3", "BOOK-4"]
    assert books[0] == {"id": "BOOK-1", "title": "Dune II"} and books[3]["title"] == "Kim"
    add_data(root, "members", {"Ada": {"since": 2020}})
    update_data(root, "members", {"since": 2021}, record_id="Bo")
    assert show_data(root, "members") == {"Ada": {"since": 2020}, "Bo": {"since": 2021}}


def test_refusals(root: Path) -> None:
    with pytest.raises(SiloError, match="already exists"):
        add_data(root, "books", [])
    with pytest.raises(SiloError, match=r'no data file "nope" \(known: books\)'):
        show_data(root, "nope")
    add_data(root, "count", 3)
    with pytest.raises(SiloError, match="not a collection of records"):
        update_data(root, "count", {"x": 1}, record_id="A")
