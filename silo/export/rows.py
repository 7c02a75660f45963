"""Rows of an export: one per rollout, for supervised fine-tuning (``sft``) or RL (``rl``).

Contract: :func:`sft_row` is the rollout's last model turn as a chat sample — ``messages``
(that turn's whole prompt and the model's answer) and ``tools`` in OpenAI chat format, with
``taskId``, ``variant``, ``reward``, ``passed``, ``agent``, ``agentIdentity`` and ``runId``.
:func:`rl_row` is the rollout as token sequences: ``turns`` (each completion's
``promptTokenIds``, ``completionTokenIds``, ``completionLogprobs`` and ``finishReason``, as the
endpoint sent them) and one trajectory — ``tokenIds`` (the last turn's prompt then its
completion), ``lossMask`` (1 on the tokens the model sampled, 0 on every other) and
``logprobs`` (the sampled tokens' log-probabilities, 0.0 elsewhere) — with the reward and a
``group`` key (environment, task and variant) for GRPO-style grouping. A completion whose
tokens a later prompt does not repeat verbatim (a chat template that re-renders history) is
masked 0 there: only tokens the model itself sampled are trained on. A rollout without model
turns, or (``rl``) without token ids, raises :class:`~silo.errors.ArtifactError` naming it.
"""

from __future__ import annotations

from pathlib import Path

from silo.errors import ArtifactError
from silo.export.turns import ModelTurn
from silo.json_types import JSON

__all__ = ["identity_of", "rl_row", "sft_row", "task_and_variant"]


def task_and_variant(run: dict[str, JSON]) -> tuple[str, str | None]:
    """The task id and the variant's instance id (``TASK-010#17``; None for a plain task)."""
    task_id = str(run.get("taskId", ""))
    variant = run.get("variant")
    if isinstance(variant, str) and variant:
        return task_id.split("#", 1)[0], variant
    if "#" in task_id:
        return task_id.split("#", 1)[0], task_id
    return task_id, None


def identity_of(run: dict[str, JSON]) -> dict[str, JSON] | None:
    """``run.json``'s ``agentIdentity`` (model agents), or None."""
    identity = run.get("agentIdentity")
    return dict(identity) if isinstance(identity, dict) else None


def _head(run: dict[str, JSON], result: dict[str, JSON]) -> dict[str, JSON]:
    task_id, variant = task_and_variant(run)
    return {
        "runId": run.get("runId"),
        "taskId": task_id,
        "variant": variant,
        "reward": float(result.get("reward", 0.0)),
        "passed": bool(result.get("passed", False)),
        "agent": run.get("agent"),
        "agentIdentity": identity_of(run),
    }


def _last(folder: Path, turns: list[ModelTurn], kind: str) -> ModelTurn:
    if not turns:
        raise ArtifactError(
            "export_no_turns",
            f"{folder}: no model turns in its trace (its agent is not a model agent, or it "
            f"predates exact model_step events); filter it out (agent=, task=) to export {kind}",
        )
    return turns[-1]


def sft_row(
    folder: Path, run: dict[str, JSON], result: dict[str, JSON], turns: list[ModelTurn]
) -> dict[str, JSON]:
    """The rollout as one chat sample (see the module docstring)."""
    last = _last(folder, turns, "sft")
    return {
        **_head(run, result),
        "messages": [*last.prompt, last.completion],
        "tools": last.tools,
    }


def rl_row(
    folder: Path, run: dict[str, JSON], result: dict[str, JSON], turns: list[ModelTurn]
) -> dict[str, JSON]:
    """The rollout as token sequences with a loss mask (see the module docstring)."""
    _last(folder, turns, "rl")
    for turn in turns:
        missing = [
            name
            for name, value in (
                ("promptTokenIds", turn.prompt_token_ids),
                ("completion tokenIds", turn.completion_token_ids),
                ("completion logprobs", turn.completion_logprobs),
            )
            if value is None
        ]
        if missing:
            raise ArtifactError(
                "export_no_tokens",
                f"{folder}: model turn {turn.turn} has no {', '.join(missing)} (the endpoint "
                "did not send them); rerun with agent.return_tokens=true against vLLM or "
                "SGLang, or export it as sft",
            )
    tokens, mask, logprobs = _trajectory(turns)
    head = _head(run, result)
    environment = run.get("environment")
    return {
        **head,
        "group": f"{environment}/{head['variant'] or head['taskId']}",
        "tokenIds": tokens,
        "lossMask": mask,
        "logprobs": logprobs,
        "turns": [
            {
                "turn": t.turn,
                "promptTokenIds": t.prompt_token_ids,
                "completionTokenIds": t.completion_token_ids,
                "completionLogprobs": t.completion_logprobs,
                "finishReason": t.finish_reason,
            }
            for t in turns
        ],
    }


def _trajectory(turns: list[ModelTurn]) -> tuple[list[int], list[int], list[float]]:
    """The last turn's prompt and completion, masked 1 where the model sampled the token.

    Each turn's prompt keeps the mask of the sequence so far over the part it repeats verbatim
    (the common prefix) and is 0 after it; its completion is 1.
    """
    tokens: list[int] = []
    mask: list[int] = []
    logprobs: list[float] = []
    for turn in turns:
        prompt = turn.prompt_token_ids or []
        kept = _common_prefix(tokens, prompt)
        mask = mask[:kept] + [0] * (len(prompt) - kept)
        logprobs = logprobs[:kept] + [0.0] * (len(prompt) - kept)
        completion = turn.completion_token_ids or []
        tokens = [*prompt, *completion]
        mask += [1] * len(completion)
        sampled = turn.completion_logprobs or []
        logprobs += [*sampled[: len(completion)], *[0.0] * (len(completion) - len(sampled))]
    return tokens, mask, logprobs


def _common_prefix(left: list[int], right: list[int]) -> int:
    size = min(len(left), len(right))
    for index in range(size):
        if left[index] != right[index]:
            return index
    return size
