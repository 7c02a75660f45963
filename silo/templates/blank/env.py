"""The environment's entrypoint: Silo imports this file and uses three exports.

* ``create_state()`` builds a fresh world for every rollout. Return a dict of JSON values
  (collections keyed by id, lists for logs); load facts from ``data/*.json`` and build new
  objects on every call, so no two worlds share anything.
* ``bind_tools(state)`` returns the tools an agent may call on that world: build them with
  ``define_tool`` (explicit JSON Schema) or the ``@tool`` decorator (typed signature). Tools
  raise ``ToolError`` for refusals the agent can act on, and return copies, never live state.
* ``verifiers`` lists ``define_verifier(id, name, check)`` results; each task in ``tasks/``
  names its verifier in ``verifierId``. ``check(final, initial, context)`` inspects the world
  and returns ``check(...)`` (required) and ``optional(...)`` records.

Next: add data, tools, a task file and its verifier, then run ``silo-validate env=<name>``.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, Verifier


def create_state() -> dict[str, Any]:
    """A fresh world; e.g. ``{"now": "2026-03-16", "items": json.loads(data_file.read_text())}``."""
    return {}


TOOLS: list[Tool] = []


def bind_tools(state: dict[str, Any]) -> list[Tool]:
    """The tools an agent may call on ``state`` (each receives the state as ``run(state, input)``)."""
    return list(TOOLS)


verifiers: list[Verifier] = []
