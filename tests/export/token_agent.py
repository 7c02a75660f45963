"""A stand-in for agent=openai against vLLM: real tool calls, exact-turns model_step events.

Each turn is recorded as the model_step schema says (api openai.chat, prompt base/messages/
system/tools, completion message/finishReason/tokenIds/logprobs, promptTokenIds). Token ids
are made up but consistent: a turn's prompt repeats the previous prompt and completion
verbatim, then the tool result's tokens, as a chat template appending turns does.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

SYSTEM = "You operate a CRM through its tools."


def tokens(text: str, salt: int) -> list[int]:
    """Deterministic made-up token ids of ``text`` (one per word)."""
    return [(zlib.crc32(word.encode()) + salt) % 50_000 for word in text.split()] or [salt]


def logprobs(ids: list[int]) -> list[float]:
    """Made-up log-probabilities, one per token, exactly representable."""
    return [-((i % 7) + 1) / 8 for i in ids]


def agent(inp: Any) -> str:
    """List the users, then answer with how many there are."""
    tools = [
        {"type": "function", "function": {"name": t["name"], "description": t["description"],
                                          "parameters": t["inputSchema"]}}
        for t in inp.tools
    ]  # fmt: skip
    user = {"role": "user", "content": inp.task}
    prompt_ids = tokens(SYSTEM + " " + inp.task, 1)
    call = {"id": "call_1", "type": "function",
            "function": {"name": "list_users", "arguments": "{}"}}  # fmt: skip
    first = {"role": "assistant", "content": None, "tool_calls": [call]}
    first_ids = tokens("call list_users", 2)
    inp.emit(
        "model_step",
        {
            "turn": 1,
            "api": "openai.chat",
            "prompt": {"base": None, "messages": [user], "system": SYSTEM, "tools": tools},
            "promptTokenIds": prompt_ids,
            "completion": {"message": first, "finishReason": "tool_calls",
                           "tokenIds": first_ids, "logprobs": logprobs(first_ids)},
            "usage": {"prompt_tokens": len(prompt_ids), "completion_tokens": len(first_ids)},
        },
    )  # fmt: skip
    result = inp.call_tool("list_users", {})
    users = result["output"]
    count = len(users.get("users", users) if isinstance(users, dict) else users)
    tool_message = {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(users)}
    second_prompt = prompt_ids + first_ids + tokens(tool_message["content"][:200], 3)
    answer = f"There are {count} users."
    second_ids = tokens(answer, 4)
    inp.emit(
        "model_step",
        {
            "turn": 2,
            "api": "openai.chat",
            "prompt": {"base": 1, "messages": [tool_message]},
            "promptTokenIds": second_prompt,
            "completion": {"message": {"role": "assistant", "content": answer},
                           "finishReason": "stop", "tokenIds": second_ids,
                           "logprobs": logprobs(second_ids)},
            "usage": {"prompt_tokens": len(second_prompt), "completion_tokens": len(second_ids)},
        },
    )  # fmt: skip
    return answer
