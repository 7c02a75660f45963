"""The CRM's schema vocabulary: its id shapes, enums, limits and the builders made of them.

Contract: every builder returns a fresh plain dict. Tools take the generic builders (objects,
text, dates, enums, flags, emails) from :mod:`silo.toolkit`; what is the CRM's own is here: id
shapes (``ACC-004``), the actor, amounts in dollars, long text, and :data:`PAGING`, the CRM's
page size for every listing's schema and window. Ranges (lengths, minimums, maximums,
enums, date and id patterns) are stated in the schema so the engine can refuse bad input before
a tool runs.
"""

from __future__ import annotations

from silo.toolkit.paging import Paging
from silo.toolkit.schema import Schema, actor_id, matching, number, obj, text

MAX_AMOUNT = 1_000_000_000
MAX_TEXT = 2000
DEFAULT_LIMIT = 50
MAX_LIMIT = 500

PAGING = Paging(default_limit=DEFAULT_LIMIT, max_limit=MAX_LIMIT)
"""The one page size of list and search tools, in their schemas and their windows."""

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


def id_pattern(kind: str) -> str:
    """The pattern of an id of ``kind`` (a key of :data:`ID_PREFIXES`): ``ACC-004``."""
    return rf"^{ID_PREFIXES[kind]}-\d{{2,6}}$"


def record_id(kind: str, description: str) -> Schema:
    """The id of a record of ``kind`` (a key of :data:`ID_PREFIXES`)."""
    return matching(description, id_pattern(kind))


def actor(description: str = "") -> Schema:
    """The acting user's id; every mutating tool takes one."""
    return actor_id(id_pattern("user"), "user", "USR-002", description)


def amount(description: str) -> Schema:
    """A positive amount of money in US dollars."""
    return number(description, exclusive_minimum=0, maximum=MAX_AMOUNT)


def by_id(kind: str, field: str, description: str) -> Schema:
    """The input of a tool that takes one record id and nothing else."""
    return obj({field: record_id(kind, description)}, [field])
