"""Builders for the JSON Schemas (Draft 2020-12) of tool inputs.

Contract: every builder returns a fresh plain dict. Tools take the generic builders (objects,
text, dates, enums, flags, integers) from :mod:`silo.toolkit`; what is the project world's own
is here: id shapes (``WI-007``), the acting member, story points, and :data:`PAGING`, paging as
this world words it (no schema defaults). Ranges (lengths, bounds, enums, date and id patterns) are stated in the schema so the
engine refuses bad input before a tool runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from silo.toolkit.paging import Paging
from silo.toolkit.schema import Schema, actor_id, day, integer, matching, nullable, obj
from silo.toolkit.schema import number as any_number

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
MAX_POINTS = 100
MAX_CAPACITY = 80

ROLES = ("engineer", "lead", "manager", "designer")
ITEM_TYPES = ("story", "task", "bug")
PRIORITIES = ("low", "medium", "high", "critical")
SPRINT_STATUSES = ("planned", "active", "completed")
PROJECT_STATUSES = ("active", "on_hold", "completed")
ID_PREFIXES = {
    "member": "MEM",
    "team": "TEAM",
    "project": "PROJ",
    "sprint": "SPR",
    "item": "WI",
    "state": "WS",
    "log": "TL",
}


PAGING = Paging(
    default_limit=DEFAULT_LIMIT,
    max_limit=MAX_LIMIT,
    state_defaults=False,
    offset_description="Number of matching results to skip (default 0).",
)
"""The one page size of list and search tools; their schemas state it in words only."""

paging = PAGING.properties
listing = PAGING.listing
searching = PAGING.searching


def id_pattern(kind: str) -> str:
    """The pattern of an id of ``kind`` (a key of :data:`ID_PREFIXES`): ``WI-007``."""
    return rf"^{ID_PREFIXES[kind]}-\d{{2,6}}$"


def ref(kind: str, description: str) -> Schema:
    """The id of a record of ``kind`` (a key of :data:`ID_PREFIXES`)."""
    return matching(description, id_pattern(kind))


def nullable_ref(kind: str, description: str) -> Schema:
    """An id of ``kind`` or null (null clears the link)."""
    return nullable(ref(kind, description), description)


def actor() -> Schema:
    """The acting member's id; every mutating tool takes one."""
    return actor_id(id_pattern("member"), "member", "MEM-001")


def nullable_day(description: str) -> Schema:
    """A date or null (null clears it)."""
    return nullable(day(description), description)


def number(description: str, minimum: float, maximum: float) -> Schema:
    """A bounded number (fractions allowed)."""
    return any_number(description, minimum=minimum, maximum=maximum)


def points(description: str) -> Schema:
    """A story-point estimate."""
    return integer(description, 0, MAX_POINTS)


def by_id(kind: str, field: str, example: str) -> Schema:
    """The input of a tool that reads one record by its id."""
    return obj({field: ref(kind, f"Id of the {kind}, e.g. {example}.")}, [field])


def change(kind: str, field: str, extra: Mapping[str, Schema], required: Sequence[str]) -> Schema:
    """The input of a mutating tool on one record: actor, the record's id and ``extra``."""
    return obj(
        {"actorId": actor(), field: ref(kind, f"Id of the {kind} to change."), **extra},
        ["actorId", field, *required],
    )
