"""@tool says so when a parameter has no annotation (its schema would accept anything)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from silo import tool


def test_an_unannotated_parameter_warns_and_is_untyped() -> None:
    with pytest.warns(UserWarning, match=r"parameter 'title' has no type annotation") as caught:

        @tool
        def add_book(state: Any, title, year: int = 2000) -> Any:  # type: ignore[no-untyped-def]
            """Add a book."""

    assert caught[0].filename == __file__  # points at the tool's own module
    assert add_book.input_schema["properties"]["title"] == {}
    assert add_book.input_schema["properties"]["year"]["type"] == "integer"


def test_annotated_parameters_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")

        @tool
        def get_book(state: Any, book_id: str) -> Any:
            """Get a book."""

    assert get_book.input_schema["required"] == ["book_id"]
