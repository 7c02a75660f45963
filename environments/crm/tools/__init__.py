"""The CRM's tools, gathered from one module per domain.

Contract: :data:`ALL_TOOLS` lists every tool once, in a stable order (clock, users, accounts,
contacts, leads, lead conversion, opportunities, deal flow, activities, reporting). Tools hold no state of their
own: each ``run(state, input)`` acts on the world it is given, so one list serves every world.
"""

from __future__ import annotations

from silo import Tool
from silo.toolkit.registry import unique_tools

from . import (
    accounts,
    activities,
    clock,
    contacts,
    conversion,
    deal_flow,
    leads,
    opportunities,
    reporting,
    users,
)

ALL_TOOLS: list[Tool] = [
    *clock.TOOLS,
    *users.TOOLS,
    *accounts.TOOLS,
    *contacts.TOOLS,
    *leads.TOOLS,
    *conversion.TOOLS,
    *opportunities.TOOLS,
    *deal_flow.TOOLS,
    *activities.TOOLS,
    *reporting.TOOLS,
]

unique_tools(ALL_TOOLS)

__all__ = ["ALL_TOOLS"]
