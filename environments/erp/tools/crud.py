"""Builders of the read tools every domain has: list with filters, search, get one.

Contract: :func:`list_tool` filters a collection by equality on the named fields (and an
optional predicate), sorts by id and pages; :func:`search_tool` matches the query
case-insensitively against the fields a function picks from each record; :func:`get_tool`
returns one record through a view. All three are read-only and return detached copies, so a
domain file declares what differs (names, filters, views) and never repeats the plumbing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from silo import Tool, define_tool
from silo.toolkit.guards import Args, search_term
from silo.toolkit.results import contains, filtered, snapshot, sorted_by_id
from silo.toolkit.schema import Schema

from .common import State, fetch, page
from .schema import by_id, listing, searching

Row = Mapping[str, Any]
ViewFn = Callable[[Mapping[str, Any], Row], Mapping[str, Any]]
Predicate = Callable[[State, Args, Row], bool]


def _viewer(state: State, view: ViewFn | None) -> Callable[[Row], Mapping[str, Any]] | None:
    return (lambda row: view(state, row)) if view else None


def list_tool(
    name: str,
    description: str,
    collection: str,
    filters: Mapping[str, Schema],
    *,
    view: ViewFn | None = None,
    extra: Predicate | None = None,
    equal_fields: Iterable[str] | None = None,
) -> Tool:
    """A paged listing of ``collection`` filtered by the schema's ``filters``.

    Args:
        name: tool name.
        description: what a model reads.
        collection: state key listed.
        filters: filter properties; those in ``equal_fields`` (default: all) compare by
            equality with the record's field of the same name.
        view: read model applied to each returned row.
        extra: a further predicate for filters that are not plain equality.
        equal_fields: which filters are equality filters.
    """
    fields = tuple(filters if equal_fields is None else equal_fields)

    def run(state: State, args: Args) -> dict[str, Any]:
        rows = filtered(state[collection].values(), args, fields)
        if extra is not None:
            rows = [row for row in rows if extra(state, args, row)]
        return page(rows, args, _viewer(state, view))

    return define_tool(name, description, listing(filters), run, read_only=True)


def search_tool(
    name: str,
    description: str,
    collection: str,
    haystack: Callable[[Row], Iterable[Any]],
    *,
    view: ViewFn | None = None,
) -> Tool:
    """A search of ``collection``: records where any value ``haystack`` yields contains the query."""

    def run(state: State, args: Args) -> dict[str, Any]:
        term = search_term(args)
        rows = [
            row for row in sorted_by_id(state[collection].values()) if contains(term, haystack(row))
        ]
        return page(rows, args, _viewer(state, view))

    return define_tool(name, description, searching(), run, read_only=True)


def get_tool(
    name: str,
    description: str,
    collection: str,
    kind: str,
    field: str,
    *,
    view: ViewFn | None = None,
    example: str = "",
) -> Tool:
    """A lookup of one record of ``collection`` by the id in ``field``."""

    def run(state: State, args: Args) -> dict[str, Any]:
        record = fetch(state, collection, args[field])
        return snapshot(view(state, record) if view else record)

    described = f"Id of the {kind.replace('_', ' ')}" + (f", e.g. {example}." if example else ".")
    return define_tool(name, description, by_id(kind, field, described), run, read_only=True)
