"""``silo-validate``: check environments before anyone evaluates on them.

Contract: ``silo-validate [env=<name>] [deep=true|false] [format=text|json] [--json]`` prints the
validation report of one environment, or of every environment under ``environments/`` when no
``env=`` is given (:func:`silo.validate.report.validate_environment`). Text: one line per finding
(``LEVEL  code  message``) then ``OK|FAILED  <env>  data=N tasks=N tools=N verifiers=N``; JSON:
the report object, or ``{"ok", "environments": [reports]}`` for all of them. Exit status 0 when
no error-level finding, 1 when there is one, 2 for a usage mistake or a missing environment —
one line on stderr, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from silo.cli.args import UsageError, out, output_format, parse, parse_bool, run_command
from silo.loading.environment import find_project_dir, list_environments
from silo.validate.report import Report, validate_environment

__all__ = ["main"]

PROG = "silo-validate"
USAGE = f"""usage: {PROG} [env=<name>] [deep=true|false] [format=text|json] [--json]

Check an environment (all of environments/ when env= is omitted) before evaluating on it.
deep: run the solver, the no-op agent and the state checks (default: when solver.py exists).
Exit status: 0 no errors, 1 an error-level finding, 2 a usage mistake."""


def main(argv: list[str] | None = None) -> int:
    """Run ``silo-validate`` on ``argv`` (``sys.argv[1:]`` by default); the exit status."""
    words = sys.argv[1:] if argv is None else argv
    return run_command(PROG, lambda: _main(words))


def _main(words: list[str]) -> int:
    args = parse(words, ("env", "deep", "format"), ("--json",))
    if args.help:
        out(USAGE)
        return 0
    fmt = output_format(args)
    deep = parse_bool("deep", args.values["deep"]) if "deep" in args.values else None
    project = find_project_dir()
    name = args.values.get("env")
    if name is not None:
        if not name:
            raise UsageError("env= needs an environment name")
        report = validate_environment(name, project, deep)
        out(json.dumps(report.to_json(), indent=2) if fmt == "json" else report.to_text())
        return 0 if report.ok else 1
    names = list_environments(project)
    if not names:
        raise UsageError(
            f"no environments in {project / 'environments'}; create one with: silo-init <name>"
        )
    return _validate_all(names, project, deep, fmt)


def _validate_all(names: list[str], project: Path, deep: bool | None, fmt: str) -> int:
    reports: list[Report] = []
    for index, name in enumerate(names):
        report = validate_environment(name, project, deep)
        reports.append(report)
        if fmt == "text":
            out(("\n" if index else "") + report.to_text())
    failed = [r.environment for r in reports if not r.ok]
    if fmt == "json":
        document = {"ok": not failed, "environments": [r.to_json() for r in reports]}
        out(json.dumps(document, indent=2))
    else:
        summary = f"{len(reports) - len(failed)} of {len(reports)} environments OK"
        out(f"\n{summary}" + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0
