"""Book tools: a name, a description, an input schema built with silo.toolkit, and a body.

The engine refuses input the schema rules out before the body runs; the body refuses what a
schema cannot know (an unknown or lent book) with a ``ToolError`` the agent reads.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.schema import obj, text

from ..state import Library


def _find_books(state: Library, args: dict[str, Any]) -> list[dict[str, Any]]:
    needle = args.get("query", "").lower()
    return [
        dict(book)  # a copy: the agent never holds live state
        for book in state["books"].values()
        if needle in book["title"].lower() or needle in book["author"].lower()
    ]


def _lend_book(state: Library, args: dict[str, Any]) -> dict[str, Any]:
    book_id, member = args["book_id"], args["member"]
    book = state["books"].get(book_id)
    if book is None:
        raise ToolError("not_found", f"no book {book_id}; find_books lists the ids")
    if book["borrower"] is not None:
        raise ToolError("invalid_state", f"{book_id} is already lent to {book['borrower']}")
    book["borrower"] = member
    return {"id": book_id, "borrower": member}


find_books: Tool = define_tool(
    "find_books",
    "List the books whose title or author contains the query (every book when it is empty).",
    obj({"query": text("Part of a title or an author's name, any case.", min_length=0)}),
    _find_books,
    read_only=True,
)

LENDING = {"book_id": text("The book's id, e.g. BOOK-1."), "member": text("The member's name.")}

lend_book: Tool = define_tool(
    "lend_book", "Lend an available book to a member.", obj(LENDING, list(LENDING)), _lend_book
)
