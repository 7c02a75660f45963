"""``silo-init``: a new environment from a template, in one command.

Contract: ``silo-init <name> [template=blank|minimal|crm]`` creates ``environments/<name>/`` in the
project (:func:`silo.scaffold.create_environment`: atomic, never overwrites), prints
``Created environment "<name>" from <template> at environments/<name>`` and the next steps, and
exits 0. ``silo-init --package <name> [template=minimal|...]`` creates ``silo-env-<name>/`` in
the current folder instead: an installable package offering ``env=<name>``
(:func:`silo.scaffold.create_package`), and prints its next steps. Any mistake (a refused name or template, a usage error) or a folder that cannot be
created is one line on stderr and exit 2; nothing is left behind.
"""

from __future__ import annotations

import sys
from pathlib import Path

from silo.cli.args import UsageError, out, parse, run_command
from silo.loading.environment import find_project_dir
from silo.scaffold import (
    PACKAGE_TEMPLATES,
    TEMPLATES,
    create_environment,
    create_package,
    package_names,
)

__all__ = ["main"]

PROG = "silo-init"
USAGE = f"""usage: {PROG} <name> [template={"|".join(TEMPLATES)}]
       {PROG} --package <name> [template={"|".join(PACKAGE_TEMPLATES)}]

Create environments/<name>/ from a template (default: blank), or with --package an
installable package silo-env-<name>/ offering env=<name> (default template: minimal)."""


def main(argv: list[str] | None = None) -> int:
    """Create the environment named in ``argv`` (``sys.argv[1:]`` by default); the exit status."""
    words = sys.argv[1:] if argv is None else argv
    return run_command(PROG, lambda: _create(words), "interrupted; nothing was created")


def _create(words: list[str]) -> int:
    args = parse(words, ("template", "name"), ("--package",), positionals=1)
    if args.help:
        out(USAGE)
        return 0
    name = args.values.get("name") or (args.positionals[0] if args.positionals else "")
    if not name:
        raise UsageError(f"missing the environment name; {USAGE.splitlines()[0]}")
    as_package = "--package" in args.flags
    template = args.values.get("template") or ("minimal" if as_package else "blank")
    try:
        if as_package:
            root = create_package(Path.cwd(), name, template)
        else:
            root = create_environment(find_project_dir(), name, template)
    except OSError as exc:
        where = package_names(name)[0] if as_package else f"environments/{name}"
        sys.stderr.write(f"{PROG}: could not create {where}: {exc.strerror or exc}\n")
        return 2
    if as_package:
        out(f'Created package "{root.name}" offering env={name} (from {template}) at {root.name}/')
        out(_package_steps(root, name))
        return 0
    out(f'Created environment "{name}" from {template} at environments/{name}')
    out(_next_steps(root, name))
    return 0


def _package_steps(root: Path, name: str) -> str:
    return "\n".join(
        [
            "Next steps:",
            f"  1. cd {root.name} && pip install -e '.[test]'",
            "  2. silo-baseline record   (the goldens under baselines/)",
            f"  3. python -m pytest      (then silo-run env={name} works in any folder)",
        ]
    )


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
