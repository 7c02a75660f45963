"""Reference solver: proves every task can be solved through the tools alone.

``agent(inp)`` recognises the task by its wording, calls tools through ``inp.call_tool`` and
returns ``{"output": <answer text>}``. ``silo-run agent=solver`` and ``silo-validate`` run it.
"""

from __future__ import annotations

import re
from typing import Any


def agent(inp: Any) -> dict[str, str]:
    """Solve the task in ``inp.task``; a refused tool call is a bug in the solver, so it raises."""

    def call(name: str, args: dict[str, Any]) -> Any:
        result = inp.call_tool(name, args)
        if result["isError"]:
            raise RuntimeError(f"{name}({args}) was refused: {result['output']}")
        return result["output"]

    lend = re.search(r'Lend "(.+)" to (\w+)', inp.task)
    if lend:
        book = call("find_books", {"query": lend.group(1)})[0]
        call("lend_book", {"book_id": book["id"], "member": lend.group(2)})
        return {"output": f"Lent {book['id']} to {lend.group(2)}."}
    books = call("find_books", {})
    available = [b for b in books if b["borrower"] is None]
    return {"output": f"Books available: {len(available)}"}
