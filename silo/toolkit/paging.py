"""Paging of list and search tools: the schema a model reads and the window a call gets, agreed.

Contract: one :class:`Paging` per environment states its page size once; the ``limit`` and
``offset`` properties it puts in every listing's schema (:meth:`Paging.properties`,
:meth:`Paging.listing`, :meth:`Paging.searching`) and the window :meth:`Paging.page` cuts use
the same default, so what a tool does when ``limit`` is left out is what its schema says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from silo.json_types import JSON
from silo.toolkit.results import View, page
from silo.toolkit.schema import Schema, integer, obj, query

__all__ = ["OFFSET_DESCRIPTION", "Paging"]

OFFSET_DESCRIPTION = "Number of matching results to skip before the first one returned (default 0)."
"""What ``offset`` is said to mean unless an environment words it otherwise."""


@dataclass(frozen=True)
class Paging:
    """How an environment's list and search tools page their results.

    Attributes:
        default_limit: The page size when a call leaves ``limit`` out.
        max_limit: The largest page a call may ask for.
        state_defaults: Whether the schemas carry ``default`` values besides the wording.
        offset_description: What ``offset`` is said to mean.
    """

    default_limit: int = 50
    max_limit: int = 500
    state_defaults: bool = True
    offset_description: str = OFFSET_DESCRIPTION

    def properties(self) -> dict[str, Schema]:
        """The ``limit`` and ``offset`` properties, to merge into a tool's input."""
        return {
            "limit": integer(
                f"Maximum number of results to return (default {self.default_limit}).",
                1,
                self.max_limit,
                self.default_limit if self.state_defaults else None,
            ),
            "offset": integer(
                self.offset_description, 0, 1_000_000, 0 if self.state_defaults else None
            ),
        }

    def listing(self, filters: Mapping[str, Schema], required: Sequence[str] = ()) -> Schema:
        """The input of a list tool: ``filters`` (optional unless ``required``), then paging."""
        return obj({**filters, **self.properties()}, required)

    def searching(self, filters: Mapping[str, Schema] | None = None) -> Schema:
        """The input of a search tool: a required :func:`query`, optional ``filters``, paging."""
        return self.listing({"query": query(), **(filters or {})}, ["query"])

    def page(
        self, rows: Sequence[Mapping[str, JSON]], args: Mapping[str, JSON], view: View | None = None
    ) -> dict[str, JSON]:
        """``{total, count, offset, results}`` of the window ``args`` asks for (see :func:`page`)."""
        return page(rows, args, view, default_limit=self.default_limit)
