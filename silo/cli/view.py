"""``silo-view``: a run, group or sweep folder as one static HTML report.

Contract: ``silo-view <run-or-group> [out=<file.html>] [open=true|false]`` renders the folder
(a path, or a folder name under the project's ``.silo/runs/``) with :func:`silo.view.site.render`,
writes it to ``out`` (default ``<folder>/report.html``; a relative path is from the current
folder) with :func:`silo.view.site.write_report`, which replaces only an earlier ``silo-view``
report, and prints the report's absolute path. ``open=true`` also opens it in the default
browser (a browser that cannot be started is a note on stderr, not a failure). Exit status 0
written; 2 for a usage mistake, a missing folder, a folder that is no run, group or sweep, or a
report that cannot be written — one line on stderr, never a traceback.
"""

from __future__ import annotations

import sys
import webbrowser
from pathlib import Path

from silo.cli.args import UsageError, out, parse, parse_bool, run_command
from silo.loading.environment import find_project_dir
from silo.view.site import REPORT_NAME, render, resolve, write_report

__all__ = ["main"]

PROG = "silo-view"
USAGE = f"""usage: {PROG} <run-or-group> [out=<file.html>] [open=true|false]

Write one self-contained HTML report of a run, group or sweep folder (a path or a folder name
under .silo/runs/) and print its path: verdict, checks, the trace turn by turn, the state diff,
the config; for a group or sweep the summary table linking to every run.
out: where to write it (default: <folder>/{REPORT_NAME}); only an earlier report is replaced.
open: also open it in the default browser (default: false).
Exit status: 0 written, 2 a usage mistake, a missing folder or one that holds no run."""


def main(argv: list[str] | None = None) -> int:
    """Run ``silo-view`` on ``argv`` (``sys.argv[1:]`` by default); the exit status."""
    words = sys.argv[1:] if argv is None else argv
    return run_command(PROG, lambda: _main(words))


def _main(words: list[str]) -> int:
    args = parse(words, ("out", "open"), positionals=len(words))
    if args.help:
        out(USAGE)
        return 0
    show = parse_bool("open", args.values.get("open", "false"))
    if len(args.positionals) != 1:
        raise UsageError(
            f"give one folder (got {len(args.positionals)}): {PROG} <run-or-group> "
            "(a run, group or sweep folder, as a path or a name under .silo/runs/)"
        )
    if args.values.get("out") == "":
        raise UsageError("out= needs a file name, e.g. out=report.html")
    target = Path(args.values["out"]).expanduser() if "out" in args.values else None
    try:  # an unreadable folder, a report that cannot be written
        folder, kind = resolve(args.positionals[0], find_project_dir())
        path = write_report(render(folder, kind), target or folder / REPORT_NAME).resolve()
    except OSError as exc:
        raise UsageError(f"{exc}; check the folder's permissions or give out=<file>") from None
    out(str(path))
    if show and not _open(path):
        sys.stderr.write(f"{PROG}: no browser could be started; open {path} yourself\n")
    return 0


def _open(path: Path) -> bool:
    try:
        return webbrowser.open(path.as_uri())
    except webbrowser.Error:
        return False
