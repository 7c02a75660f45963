"""``silo-validate``: check environments before anyone evaluates on them.

Contract: ``silo-validate [env=<name>] [deep=true|false] [format=text|json] [--json]`` prints the
validation report of one environment, or of every environment under ``environments/`` when no
``env=`` is given (:func:`silo.validate.report.validate_environment`). Text: one line per finding
(``LEVEL  code  message``) then ``OK|FAILED  <env>  data=N tasks=N tools=N verifiers=N``; JSON:
the report object, or ``{"ok", "environments": [reports]}`` for all of them. Exit status 0 when
no error-level finding, 1 when there is one, 2 when a file cannot be read as it must be (a
malformed task, manifest or data file: the report still lists every finding, and one line on
stderr names the file), and 2 for a usage mistake or a missing environment — one line on
stderr, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from silo.cli.args import UsageError, out, output_format, parse, parse_bool, run_command
from silo.loading.environment import find_project_dir, list_environments
from silo.validate.report import Report, validate_environment

if TYPE_CHECKING:
    from silo.validate.deep import DeepOptions

__all__ = ["main"]

PROG = "silo-validate"
USAGE = f"""usage: {PROG} [env=<name>] [deep=true|false] [format=text|json] [--json]
       [budget.max_tool_calls=N] [budget.timeout_ms=MS] [time_limit_s=S] [progress=true|false]

Check an environment (all of environments/ when env= is omitted) before evaluating on it.
deep: run the solver, the no-op agent and the state checks (default: when solver.py exists).
budget.*: each deep rollout's budget (default 100 calls, 120000 ms); time_limit_s: for all of
them (default 600); progress: a line on stderr before each rollout (default: on a terminal).
Exit status: 0 no errors, 1 an error-level finding, 2 a malformed file or a usage mistake."""
_KEYS = ("env", "deep", "format", "budget.max_tool_calls", "budget.timeout_ms", "time_limit_s",
         "progress")  # fmt: skip
DEFAULT_TIME_LIMIT_S = 600.0


def main(argv: list[str] | None = None) -> int:
    """Run ``silo-validate`` on ``argv`` (``sys.argv[1:]`` by default); the exit status."""
    words = sys.argv[1:] if argv is None else argv
    return run_command(PROG, lambda: _main(words))


def _main(words: list[str]) -> int:
    args = parse(words, _KEYS, ("--json",))
    if args.help:
        out(USAGE)
        return 0
    fmt = output_format(args)
    deep = parse_bool("deep", args.values["deep"]) if "deep" in args.values else None
    options = _deep_options(args.values)
    project = find_project_dir()
    name = args.values.get("env")
    if name is not None:
        if not name:
            raise UsageError("env= needs an environment name")
        report = validate_environment(name, project, deep, options)
        out(json.dumps(report.to_json(), indent=2) if fmt == "json" else report.to_text())
        return _status([report])
    names = list_environments(project)
    if not names:
        raise UsageError(
            f"no environments in {project / 'environments'}; create one with: silo-init <name>"
        )
    return _validate_all(names, project, deep, fmt, options)


def _deep_options(values: dict[str, str]) -> DeepOptions:
    """The deep checks' budget, time limit and progress from the command line's values."""
    from silo.errors import ConfigError
    from silo.rollout.result import Budget
    from silo.validate.deep import DeepOptions

    budget = {k.split(".", 1)[1]: v for k, v in values.items() if k.startswith("budget.")}
    try:
        limits = Budget.of({k: int(v) for k, v in budget.items()})
    except ValueError:
        raise ConfigError(
            "budget_invalid", "budget.max_tool_calls and budget.timeout_ms take whole numbers"
        ) from None
    raw_limit = values.get("time_limit_s", str(DEFAULT_TIME_LIMIT_S))
    try:
        time_limit = float(raw_limit)
    except ValueError:
        time_limit = -1.0
    if not time_limit > 0:
        raise UsageError(f"time_limit_s= takes a positive number of seconds, not {raw_limit!r}")
    shown = values.get("progress")
    on = sys.stderr.isatty() if shown is None else parse_bool("progress", shown)
    return DeepOptions(limits, time_limit, _progress if on else None)


def _progress(line: str) -> None:
    sys.stderr.write(f"{PROG}: {line}\n")
    sys.stderr.flush()


def _validate_all(
    names: list[str], project: Path, deep: bool | None, fmt: str, options: DeepOptions
) -> int:
    reports: list[Report] = []
    for index, name in enumerate(names):
        report = validate_environment(name, project, deep, options)
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
    return _status(reports)


def _status(reports: list[Report]) -> int:
    """The exit status of ``reports``; for a malformed file, one line on stderr naming it."""
    malformed = [f for r in reports for f in r.malformed()]
    if malformed:
        more = f" (and {len(malformed) - 1} more: see the report)" if len(malformed) > 1 else ""
        sys.stderr.write(f"{PROG}: {malformed[0].message}{more}\n")
        sys.stderr.flush()
    return max((r.exit_status for r in reports), default=0)
