"""A small CLI agent for the harness tests: Chat Completions model, tools over MCP.

Usage: harness_cli.py <mcp_url> <model_base_url> <prompt> [--stream] [--hang] [--fail N]
       [--gather DIR N] [--no-finish]

It lists the MCP server's tools, offers them to the model, runs every tool call the model asks
for through MCP and sends the results back, until the model answers with text, which it
prints (exit 0). ``--hang`` sleeps forever instead of asking the model (a CLI that never ends);
``--fail N`` exits with status N, saying so on stderr, before asking the model; ``--gather DIR
N`` leaves a file in DIR and waits until N files are there (N harnesses in flight at once)
before asking the model; ``--no-finish`` does not offer ``silo_finish`` to the model. What a real
coding-agent CLI does, in a few lines and a Python process.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import anyio
from mcp import Client


def ask(base: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{base}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "authorization": "Bearer placeholder"},
    )
    with urllib.request.urlopen(request, timeout=600) as answer:
        raw = answer.read()
    if not body.get("stream"):
        return json.loads(raw)["choices"][0]["message"]
    text, calls = "", {}
    for line in raw.decode().splitlines():
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        for choice in json.loads(line[6:]).get("choices", []):
            delta = choice.get("delta", {})
            text += delta.get("content") or ""
            for call in delta.get("tool_calls") or []:
                slot = calls.setdefault(call["index"], {"id": call.get("id"), "name": "", "a": ""})
                slot["name"] += call["function"].get("name") or ""
                slot["a"] += call["function"].get("arguments") or ""
    tool_calls = [
        {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["a"]}}
        for _, c in sorted(calls.items())
    ]
    return {"role": "assistant", "content": text or None, "tool_calls": tool_calls or None}


async def main(mcp_url: str, base: str, prompt: str, flags: list[str]) -> int:
    if "--fail" in flags:
        status = int(flags[flags.index("--fail") + 1])
        sys.stderr.write(f"harness_cli: failing on purpose with status {status}\n")
        return status
    async with Client(mcp_url) as client:
        listed = await client.list_tools()
        tools = [
            {"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": t.input_schema}}
            for t in listed.tools
            if not ("--no-finish" in flags and t.name == "silo_finish")
        ]  # fmt: skip
        if "--gather" in flags:
            folder = Path(flags[flags.index("--gather") + 1])
            wanted = int(flags[flags.index("--gather") + 2])
            (folder / str(os.getpid())).touch()
            deadline = time.monotonic() + 600  # safety net: the test's rollouts all start
            while len(list(folder.iterdir())) < wanted and time.monotonic() < deadline:
                await anyio.sleep(0.05)
        if "--hang" in flags:
            while True:
                time.sleep(1)
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        while True:
            body = {
                "model": "m",
                "messages": messages,
                "tools": tools,
                "stream": "--stream" in flags,
            }
            reply = await anyio.to_thread.run_sync(ask, base, body)
            messages.append(reply)
            if not reply.get("tool_calls"):
                print(reply.get("content") or "")
                return 0
            for call in reply["tool_calls"]:
                function = call["function"]
                result = await client.call_tool(function["name"], json.loads(function["arguments"]))
                text = "".join(getattr(part, "text", "") for part in result.content)
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]))
