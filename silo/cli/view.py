"""``silo-view``: the runs folder as a static site, or one run, group or sweep as one report.

Contract: ``silo-view [out=<folder>] [open=true|false]`` (no folder) builds or updates the site
of the project's ``.silo/runs/`` in ``out`` (default ``.silo/site/``) with
:func:`silo.view.build.build_site` and prints its index's path; ``silo-view serve [port=<n>]
[out=<folder>]`` builds it and serves it on 127.0.0.1 (:mod:`silo.view.serve`), rebuilding as
runs land, until Ctrl-C. ``silo-view <run-or-group> [out=<file.html>] [open=true|false]`` renders the folder
(a path, or a folder name under the project's ``.silo/runs/``) with :func:`silo.view.site.render`,
writes it to ``out`` (default ``<folder>/report.html``; a relative path is from the current
folder) with :func:`silo.view.site.write_report`, which replaces only an earlier ``silo-view``
report, and prints the report's absolute path. ``open=true`` also opens it in the default
browser (a browser that cannot be started is a note on stderr, not a failure). Exit status 0
written; 2 for a usage mistake, a missing folder, a folder that is no run, group or sweep, or a
report that cannot be written — one line on stderr, never a traceback.
"""

from __future__ import annotations

import errno
import sys
import webbrowser
from pathlib import Path

from silo.cli.args import UsageError, out, parse, parse_bool, run_command
from silo.loading.environment import find_project_dir
from silo.view.build import build_site
from silo.view.serve import LiveSite, serve
from silo.view.site import REPORT_NAME, render, resolve, write_report

__all__ = ["main"]

PROG = "silo-view"
SITE_DIR = Path(".silo") / "site"
USAGE = f"""usage: {PROG} <run-or-group> [out=<file.html>] [open=true|false]
       {PROG} [out=<folder>] [open=true|false]
       {PROG} serve [port=<n>] [out=<folder>] [allow_hosts=<name,...>]

Write one self-contained HTML report of a run, group or sweep folder (a path or a folder name
under .silo/runs/) and print its path: verdict, checks, the trace turn by turn, the state diff,
the config; for a group or sweep the summary table linking to every run.
out: where to write it (default: <folder>/{REPORT_NAME}); only an earlier report is replaced.
open: also open it in the default browser (default: false).

With no folder: build (or bring up to date, rendering only new runs) a static site of every
run, group and sweep under .silo/runs/ in out (default: {SITE_DIR}/) and print its index:
filters and search over all runs, charts per sweep, a page per run. serve: the same site on
http://127.0.0.1:<port>/ (default port 8765), rebuilt every 2 s so open pages refresh as runs
land; Ctrl-C stops it. It answers only requests addressed to 127.0.0.1, localhost or [::1]
(allow_hosts: more Host names to answer, e.g. a tunnel's).
Exit status: 0 written, 2 a usage mistake, a missing folder or one that holds no run
(a folder named serve: give it as ./serve)."""


def main(argv: list[str] | None = None) -> int:
    """Run ``silo-view`` on ``argv`` (default: the command line) and return its exit status."""
    words = sys.argv[1:] if argv is None else argv
    return run_command(PROG, lambda: _main(words))


def _main(words: list[str]) -> int:
    args = parse(words, ("out", "open", "port", "allow_hosts"), positionals=len(words))
    if args.help:
        out(USAGE)
        return 0
    show = parse_bool("open", args.values.get("open", "false"))
    if args.positionals in ([], ["serve"]):
        return _site(args.values, show, serving=bool(args.positionals))
    for key in ("port", "allow_hosts"):
        if key in args.values:
            raise UsageError(f"{key}= is for serve: silo-view serve {key}=...")
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


def _site(values: dict[str, str], show: bool, serving: bool) -> int:
    """Build the site (and serve it when ``serving``): the no-folder forms of the command."""
    if values.get("out") == "":
        raise UsageError("out= needs a folder name, e.g. out=site")
    project = find_project_dir()
    site_dir = Path(values["out"]).expanduser() if "out" in values else project / SITE_DIR
    runs_dir = project / ".silo" / "runs"
    if not runs_dir.is_dir():
        raise UsageError(f"no runs yet: {runs_dir} does not exist; run silo-run first")
    if site_dir.exists() and not site_dir.is_dir():
        raise UsageError(f"{site_dir} is a file; give out=<folder> for the site")
    try:
        if serving:
            port = _port(values.get("port", "8765"))
            hosts = frozenset(h.strip().lower() for h in values.get("allow_hosts", "").split(","))
            live = LiveSite(runs_dir, site_dir)
            try:
                serve(
                    live,
                    port,
                    2.0,
                    ready=lambda url: out(f"serving {url} (Ctrl-C stops)"),
                    allowed_hosts=hosts - {""},
                )
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise UsageError(
                        f"port {port} is in use by another program; stop it, or give another "
                        "port= (port=0 picks a free one)"
                    ) from None
                raise
            return 0
        for key in ("port", "allow_hosts"):
            if key in values:
                raise UsageError(f"{key}= is for serve: silo-view serve {key}=...")
        index = build_site(runs_dir, site_dir).index.resolve()
    except OSError as exc:
        raise UsageError(
            f"{exc}; check the folder's permissions, or give another out=/port="
        ) from None
    out(str(index))
    if show and not _open(index):
        sys.stderr.write(f"{PROG}: no browser could be started; open {index} yourself\n")
    return 0


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise UsageError(f'port= must be a number from 0 to 65535, not "{text}"')
    return int(text)


def _open(path: Path) -> bool:
    try:
        return webbrowser.open(path.as_uri())
    except webbrowser.Error:
        return False
