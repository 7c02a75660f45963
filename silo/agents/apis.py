"""The model agents by the API they speak, for a model in another role: a user, a judge.

Contract: :data:`MODEL_APIS` maps an API's name (``openai``, ``anthropic``: the names of
``conf/agent``, ``conf/user`` and ``conf/judge``) to the :class:`~silo.agents.model.ModelAgent`
class that speaks it, so a simulated user or a judge sends its requests through the agents' own
code, endpoints and loop. :func:`refusing_tools` is the ``call_tool`` of a model in such a role:
it is offered no tool, so one it asks for raises the role's own failure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from silo.agents.anthropic import AnthropicAgent
from silo.agents.model import ModelAgent
from silo.agents.openai import OpenAIAgent
from silo.json_types import JSON

__all__ = ["MODEL_APIS", "refusing_tools"]

MODEL_APIS: Mapping[str, type[ModelAgent]] = {"openai": OpenAIAgent, "anthropic": AnthropicAgent}


def refusing_tools(failure: Callable[[], BaseException]) -> Callable[..., JSON]:
    """A ``call_tool`` that raises ``failure()`` for any tool the model asks for."""

    def call_tool(name: str, input: JSON = None) -> JSON:
        raise failure()

    return call_tool
