"""``silo-ls``: what there is to run.

Contract: ``silo-ls`` lists the project's environments (name, template, task count); ``silo-ls env=<name>`` loads one and lists its tasks (id,
difficulty, title) and tools (name, read-only flag, first line of the description) with counts.
Both run ``silo-validate``'s static checks (no rollouts): an environment with an error
finding is marked (``does not validate``; a tool whose finding names it is ``BROKEN``, with
the reason), and the listing ends with one line on stderr and exit 2 (``errors`` and the
tool's ``problem`` in ``--json``, present only then).
``--json`` prints the same as JSON. :func:`main` returns the exit status (0, or 2 with one line
on stderr for a usage mistake, an environment that is unknown, does not load or does not
validate): the console
script exits with it, and ``silo-run --list`` calls ``main(words, prog="silo-run --list")``, which ignores the
words it does not know (``task=``, ``agent=``, ...).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from silo.cli.args import out, parse, run_command
from silo.errors import EnvironmentLoadError, SiloError
from silo.json_types import JSON
from silo.loading.environment import (
    find_project_dir,
    list_environments,
    load_environment,
    read_manifest,
)
from silo.loading.installed import installed_names
from silo.loading.modules import describe_exception

__all__ = ["main", "environments_listing", "environment_listing"]


def main(argv: list[str] | None = None, prog: str = "silo-ls") -> int:
    """Run ``silo-ls`` on ``argv`` (``sys.argv[1:]`` by default) as ``prog``; the exit status."""
    words = sys.argv[1:] if argv is None else argv
    return run_command(prog, lambda: _main(words, prog))


def _main(words: list[str], prog: str) -> int:
    args = parse(words, ("env",), ("--json",), strict=prog == "silo-ls")
    if args.help:
        out(f"usage: {prog} [env=<name>] [--json]\n\nList environments, or one's tasks and tools.")
        return 0
    project = find_project_dir()
    name = args.values.get("env")
    document = environment_listing(name, project) if name else environments_listing(project)
    if "--json" in args.flags:
        out(json.dumps(document, indent=2))
    elif name:
        out(_environment_text(document))
    else:
        out(_environments_text(document, project))
    return _flag_invalid(document, prog)


def _flag_invalid(document: dict[str, JSON], prog: str) -> int:
    """Exit 2 with one line on stderr when a listed environment does not validate."""
    rows = [document] if "environment" in document else document["environments"]
    broken = [row for row in rows if row.get("errors")]
    if not broken:
        return 0
    first = broken[0]
    name = first.get("environment") or first.get("name")
    also = f" (and {len(broken) - 1} more environment(s))" if len(broken) > 1 else ""
    sys.stderr.write(
        f'{prog}: environment "{name}" does not validate ({len(first["errors"])} error(s)): '
        f"{first['errors'][0]}{also}; run silo-validate env={name}\n"
    )
    return 2


def validation_errors(name: str, project: Path) -> list[str]:
    """The error findings of the static checks of ``silo-validate`` (no rollouts) for ``name``."""
    from silo.validate.report import validate_environment

    report = validate_environment(name, project, deep=False)
    return [f.message for f in report.findings if f.level == "error"]


def environments_listing(project: Path) -> dict[str, JSON]:
    """Every environment of ``project`` with its template and task count, from its files only."""
    rows = []
    for name in list_environments(project):
        root = project / "environments" / name
        try:
            template = read_manifest(root).template
        except SiloError:
            template = None
        tasks = len(list((root / "tasks").glob("*.json"))) if (root / "tasks").is_dir() else 0
        errors = validation_errors(name, project)
        row = {"name": name, "template": template, "tasks": tasks}
        rows.append({**row, "errors": errors} if errors else row)
    # Installed packages' environments work with env= from any folder; the project's own
    # folder of the same name wins, so those are not listed twice.
    own = {row["name"] for row in rows}
    return {"environments": rows, "installed": [n for n in installed_names() if n not in own]}


def environment_listing(name: str, project: Path) -> dict[str, JSON]:
    """Environment ``name`` loaded, with its tasks and tools (one-line error if it does not load)."""
    env = load_environment(name, project)
    try:
        tools = env.tools()
    except Exception as exc:
        raise EnvironmentLoadError(
            "runtime_load_failed",
            f'environment "{name}" does not start: {describe_exception(exc, env.root / env.manifest.entrypoint)}; '
            f"run silo-validate env={name}",
        ) from None
    errors = validation_errors(name, project)
    listing = {
        "environment": env.name,
        "tasks": [
            {"id": t.id, "difficulty": t.difficulty, "title": t.title} for t in env.tasks.values()
        ],
        "tools": [
            {
                "name": t.name,
                "readOnly": t.read_only,
                "description": (t.description or "").strip().split("\n", 1)[0],
                "inputSchema": dict(t.input_schema),
                **_problem(t.name, errors),
            }
            for t in tools
        ],
        "counts": {"tasks": len(env.tasks), "tools": len(tools), "verifiers": len(env.verifiers)},
    }
    return {**listing, "errors": errors} if errors else listing


def _problem(tool: str, errors: list[str]) -> dict[str, str]:
    """``{"problem": ...}`` when a validation error names ``tool``, else nothing."""
    found = next((e for e in errors if e.startswith(f'tool "{tool}"')), None)
    return {} if found is None else {"problem": found}


def _table(rows: list[list[str]]) -> list[str]:
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  "
        + "  ".join(
            [*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[-1]]
        ).rstrip()
        for row in rows
    ]


def _environments_text(document: dict[str, JSON], project: Path) -> str:
    rows = document["environments"]
    installed = document["installed"]
    tail = [f"Installed (env=<name> from any folder): {', '.join(installed)}"] if installed else []
    if not rows:
        empty = f"No environments in {project / 'environments'}; create one with: silo-init <name>"
        return "\n".join([empty, *tail])
    table = [
        [r["name"], r["template"] or "-", f"{r['tasks']} tasks" + _invalid(r.get("errors", []))]
        for r in rows
    ]
    return "\n".join([f"Environments ({len(rows)}):", *_table(table), *tail])


def _invalid(errors: list[str]) -> str:
    return f"  does not validate ({len(errors)} error(s))" if errors else ""


def _clip(text: str, width: int = 100) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def _environment_text(document: dict[str, JSON]) -> str:
    counts = document["counts"]
    tasks = [[t["id"], t["difficulty"], t["title"]] for t in document["tasks"]]
    tools = [
        [
            t["name"],
            "BROKEN" if "problem" in t else "ro" if t["readOnly"] else "rw",
            _clip(t["problem"]) if "problem" in t else t["description"],
        ]
        for t in document["tools"]
    ]
    return "\n".join(
        [
            f"Environment {document['environment']}",
            f"Tasks ({counts['tasks']}):",
            *_table(tasks),
            f"Tools ({counts['tools']}):",
            *_table(tools),
            f"{counts['tasks']} tasks, {counts['tools']} tools, {counts['verifiers']} verifiers",
        ]
    )
