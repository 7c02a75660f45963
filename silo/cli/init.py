"""``silo-init``: a new environment from a template, in one command.

Contract: ``silo-init <name> [template=blank|minimal|crm]`` creates ``environments/<name>/`` in the
project (:func:`silo.scaffold.create_environment`: atomic, never overwrites), prints
``Created environment "<name>" from <template> at environments/<name>`` and the next steps, and
exits 0. Any mistake (a refused name or template, a usage error) or a folder that cannot be
created is one line on stderr and exit 2; nothing is left behind.
"""

from __future__ import annotations

import sys
from pathlib import Path

from silo.cli.args import UsageError, out, parse
from silo.errors import SiloError
from silo.loading.environment import find_project_dir
from silo.scaffold import TEMPLATES, create_environment

__all__ = ["main"]

PROG = "silo-init"
USAGE = f"""usage: {PROG} <name> [template={"|".join(TEMPLATES)}]

Create environments/<name>/ from a template (default: blank)."""


def main(argv: list[str] | None = None) -> int:
    """Create the environment named in ``argv`` (``sys.argv[1:]`` by default); the exit status."""
    words = sys.argv[1:] if argv is None else argv
    try:
        args = parse(words, ("template", "name"), positionals=1)
        if args.help:
            out(USAGE)
            return 0
        name = args.values.get("name") or (args.positionals[0] if args.positionals else "")
        if not name:
            raise UsageError(f"missing the environment name; {USAGE.splitlines()[0]}")
    except UsageError as exc:
        sys.stderr.write(f"{PROG}: {exc}\n")
        return 2
    template = args.values.get("template") or "blank"
    project = find_project_dir()
    try:
        root = create_environment(project, name, template)
    except SiloError as exc:
        sys.stderr.write(f"{PROG}: {exc.message}\n")
        return int(getattr(type(exc), "exit_code", 2))
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted; nothing was created\n")
        return 130
    except OSError as exc:
        sys.stderr.write(f"{PROG}: could not create environments/{name}: {exc.strerror or exc}\n")
        return 2
    out(f'Created environment "{name}" from {template} at environments/{name}')
    out(_next_steps(root, name))
    return 0


def _next_steps(root: Path, name: str) -> str:
    tasks = sorted(p.stem for p in (root / "tasks").glob("*.json"))
    task = tasks[0] if tasks else "<TASK-ID>"
    first = (
        f"edit environments/{name}/env.py (state, tools, verifiers) and add tasks/<ID>.json"
        if not tasks
        else f"explore environments/{name}/ (env.py, tools/, verifiers.py, tasks/)"
    )
    return "\n".join(
        [
            "Next steps:",
            f"  1. {first}",
            f"  2. silo-validate env={name}",
            f"  3. silo-run env={name} task={task}",
        ]
    )
