"""Clock tool: the simulation's frozen date.

Contract: ``get_current_date`` reports ``state["now"]``, the only clock of this world; nothing
in the environment reads the real time, so a run happens at a single instant and replays
identically. Written with the ``@tool`` decorator: the schema comes from the signature.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, tool


@tool(read_only=True)
def get_current_date(state: dict[str, Any]) -> dict[str, str]:
    """Today's date in the tracker (YYYY-MM-DD); it does not change during a task.

    Args:
        state: The world; Silo passes it, the agent never does.
    """
    return {"today": state["now"]}


TOOLS: list[Tool] = [get_current_date]
