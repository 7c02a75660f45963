"""Book tools, written with ``@tool``: the typed signature and docstring become the schema."""

from __future__ import annotations

from typing import Any

from silo import ToolError, tool

from ..state import Library


@tool(read_only=True)
def find_books(state: Library, query: str = "") -> list[dict[str, Any]]:
    """List the books whose title or author contains the query (every book when it is empty).

    Args:
        state: The world, passed by Silo (not part of the tool's input).
        query: Part of a title or an author's name, matched case-insensitively.
    """
    needle = query.lower()
    return [
        dict(book)  # a copy: the agent never holds live state
        for book in state["books"].values()
        if needle in book["title"].lower() or needle in book["author"].lower()
    ]


@tool
def lend_book(state: Library, book_id: str, member: str) -> dict[str, Any]:
    """Lend an available book to a member.

    Args:
        state: The world, passed by Silo (not part of the tool's input).
        book_id: The book's id, e.g. BOOK-1.
        member: The borrowing member's name.
    """
    book = state["books"].get(book_id)
    if book is None:
        raise ToolError("not_found", f"no book {book_id}; find_books lists the ids")
    if book["borrower"] is not None:
        raise ToolError("invalid_state", f"{book_id} is already lent to {book['borrower']}")
    book["borrower"] = member
    return {"id": book_id, "borrower": member}
