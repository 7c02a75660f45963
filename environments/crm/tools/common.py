"""Guards and plumbing shared by every CRM tool.

Contract: the guards turn semantically bad input into :class:`silo.ToolError` refusals with the
conventional codes (``not_found`` for unknown ids, ``not_allowed`` for deactivated actors or
owners, ``invalid_input`` for impossible dates or empty updates), so tool bodies read as the
happy path. Tools take the generic readers (blank text, empty updates, search terms, detached
copies, id order) from :mod:`silo.toolkit`; what names the CRM's records, tools and clock is
defined here, on top of the toolkit's guards. :data:`WRITES` makes every write tool: it checks
the acting user before the tool's body runs and writes the audit row the body asks for.
:func:`page` is the one pagination used by list and search tools (with the CRM's page size).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from silo import ToolError
from silo.toolkit.guards import Record, find_record, parse_day, require_active
from silo.toolkit.writes import Writes

from ..state import AUDIT
from .schema import PAGING, actor

LABELS = {
    "users": "user",
    "accounts": "account",
    "contacts": "contact",
    "leads": "lead",
    "opportunities": "opportunity",
    "activities": "activity",
    "stages": "stage",
}


def fetch(state: Mapping[str, Any], collection: str, record_id: str) -> Record:
    """The record ``record_id`` of ``collection``, or a ``not_found`` refusal."""
    finder = f"list_{collection} or a search tool"
    return find_record(state, collection, record_id, LABELS[collection], finder)


WRITES = Writes(AUDIT, actor(), people="users", kind="user", hint="see list_users")
"""The CRM's write tools: ``actorId`` names an active user, and each change leaves audit rows."""


def assignable_user(state: Mapping[str, Any], user_id: str) -> Record:
    """A user who may own records: must exist and be active."""
    user = fetch(state, "users", user_id)
    return require_active(user, user_id, "cannot own records; pick an active user")


def future_day(state: Mapping[str, Any], value: str, field: str) -> str:
    """A date that is today or later in the world's clock."""
    if parse_day(value, field) < date.fromisoformat(state["now"]):
        raise ToolError(
            "invalid_input",
            f"{field} {value} is in the past; today is {state['now']}",
            {"today": state["now"]},
        )
    return value


def past_day(state: Mapping[str, Any], value: str, field: str) -> str:
    """A date that is today or earlier in the world's clock."""
    if parse_day(value, field) > date.fromisoformat(state["now"]):
        raise ToolError(
            "invalid_input",
            f"{field} {value} is in the future; today is {state['now']}",
            {"today": state["now"]},
        )
    return value


page = PAGING.page
"""``page(rows, args, view=None)``: ``{total, count, offset, results}`` for the window ``args``
asks for (copies of rows); ``view`` turns a stored record into what the agent sees, and only
the window is viewed."""
