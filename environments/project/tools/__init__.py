"""The project-tracking tools, gathered from one module per domain.

Contract: :data:`ALL_TOOLS` lists every tool once, in a stable order (clock, members, teams,
projects, sprints, work items, flow, planning, time, delivery reports, capacity reports). Tools
hold no state of their own: each ``run(state, input)`` acts on the world it is given, so one
list serves every world. Most tools are built with ``define_tool`` and an explicit schema; a
few read-only ones (``get_current_date``, ``list_workflow_states``, ``get_project_lead``,
``work_item_time_summary``, ``member_capacity_check``) use the ``@tool`` decorator, whose schema
comes from the function's signature.
"""

from __future__ import annotations

from silo import Tool
from silo.toolkit.registry import unique_tools

from . import (
    capacity_reports,
    clock,
    delivery_reports,
    flow,
    items,
    members,
    planning,
    projects,
    sprints,
    teams,
    time_logs,
)

ALL_TOOLS: list[Tool] = [
    *clock.TOOLS,
    *members.TOOLS,
    *teams.TOOLS,
    *projects.TOOLS,
    *sprints.TOOLS,
    *items.TOOLS,
    *flow.TOOLS,
    *planning.TOOLS,
    *time_logs.TOOLS,
    *delivery_reports.TOOLS,
    *capacity_reports.TOOLS,
]

unique_tools(ALL_TOOLS)

__all__ = ["ALL_TOOLS"]
