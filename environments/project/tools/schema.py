"""Builders for the JSON Schemas (Draft 2020-12) of tool inputs.

Contract: every builder returns a fresh plain dict. :func:`obj` is the only way an input object
is made, so every object schema carries ``type``, ``properties``, ``required`` and
``additionalProperties: false``; every property builder demands a description, because the
schema is what a model reads to learn how to call the tool. Ranges (lengths, bounds, enums,
date and id patterns) are stated in the schema so the engine refuses bad input before a tool
runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Schema = dict[str, Any]

DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
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


def obj(properties: Mapping[str, Schema], required: Sequence[str] = ()) -> Schema:
    """An input object: only the listed properties, the named ones required."""
    missing = [name for name in required if name not in properties]
    if missing:
        raise ValueError(f"required names missing from properties: {missing}")
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
    }


def text(description: str, *, max_length: int = 200) -> Schema:
    """A non-empty free-text string."""
    return {"type": "string", "description": description, "minLength": 1, "maxLength": max_length}


def ref(kind: str, description: str) -> Schema:
    """The id of a record of ``kind`` (a key of :data:`ID_PREFIXES`)."""
    prefix = ID_PREFIXES[kind]
    return {"type": "string", "description": description, "pattern": rf"^{prefix}-\d{{2,6}}$"}


def nullable_ref(kind: str, description: str) -> Schema:
    """An id of ``kind`` or null (null clears the link)."""
    return {"anyOf": [ref(kind, description), {"type": "null"}], "description": description}


def actor() -> Schema:
    """The acting member's id; every mutating tool takes one."""
    return ref(
        "member",
        "Id of the active member making this change (e.g. MEM-001); recorded in the audit log.",
    )


def day(description: str) -> Schema:
    """A calendar date written YYYY-MM-DD."""
    return {"type": "string", "description": description, "pattern": DATE_PATTERN}


def nullable_day(description: str) -> Schema:
    """A date or null (null clears it)."""
    return {"anyOf": [day(description), {"type": "null"}], "description": description}


def number(description: str, minimum: float, maximum: float) -> Schema:
    """A bounded number (fractions allowed)."""
    return {"type": "number", "description": description, "minimum": minimum, "maximum": maximum}


def integer(description: str, minimum: int, maximum: int) -> Schema:
    """A bounded whole number."""
    return {"type": "integer", "description": description, "minimum": minimum, "maximum": maximum}


def points(description: str) -> Schema:
    """A story-point estimate."""
    return integer(description, 0, MAX_POINTS)


def choice(values: Iterable[str], description: str) -> Schema:
    """One string out of a fixed set."""
    return {"type": "string", "description": description, "enum": list(values)}


def flag(description: str) -> Schema:
    """A boolean; as a filter, leaving it out means "either"."""
    return {"type": "boolean", "description": description}


def paging() -> dict[str, Schema]:
    """The ``limit`` and ``offset`` properties every list and search tool accepts."""
    return {
        "limit": integer(
            f"Maximum number of results to return (default {DEFAULT_LIMIT}).", 1, MAX_LIMIT
        ),
        "offset": integer("Number of matching results to skip (default 0).", 0, 1_000_000),
    }


def listing(filters: Mapping[str, Schema], required: Sequence[str] = ()) -> Schema:
    """An input object made of optional filters plus paging."""
    return obj({**filters, **paging()}, required)


def searching() -> Schema:
    """The input of a search tool: a query plus paging."""
    query = text("Text to look for; matched case-insensitively anywhere in the searched fields.")
    return listing({"query": query}, ["query"])


def by_id(kind: str, field: str, example: str) -> Schema:
    """The input of a tool that reads one record by its id."""
    return obj({field: ref(kind, f"Id of the {kind}, e.g. {example}.")}, [field])


def change(kind: str, field: str, extra: Mapping[str, Schema], required: Sequence[str]) -> Schema:
    """The input of a mutating tool on one record: actor, the record's id and ``extra``."""
    return obj(
        {"actorId": actor(), field: ref(kind, f"Id of the {kind} to change."), **extra},
        ["actorId", field, *required],
    )
