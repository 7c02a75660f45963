"""The human agent: a person plays the agent at a terminal (``silo-run ... agent=human``).

Contract: :class:`HumanAgent` shows the task (a conversational task's: the user's opening) and
every tool with its input schema, then reads one command a line from its input until the person
finishes: ``<tool> {json}`` or ``<tool> key=value ...`` calls a tool (a value that parses as
JSON is that value, anything else a string) and prints the result; ``say <text>`` messages the
simulated user of a conversational task and prints the reply; ``finish <answer>`` ends the run
with that answer; ``tools``, ``schema <tool>`` and ``help`` show what there is. A mistake
(unknown command or tool, arguments that do not parse) is one line and the prompt again; what
a tool refuses is its error result, as any agent gets it. End of input without ``finish``
raises :class:`~silo.agents.contract.AgentError`: the run ends as ``agent_error`` saying so.
On a terminal, tool names and commands complete with Tab (readline). ``identity`` puts
``{"kind": "human"}`` in ``run.json``'s ``agentIdentity``; a person is never deterministic.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from typing import TextIO

from silo.agents.contract import AgentError, AgentInput, RunLimitError
from silo.json_types import JSON

__all__ = ["HumanAgent", "parse_arguments"]

_COMMANDS = ("finish", "say", "schema", "tools", "help")
_HELP = """Commands:
  <tool> {"key": "value"}     call a tool with JSON arguments
  <tool> key=value ...        call a tool (values that parse as JSON are JSON, else text)
  say <text>                  message the user (conversational tasks)
  finish <answer>             give your final answer and end the run
  tools | schema <tool>       list the tools | show one tool's input schema
  help                        this text"""


def parse_arguments(text: str) -> dict[str, JSON]:
    """A tool call's arguments: a JSON object, or ``key=value`` pairs (shell quoting).

    Raises:
        ValueError: the text is neither, saying what is wrong.
    """
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"the arguments are not valid JSON: {exc.msg} at {exc.pos}") from None
        if not isinstance(value, dict):
            raise ValueError("JSON arguments must be an object")
        return value
    arguments: dict[str, JSON] = {}
    for pair in shlex.split(text):
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"{pair!r} is not key=value; quote values with spaces")
        try:
            arguments[key] = json.loads(raw)
        except json.JSONDecodeError:
            arguments[key] = raw
    return arguments


class HumanAgent:
    """A person at a terminal (see the module docstring)."""

    deterministic = False
    identity = {"kind": "human"}

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        """Read commands from ``stdin`` and write to ``stdout`` (default: the process's)."""
        self._in = stdin
        self._out = stdout

    def __call__(self, inp: AgentInput) -> dict[str, JSON]:
        """Play the rollout: show the task and tools, then run commands until ``finish``."""
        read, out = self._in or sys.stdin, self._out or sys.stdout
        names = [str(t["name"]) for t in inp.tools]
        say = out.write
        heading = "The user wrote" if inp.user is not None else "Task"
        say(f"{heading} ({inp.task_id}): {inp.task}\n\nTools:\n")
        for tool in inp.tools:
            say(f"  {tool['name']}: {tool['description']}\n")
            say(f"    input: {json.dumps(tool['inputSchema'], ensure_ascii=False)}\n")
        say(f"\n{_HELP}\n")
        prompt = _terminal_prompt(read, names)
        while True:
            out.flush()
            line = prompt(read, out)
            if line is None:
                raise AgentError("the person left (end of input) without finish")
            verb, _, rest = line.strip().partition(" ")
            if not verb:
                continue
            if verb == "finish":
                return {"output": rest.strip()}
            try:
                say(self._run(inp, names, verb, rest) + "\n")
            except RunLimitError as exc:
                say(f"{exc}\n")
                return {"output": ""}

    def _run(self, inp: AgentInput, names: list[str], verb: str, rest: str) -> str:
        """One command's answer, as the text to show."""
        if verb == "help":
            return _HELP
        if verb == "tools":
            return "  ".join(names)
        if verb == "schema":
            match = [t for t in inp.tools if t["name"] == rest.strip()]
            if not match:
                return f"no tool named {rest.strip()!r}; tools: {', '.join(names)}"
            return json.dumps(match[0]["inputSchema"], indent=2, ensure_ascii=False)
        if verb == "say":
            if inp.user is None:
                return "this task has no user to message; use the tools, then finish <answer>"
            reply = inp.user.send(rest.strip())
            ended = " (the user has ended the conversation)" if reply.ended else ""
            return f"{'error' if reply.is_error else 'user'}: {reply.text}{ended}"
        if verb not in names:
            return f"unknown command or tool {verb!r}; type help, or tools for the tool names"
        try:
            arguments = parse_arguments(rest)
        except ValueError as exc:
            return str(exc)
        result = inp.call_tool(verb, arguments)
        label = "error" if result.get("isError") else "result"
        return f"{label}: {json.dumps(result.get('output'), indent=2, ensure_ascii=False)}"


Prompt = Callable[[TextIO, TextIO], "str | None"]


def _plain_prompt(read: TextIO, out: TextIO) -> str | None:
    out.write("silo> ")
    out.flush()
    line = read.readline()
    return line if line else None


def _terminal_prompt(read: TextIO, names: list[str]) -> Prompt:
    """On a terminal, ``input`` with Tab completion of commands and tool names; else lines."""
    if read is not sys.stdin or not read.isatty():
        return _plain_prompt
    try:
        import readline
    except ImportError:  # a Python built without readline: no completion, same commands
        return _plain_prompt
    readline.set_completer(completer([*names, *_COMMANDS]))
    readline.parse_and_bind("tab: complete")

    def ask(read: TextIO, out: TextIO) -> str | None:
        try:
            return input("silo> ")
        except EOFError:
            return None

    return ask


def completer(words: list[str]) -> Callable[[str, int], str | None]:
    """A readline completer: the ``state``-th word starting with ``text``."""

    def complete(text: str, state: int) -> str | None:
        matches = [w for w in words if w.startswith(text)]
        return matches[state] if state < len(matches) else None

    return complete
