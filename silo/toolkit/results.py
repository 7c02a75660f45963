"""What list and search tools hand back: detached copies, in a stable order, one page at a time.

Contract: nothing here writes to the world or hands out a live part of it. :func:`snapshot`
detaches a stored record (editing the copy cannot touch the state); :func:`page` is the
``{total, count, offset, results}`` window of a listing, viewing and copying only the rows in
the window; :func:`sorted_by_id` is the stable order of listings; :func:`filtered` is the plain
equality filter of list tools; :func:`contains` the case-insensitive match of search tools.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from silo.json_types import JSON
from silo.jsonio import plain_copy

__all__ = ["View", "contains", "filtered", "page", "snapshot", "sorted_by_id"]

View = Callable[[Mapping[str, JSON]], Mapping[str, JSON]]
"""Turns a stored record into what the agent sees (joined names, derived figures)."""

RecordT = TypeVar("RecordT", bound=Mapping[str, JSON])


def snapshot(record: Mapping[str, JSON]) -> dict[str, JSON]:
    """A deep, plain copy of a stored record, safe to hand out."""
    copied = plain_copy(record if isinstance(record, dict) else dict(record))
    return copied if type(copied) is dict else dict(copied)


def page(
    rows: Sequence[Mapping[str, JSON]],
    args: Mapping[str, JSON],
    view: View | None = None,
    *,
    default_limit: int = 50,
) -> dict[str, JSON]:
    """``{total, count, offset, results}`` for the window ``args`` asks for.

    Args:
        rows: Every matching row, in the listing's order.
        args: The call's input; ``limit`` (else ``default_limit``) and ``offset`` (else 0).
        view: Applied to each row of the window only, before it is copied.
        default_limit: The page size the schema promises (see :func:`silo.toolkit.paging`).
    """
    limit = int(args.get("limit", default_limit))
    offset = int(args.get("offset", 0))
    window = [snapshot(view(row) if view else row) for row in rows[offset : offset + limit]]
    return {"total": len(rows), "count": len(window), "offset": offset, "results": window}


def sorted_by_id(records: Iterable[RecordT]) -> list[RecordT]:
    """Records in ``id`` order, so listings are stable."""
    return sorted(records, key=lambda record: record["id"])


def filtered(
    records: Iterable[RecordT], args: Mapping[str, JSON], fields: Sequence[str]
) -> list[RecordT]:
    """The records equal to ``args`` on each of ``fields`` that ``args`` gives, in id order.

    An absent filter matches everything; a record without the field matches only ``None``.
    """
    wanted = [(name, args[name]) for name in fields if name in args]
    return sorted_by_id(
        record for record in records if all(record.get(name) == value for name, value in wanted)
    )


def contains(term: str, values: Iterable[JSON]) -> bool:
    """Whether ``term`` (already case-folded) occurs in any non-empty value, in any case."""
    return any(term in str(value).casefold() for value in values if value)
