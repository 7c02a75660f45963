"""A model plays the user: an OpenAI-compatible or Anthropic endpoint, seeded and traced.

Contract: :class:`ModelUser` (``user=openai``, ``user=anthropic``) answers each agent message
with one completion from a model whose system prompt is built from the task's ``user`` block
(:func:`system_prompt`: persona, goal, the opening it already sent, the facts it may reveal
only when asked, how to end). The conversation is sent with the roles swapped: the agent's
messages as ``user`` turns, the user's own as ``assistant`` turns. The model ends the
conversation by putting :data:`STOP` in its reply (removed from the text the agent gets). Every
completion goes through the agents' shared endpoints on the model loop (one session, backoff,
adaptive limit) and
is traced as a ``user_model_step`` event (retries as ``user_model_retry``), shaped like the
agent's ``model_step``. The request seed is ``user.seed`` when set, else the rollout's seed, and
``identity`` records it. Any failure of the endpoint raises :class:`UserFailure`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from silo.agents.apis import MODEL_APIS, refusing_tools
from silo.agents.contract import AgentError, AgentInput, ModelError, RunLimitError
from silo.json_types import JSON
from silo.tasks import UserSpec
from silo.users.base import UserFailure, UserTurn, UserView

__all__ = ["STOP", "ModelUser", "system_prompt"]

STOP = "###STOP###"


def system_prompt(spec: UserSpec) -> str:
    """The user model's instructions, from the task's ``user`` block."""
    facts = "\n".join(f"- {fact.name}: {fact.value}" for fact in spec.facts) or "- (none)"
    return (
        "You are playing a user talking to a customer-service agent. Stay in character; never "
        "say you are an AI or a simulation.\n"
        f"Who you are: {spec.persona}\n"
        f"What you want: {spec.goal}\n"
        f'You opened the conversation with: "{spec.opening}"\n'
        "What you know, to say ONLY when the agent asks for it (never volunteer it, never invent "
        f"anything else; if asked something you do not know, say you do not know):\n{facts}\n"
        "Keep each message short. When the agent has told you your request is done (or cannot "
        f"be done), say goodbye and end your message with {STOP}."
    )


_NO_TOOLS = refusing_tools(
    lambda: UserFailure("the user model asked for a tool; simulated users have none")
)


class ModelUser:
    """A model playing the user; ``api`` is the API it speaks (see the module)."""

    deterministic: ClassVar[bool] = False

    def __init__(
        self, model: str | None = None, seed: int | None = None, *, api: str, **settings: Any
    ):
        if api not in MODEL_APIS:
            raise UserFailure(f"user={api}: not a model API; use one of {', '.join(MODEL_APIS)}")
        self.agent_class = MODEL_APIS[api]
        kind = api
        if not model:
            example = self.agent_class.example_model
            raise UserFailure(f"set user.model=<model name> (e.g. user.model={example})")
        try:  # checked here, when built from config: a bad setting is a run that cannot start
            self.template = self.agent_class(model=model, seed=seed, **settings)
        except AgentError as exc:
            raise UserFailure(f"user={kind}: {str(exc).replace('agent.', 'user.')}") from None
        self.model, self.seed, self.settings = model, seed, settings

    def identity(self, seed: int) -> dict[str, JSON]:
        """The model's identity with the seed the requests carry."""
        return {**self.template.identity, "seed": self.seed if self.seed is not None else seed}

    def reply(self, view: UserView) -> UserTurn:
        """One completion of the role-swapped conversation."""
        seed = self.seed if self.seed is not None else view.seed
        agent = self.agent_class(
            model=self.model, seed=seed, system_prompt=system_prompt(view.spec), **self.settings
        )
        agent_turns = [m for m in view.transcript if m.get("role") == "agent"]

        def emit(kind: str, data: Mapping[str, JSON]) -> None:
            renamed = {"model_step": "user_model_step", "model_retry": "user_model_retry"}
            view.emit(renamed.get(kind, kind), {**data, "turn": view.turn})

        inp = AgentInput(
            task=str(agent_turns[0].get("text", "")) if agent_turns else "",
            tools=[],
            call_tool=_NO_TOOLS,
            signal=view.signal,
            seed=seed,
            deadline=view.deadline,
            emit=emit,
        )
        try:
            state = agent.start(inp)
            for message in view.transcript[1:]:  # the opening is in the system prompt
                if message is agent_turns[0]:
                    continue
                role = "user" if message.get("role") == "agent" else "assistant"
                state["messages"].append({"role": role, "content": str(message.get("text", ""))})
            reply = agent.complete(inp, state)
        except (AgentError, ModelError) as exc:
            raise UserFailure(
                f"the user model failed: {str(exc).replace('agent.', 'user.')}"
            ) from None
        except RunLimitError:
            raise
        text = reply.text or ""
        if reply.ending in ("truncated", "refused") or reply.tool_uses:
            raise UserFailure(
                f"the user model gave no usable message (finish reason {reply.finish_reason}); "
                "check user.model and user.max_tokens"
            )
        if STOP in text:
            said = text.replace(STOP, "").strip()
            return UserTurn(said, True, f"the user model said {STOP}")
        return UserTurn(text.strip())
