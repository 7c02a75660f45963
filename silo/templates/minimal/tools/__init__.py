"""The tools an agent may call, gathered in one list (``silo-env tool add`` appends to it).

Tools hold no state of their own: each acts on the world its call receives.
"""

from __future__ import annotations

from silo import Tool

from .books import find_books, lend_book

__all__ = ["TOOLS"]

TOOLS: list[Tool] = [
    find_books,
    lend_book,
]
