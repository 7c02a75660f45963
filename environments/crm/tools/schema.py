"""Builders for the JSON Schemas (Draft 2020-12) of tool inputs.

Contract: every builder returns a fresh plain dict. :func:`obj` is the only way an input object
is made, so every object schema carries ``type``, ``properties``, ``required`` and
``additionalProperties: false``; every property builder demands a description, because the
schema is what a model reads to learn how to call the tool. Ranges (lengths, minimums,
maximums, enums, date and id patterns) are stated in the schema so the engine can refuse bad
input before a tool runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Schema = dict[str, Any]

DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
MAX_AMOUNT = 1_000_000_000
MAX_TEXT = 2000
DEFAULT_LIMIT = 50
MAX_LIMIT = 500

ACCOUNT_TIERS = ("enterprise", "mid-market", "smb")
LEAD_SOURCES = ("web", "referral", "event", "outbound", "partner")
LEAD_STATUSES = ("new", "working", "qualified", "disqualified", "converted")
OPPORTUNITY_STATUSES = ("open", "won", "lost", "closed")
ACTIVITY_TYPES = ("call", "email", "meeting", "task", "note")
RELATED_TYPES = ("account", "contact", "lead", "opportunity")
ID_PREFIXES = {
    "user": "USR",
    "account": "ACC",
    "contact": "CON",
    "lead": "LEAD",
    "opportunity": "OPP",
    "activity": "ACT",
    "stage": "STG",
}


def obj(properties: Mapping[str, Schema], required: Sequence[str] = ()) -> Schema:
    """An input object: only the listed properties, the named ones required."""
    unknown = [name for name in required if name not in properties]
    if unknown:
        raise ValueError(f"required names missing from properties: {unknown}")
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
    }


def text(description: str, *, min_length: int = 1, max_length: int = 200) -> Schema:
    """A free-text string."""
    return {
        "type": "string",
        "description": description,
        "minLength": min_length,
        "maxLength": max_length,
    }


def long_text(description: str) -> Schema:
    """Notes and reasons: may be empty, up to a few paragraphs."""
    return text(description, min_length=0, max_length=MAX_TEXT)


def record_id(kind: str, description: str) -> Schema:
    """The id of a record of ``kind`` (a key of :data:`ID_PREFIXES`)."""
    prefix = ID_PREFIXES[kind]
    return {"type": "string", "description": description, "pattern": rf"^{prefix}-\d{{2,6}}$"}


def actor(description: str = "") -> Schema:
    """The acting user's id; every mutating tool takes one."""
    return record_id(
        "user",
        description
        or "Id of the active user making this change (e.g. USR-002); recorded in the audit log.",
    )


def day(description: str) -> Schema:
    """A calendar date written YYYY-MM-DD."""
    return {"type": "string", "description": description, "pattern": DATE_PATTERN}


def amount(description: str) -> Schema:
    """A positive amount of money in US dollars."""
    return {
        "type": "number",
        "description": description,
        "exclusiveMinimum": 0,
        "maximum": MAX_AMOUNT,
    }


def integer(description: str, minimum: int, maximum: int, default: int | None = None) -> Schema:
    """A bounded whole number."""
    schema: Schema = {
        "type": "integer",
        "description": description,
        "minimum": minimum,
        "maximum": maximum,
    }
    if default is not None:
        schema["default"] = default
    return schema


def choice(values: Iterable[str], description: str) -> Schema:
    """One string out of a fixed set."""
    return {"type": "string", "description": description, "enum": list(values)}


def flag(description: str, default: bool | None = None) -> Schema:
    """A boolean; filters leave ``default`` out (omitted means "either"), switches state it."""
    schema: Schema = {"type": "boolean", "description": description}
    if default is not None:
        schema["default"] = default
    return schema


def email(description: str) -> Schema:
    """An email address."""
    return {
        "type": "string",
        "description": description,
        "pattern": r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
        "maxLength": 200,
    }


def query() -> Schema:
    """The free-text term of a search tool."""
    return text("Text to look for; matched case-insensitively anywhere in the searched fields.")


def paging() -> dict[str, Schema]:
    """The ``limit`` and ``offset`` properties every list and search tool accepts."""
    return {
        "limit": integer(
            f"Maximum number of results to return (default {DEFAULT_LIMIT}).",
            1,
            MAX_LIMIT,
            DEFAULT_LIMIT,
        ),
        "offset": integer(
            "Number of matching results to skip before the first one returned (default 0).",
            0,
            1_000_000,
            0,
        ),
    }


def listing(filters: Mapping[str, Schema], required: Sequence[str] = ()) -> Schema:
    """An input object made of optional filters plus paging."""
    return obj({**filters, **paging()}, required)


def no_input() -> Schema:
    """The input of a tool that takes no arguments."""
    return obj({})
