"""Model judges: a model grades rubric items, through the model agents' endpoints and loop.

Contract: :class:`ModelJudge` (``judge=openai``, ``judge=anthropic``: its ``api``) asks a
model for one verdict per rubric item. The request is built and sent by the model agents' own code (:class:`~silo.agents.openai.OpenAIAgent`,
:class:`~silo.agents.anthropic.AnthropicAgent`: the SDK only names the URL and headers), so it
runs on the process's model loop with the same shared endpoint, connection limit, backoff and
retries as the agents; no tool is offered. The prompt (:func:`judge_prompt`) holds the
assertion and the material it is about: the conversation with the tool calls in between, the
answer, or the state diff. The model must answer a JSON object ``{"verdict": "pass"|"fail",
"reason"}``; any other answer is ``abstain``, saying why. Each completion is a ``judge_step``
event (retries ``judge_retry``), shaped like the agents' ``model_step`` plus the ``judge`` and
``item``, returned in :attr:`~silo.judges.rubric.Verdict.steps` for the run's trace. An
endpoint that fails (refused, 4xx, 5xx or 429 after the retries, no answer in time) raises
:class:`JudgeError`: the judge failed, not the agent. A setting that cannot work (no model,
no key for a remote endpoint) is a one-line :class:`~silo.errors.ConfigError` when the judge
is built, before any rollout.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Mapping
from typing import Any

from silo.agents.apis import MODEL_APIS, refusing_tools
from silo.agents.contract import AgentError, AgentInput, CancelSignal, ModelError, RunLimitError
from silo.agents.model import ModelAgent
from silo.agents.model_loop import run_on_model_loop
from silo.errors import ConfigError
from silo.jsonio import canonical
from silo.judges.rubric import JudgeError, Material, RubricItem, Verdict

__all__ = ["SYSTEM_PROMPT", "JudgeError", "ModelJudge"]

SYSTEM_PROMPT = (
    "You grade one assertion about an AI agent's run in a simulated environment. Read the "
    "material, decide whether the assertion holds, and answer with only a JSON object: "
    '{"verdict": "pass" or "fail", "reason": "one sentence saying why"}.'
)
# Settings of conf/judge/<kind>.yaml that are the judge's own, not the agent's.
_OWN = ("name", "timeout_s")


def _transcript(material: Material) -> str:
    """The conversation and the tool calls between its messages, in the order they happened."""
    lines = [(int(m["seq"]), f"{m['role']}: {m['text']}") for m in material.conversation]
    lines += [
        (int(c["seq"]), f"[the agent called the tool {c['tool']}]") for c in material.tool_calls
    ]
    text = "\n".join(line for _, line in sorted(lines))
    return f"{text}\n[the agent's final answer] {material.answer}" if material.answer else text


def judge_prompt(item: RubricItem, material: Material) -> str:
    """What the judge model reads: the assertion, then the material it is about."""
    if item.about == "answer":
        shown = material.answer or "(no answer)"
    elif item.about == "changes":
        shown = canonical(dict(material.state_diff))
    else:
        shown = _transcript(material) or "(no conversation)"
    return f"Assertion: {item.assertion}\n\nThe {item.about} it is about:\n{shown}"


def read_verdict(text: str) -> tuple[str, str]:
    """The verdict and reason in the model's answer; ``abstain`` when it gave none."""
    start, end = text.find("{"), text.rfind("}")
    try:
        found = json.loads(text[start : end + 1]) if 0 <= start < end else None
    except ValueError:
        found = None
    verdict = found.get("verdict") if isinstance(found, dict) else None
    if verdict not in ("pass", "fail"):
        shown = " ".join(text.split())[:200]
        return "abstain", f"the judge's answer held no pass/fail verdict: {shown!r}"
    reason = found.get("reason") if isinstance(found, dict) else None
    return str(verdict), reason if isinstance(reason, str) else ""


_NO_TOOLS = refusing_tools(lambda: AgentError("the judge model asked for a tool; judges have none"))


class ModelJudge:
    """A model grading rubric items; ``api`` is the API it speaks (see the module)."""

    deterministic: bool = False

    def __init__(
        self, model: str | None = None, timeout_s: float = 600.0, *, api: str, **settings: Any
    ):
        if api not in MODEL_APIS:
            raise ConfigError(
                "config_invalid",
                f"judge={api}: not a model API; use one of {', '.join(MODEL_APIS)}",
            )
        self.agent_class = MODEL_APIS[api]
        kind = api
        settings = {k: v for k, v in settings.items() if k not in _OWN}
        if not model:
            raise ConfigError(
                "config_invalid",
                f"judge={kind} needs judge.model=<model name> (e.g. judge.model="
                f"{self.agent_class.example_model})",
            )
        try:  # checked now, so a bad setting is one line before any rollout
            self.template = self.agent_class(model=model, **settings)
        except AgentError as exc:
            text = str(exc).replace("agent.", "judge.")
            raise ConfigError("config_invalid", f"judge={kind}: {text}") from None
        except TypeError:  # a key the model agents do not take, e.g. +judge.tempreature=0
            known = set(inspect.signature(self.agent_class.__init__).parameters)
            known |= set(inspect.signature(ModelAgent.__init__).parameters)
            wrong = sorted(set(settings) - known) or sorted(settings)
            raise ConfigError(
                "config_invalid",
                f"judge={kind}: judge.{wrong[0]} is not a setting (see conf/judge/{kind}.yaml)",
            ) from None
        self.name: str = kind
        self.model: str | None = model
        self.timeout_s = timeout_s
        self.settings = settings

    @property
    def identity(self) -> dict[str, Any]:
        """Who grades: kind, model, base URL (no credentials), temperature, seed."""
        return self.template.identity

    def __call__(self, item: RubricItem, material: Material) -> Verdict:
        """The model's verdict on ``item``; :class:`JudgeError` when its endpoint fails."""
        return run_on_model_loop(self.agrade(item, material))

    async def agrade(self, item: RubricItem, material: Material) -> Verdict:
        """:meth:`__call__` as a coroutine of the model loop, where many grade at once."""
        agent = self.agent_class(model=self.model, system_prompt=SYSTEM_PROMPT, **self.settings)
        steps: list[Mapping[str, Any]] = []

        def emit(kind: str, data: Mapping[str, Any]) -> None:
            renamed = {"model_step": "judge_step", "model_retry": "judge_retry"}
            steps.append({"type": renamed.get(kind, kind), "judge": self.name,
                          "item": item.id, **data})  # fmt: skip

        inp = AgentInput(
            task=judge_prompt(item, material),
            tools=[],
            call_tool=_NO_TOOLS,
            signal=CancelSignal(),
            seed=self.template.seed or 0,
            deadline=time.monotonic() + self.timeout_s,
            emit=emit,
        )
        try:
            reply = await agent.acomplete(inp, agent.start(inp))
        except (ModelError, AgentError, RunLimitError) as exc:
            text = str(exc).replace("agent.", "judge.")
            raise JudgeError(f"judge={self.name}: {text}", tuple(steps)) from None
        usage = {k: int(v) for k, v in reply.usage.items()}
        if reply.ending != "answer":
            why = f"the judge's turn ended with {reply.finish_reason or reply.ending}"
            return Verdict("abstain", why, self.model, usage, tuple(steps))
        verdict, reason = read_verdict(reply.text or "")
        return Verdict(verdict, reason, self.model, usage, tuple(steps))
