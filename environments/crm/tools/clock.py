"""Clock tool: the simulation's frozen date.

Contract: ``get_current_date`` reports ``state["now"]``, the only clock of this world; nothing
in the CRM reads the real time, so a run happens at a single instant and replays identically.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, define_tool
from silo.toolkit.schema import no_input


def _get_current_date(state: dict[str, Any], args: dict[str, Any]) -> dict[str, str]:
    return {"today": state["now"]}


TOOLS: list[Tool] = [
    define_tool(
        "get_current_date",
        "Today's date in the CRM (YYYY-MM-DD). Use it for 'today', overdue and staleness "
        "questions; it does not change during a task.",
        no_input(),
        _get_current_date,
        read_only=True,
    ),
]
