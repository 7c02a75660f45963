"""The world's shape, typed, and how a fresh one is built from ``data/``.

A world is plain JSON values: collections keyed by id. ``create_state()`` reads the data files on
every call, so no two rollouts share an object.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypedDict

DATA = Path(__file__).parent / "data"


class Book(TypedDict):
    """One copy on the shelf; ``borrower`` is a member name, or ``None`` while it is available."""

    id: str
    title: str
    author: str
    borrower: str | None


class Library(TypedDict):
    """The whole world: every book, keyed by its id."""

    books: dict[str, Book]


def create_state() -> Library:
    """A fresh world from ``data/books.json``."""
    rows: list[Book] = json.loads((DATA / "books.json").read_text(encoding="utf-8"))
    return {"books": {row["id"]: row for row in rows}}
