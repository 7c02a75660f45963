"""The CRM's schema vocabulary: its id shapes, enums, limits and the builders made of them.

Contract: every builder returns a fresh plain dict. The generic builders (:func:`obj`,
:func:`text`, :func:`day`, :func:`choice`, :func:`flag`, :func:`email`, :func:`integer`,
:func:`query`, :func:`no_input`) are :mod:`silo.toolkit`'s, re-exported so tools import one
module; what is the CRM's own is here: id shapes (``ACC-004``), the actor, amounts in dollars,
long text, and paging with the CRM's default page size. Ranges (lengths, minimums, maximums,
enums, date and id patterns) are stated in the schema so the engine can refuse bad input before
a tool runs.
"""

from __future__ import annotations

from silo.toolkit import (
    Paging,
    Schema,
    choice,
    day,
    email,
    flag,
    integer,
    matching,
    no_input,
    number,
    obj,
    query,
    text,
)

__all__ = [
    "PAGING",
    "ACCOUNT_TIERS",
    "ACTIVITY_TYPES",
    "DEFAULT_LIMIT",
    "ID_PREFIXES",
    "LEAD_SOURCES",
    "LEAD_STATUSES",
    "OPPORTUNITY_STATUSES",
    "RELATED_TYPES",
    "Schema",
    "actor",
    "amount",
    "by_id",
    "choice",
    "day",
    "email",
    "flag",
    "integer",
    "listing",
    "long_text",
    "no_input",
    "obj",
    "paging",
    "query",
    "record_id",
    "searching",
    "text",
]

MAX_AMOUNT = 1_000_000_000
MAX_TEXT = 2000
DEFAULT_LIMIT = 50
MAX_LIMIT = 500

PAGING = Paging(default_limit=DEFAULT_LIMIT, max_limit=MAX_LIMIT)
"""The one page size of list and search tools, in their schemas and their windows."""

paging = PAGING.properties
listing = PAGING.listing
searching = PAGING.searching

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


def long_text(description: str) -> Schema:
    """Notes and reasons: may be empty, up to a few paragraphs."""
    return text(description, min_length=0, max_length=MAX_TEXT)


def record_id(kind: str, description: str) -> Schema:
    """The id of a record of ``kind`` (a key of :data:`ID_PREFIXES`)."""
    return matching(description, rf"^{ID_PREFIXES[kind]}-\d{{2,6}}$")


def actor(description: str = "") -> Schema:
    """The acting user's id; every mutating tool takes one."""
    return record_id(
        "user",
        description
        or "Id of the active user making this change (e.g. USR-002); recorded in the audit log.",
    )


def amount(description: str) -> Schema:
    """A positive amount of money in US dollars."""
    return number(description, exclusive_minimum=0, maximum=MAX_AMOUNT)


def by_id(kind: str, field: str, description: str) -> Schema:
    """The input of a tool that takes one record id and nothing else."""
    return obj({field: record_id(kind, description)}, [field])
