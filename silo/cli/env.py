"""``silo-env``: edit an environment's data, tasks, tools and verifiers from the command line.

Contract: ``silo-env <noun> <verb> env=<name> key=value ... [--json]`` where the nouns and verbs
are those of :data:`COMMANDS`. Words are ``key=value`` (values holding JSON where the key says
so: ``entities=``, ``value=``); ``from=<file>`` reads the value from a JSON file instead. The
command never prompts. It prints what it did (``--json``: one JSON document) and exits 0; any
mistake (an unknown word, a missing key, bad JSON, a task that would no longer parse, a
registration that would break the environment) is one line on stderr and exit 2, with nothing
changed. Without ``env=``, the project's one environment (said on stderr); with several or
none, one line listing them. The work itself is :mod:`silo.authoring`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from silo.authoring import data, generate, tasks
from silo.cli.args import Args, UsageError, out, output_format, parse, parse_bool, run_command
from silo.json_types import JSON
from silo.jsonio import pretty
from silo.loading.environment import find_project_dir, load_environment, resolve_environment_dir
from silo.loading.project import default_environment

__all__ = ["COMMANDS", "main"]

PROG = "silo-env"
_TASK_FIELDS = ("id", "title", "instruction", "verifierId", "difficulty", "entities")
# noun -> verb -> the keys it takes besides env= and format=
COMMANDS: dict[str, dict[str, tuple[str, ...]]] = {
    "task": {
        "list": (),
        "show": ("id",),
        "add": _TASK_FIELDS,
        "update": _TASK_FIELDS,
        "remove": ("id",),
    },
    "data": {
        "list": (),
        "show": ("file",),
        "add": ("file", "value", "from"),
        "update": ("file", "value", "from", "id"),
        "remove": ("file",),
    },
    "tool": {"list": (), "add": ("name", "read_only", "description")},
    "verifier": {"list": (), "add": ("id", "task", "name")},
}
USAGE = f"""usage: {PROG} <noun> <verb> env=<name> [key=value ...] [--json]

  task     list | show id= | add id= title= instruction= verifierId= [difficulty=] [entities=JSON]
           | update id= [title= instruction= verifierId= difficulty= entities=JSON] | remove id=
  data     list | show file= | add file= value=JSON|from=FILE
           | update file= value=JSON|from=FILE [id=RECORD] | remove file=
  tool     list | add name= [read_only=true] [description=]
  verifier list | add id= [task=TASK-ID] [name=]

Edits environments/<name>/ in place; see docs/authoring.md."""


def _required(args: Args, key: str) -> str:
    value = args.values.get(key, "").strip()
    if not value:
        raise UsageError(f"missing {key}=; {USAGE.splitlines()[0]}")
    return value


def _json_value(key: str, text: str) -> JSON:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{key}= is not valid JSON ({exc.msg} at column {exc.colno}); quote it for the "
            """shell, e.g. entities='{"leadId": "LEAD-004"}'"""
        ) from None


def _value(args: Args) -> JSON:
    """The JSON of ``value=`` or of the file ``from=`` names (exactly one of them)."""
    if ("value" in args.values) == ("from" in args.values):
        raise UsageError("give the new content as value=JSON or from=FILE (one of them)")
    if "value" in args.values:
        return _json_value("value", args.values["value"])
    path = Path(args.values["from"])
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"from={path}: cannot read it ({exc.strerror or exc})") from None
    return _json_value(f"from={path}: the file", text)


def _task_fields(args: Args) -> dict[str, JSON]:
    fields: dict[str, JSON] = {k: v for k, v in args.values.items() if k in _TASK_FIELDS}
    if "entities" in fields:
        fields["entities"] = _json_value("entities", fields["entities"])
        if not isinstance(fields["entities"], dict):
            raise UsageError("entities= must be a JSON object of the facts a verifier reads")
    return fields


def _task(verb: str, root: Path, args: Args) -> JSON:
    if verb == "list":
        return tasks.list_tasks(root)
    if verb == "add":
        return tasks.add_task(root, _task_fields(args))
    task_id = _required(args, "id")
    if verb == "show":
        return tasks.show_task(root, task_id)
    if verb == "update":
        fields = {k: v for k, v in _task_fields(args).items() if k != "id"}
        if not fields:
            raise UsageError("nothing to update; give title=, instruction=, verifierId=, ...")
        return tasks.update_task(root, task_id, fields)
    return tasks.remove_task(root, task_id)


def _data(verb: str, root: Path, args: Args) -> JSON:
    if verb == "list":
        return data.list_data(root)
    name = _required(args, "file")
    if verb == "show":
        return data.show_data(root, name)
    if verb == "add":
        return data.add_data(root, name, _value(args))
    if verb == "update":
        return data.update_data(root, name, _value(args), args.values.get("id"))
    return data.remove_data(root, name)


def _tool(verb: str, root: Path, args: Args) -> JSON:
    if verb == "list":
        env = load_environment(root)
        return [
            {"name": t.name, "readOnly": t.read_only, "description": t.description}
            for t in env.bind_tools(env.create_state())
        ]
    read_only = parse_bool("read_only", args.values.get("read_only", "false"))
    return generate.add_tool(
        root,
        _required(args, "name"),
        read_only=read_only,
        description=args.values.get("description", ""),
    )


def _verifier(verb: str, root: Path, args: Args) -> JSON:
    if verb == "list":
        env = load_environment(root)
        return [
            {
                "id": v.id,
                "name": v.name,
                "tasks": [t.id for t in env.tasks.values() if t.verifier_id == v.id],
            }
            for v in env.verifiers.values()
        ]
    return generate.add_verifier(
        root,
        _required(args, "id"),
        task_id=args.values.get("task") or None,
        name=args.values.get("name", ""),
    )


_HANDLERS: dict[str, Callable[[str, Path, Args], JSON]] = {
    "task": _task,
    "data": _data,
    "tool": _tool,
    "verifier": _verifier,
}


def _as_text(noun: str, verb: str, result: JSON) -> str:
    if verb == "list":
        rows = [" ".join(str(value) for value in row.values()) for row in result]
        return "\n".join(rows) if rows else f"(no {noun}s)"
    if verb == "show":
        return pretty(result).rstrip("\n")
    files = ", ".join(result.get("files", ()))
    name = result.get(noun) or result.get("file") or result.get("tool")
    if isinstance(name, dict):
        name = name.get("id")
    return f"{result['action'].capitalize()} {noun} {name} ({files})"


def _words(words: list[str]) -> tuple[str, str, list[str]]:
    """``(noun, verb, rest)``; an unknown noun or verb is a usage mistake listing the known."""
    head = [w for w in words[:2] if "=" not in w and not w.startswith("-")]
    noun = head[0] if head else ""
    if noun not in COMMANDS:
        known = ", ".join(COMMANDS)
        raise UsageError(f'unknown noun "{noun}"; use one of: {known}' if noun else USAGE)
    verb = head[1] if len(head) > 1 else ""
    if verb not in COMMANDS[noun]:
        known = ", ".join(COMMANDS[noun])
        raise UsageError(f'"{PROG} {noun}" needs a verb: {known}')
    return noun, verb, words[2:]


def _run(words: list[str]) -> int:
    if words[:1] in (["-h"], ["--help"]):
        out(USAGE)
        return 0
    if not words:
        raise UsageError(f"missing a command; {USAGE.splitlines()[0]} (--help lists them)")
    noun, verb, rest = _words(words)
    args = parse(rest, ("env", "format", *COMMANDS[noun][verb]), ("--json",))
    if args.help:
        out(USAGE)
        return 0
    fmt = output_format(args)
    project = find_project_dir()
    name = args.values.get("env", "").strip()
    if "env" in args.values and not name:
        raise UsageError(f"env= needs an environment name; {USAGE.splitlines()[0]}")
    if not name:  # the project's one environment, or the choices in one line
        name = default_environment(project)
        sys.stderr.write(f"{PROG}: env={name} (the project's one environment)\n")
    root = resolve_environment_dir(name, project)
    result = _HANDLERS[noun](verb, root, args)
    out(pretty(result).rstrip("\n") if fmt == "json" else _as_text(noun, verb, result))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run one authoring command; 0 when done, 2 for any mistake (one line on stderr)."""
    words = sys.argv[1:] if argv is None else argv
    return run_command(PROG, lambda: _run(list(words)))
