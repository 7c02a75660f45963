"""``silo-view serve``: the site on 127.0.0.1, rebuilt as runs land, for watching a sweep live.

Contract: :class:`LiveSite` owns one site (a runs folder and an output folder) and a build
counter; :meth:`LiveSite.refresh` runs :func:`silo.view.build.build_site` and bumps the counter
when anything was rendered. :func:`make_server` returns a stdlib ``ThreadingHTTPServer`` bound to
``127.0.0.1`` only (never another interface) that serves the output folder read-only and
answers :data:`silo.view.site_shell.VERSION_PATH` with the counter, which the pages poll to
reload themselves. :func:`serve` builds, starts a thread that refreshes every ``interval``
seconds, and serves until interrupted.
"""

from __future__ import annotations

import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from silo.view.build import BuildResult, build_site
from silo.view.site_shell import VERSION_PATH

__all__ = ["LiveSite", "make_server", "serve"]

HOST = "127.0.0.1"


class LiveSite:
    """A site that is rebuilt on demand, with a counter of the builds that changed it."""

    def __init__(self, runs_dir: Path, out_dir: Path) -> None:
        """Hold the site of ``runs_dir`` written to ``out_dir``; nothing is built yet."""
        self.runs_dir, self.out_dir = runs_dir, out_dir
        self._lock = threading.Lock()
        self._version = 0

    @property
    def version(self) -> int:
        """How many builds have changed the site so far (what the pages poll)."""
        with self._lock:
            return self._version

    def refresh(self) -> BuildResult:
        """Bring the site up to date; bump the version when a page was rendered."""
        with self._lock:
            result = build_site(self.runs_dir, self.out_dir)
            if result.rendered_runs or result.rendered_groups or self._version == 0:
                self._version += 1
            return result


class _Handler(SimpleHTTPRequestHandler):
    """Serves the site's files; the version path answers with the build counter."""

    def __init__(self, *args: Any, site: LiveSite, **kwargs: Any) -> None:
        self.site = site
        super().__init__(*args, directory=str(site.out_dir), **kwargs)

    def do_GET(self) -> None:
        """A file of the site, or the build counter at the version path."""
        if self.path.split("?")[0] != VERSION_PATH:
            super().do_GET()
            return
        data = str(self.site.version).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the stdlib's name)
        """Quiet: a live page polls every two seconds, which is no news."""


def make_server(site: LiveSite, port: int) -> ThreadingHTTPServer:
    """An HTTP server for ``site`` on ``127.0.0.1:port`` (0: any free port)."""
    return ThreadingHTTPServer((HOST, port), partial(_Handler, site=site))


def _watch(site: LiveSite, interval: float, stop: threading.Event) -> None:
    while not stop.wait(interval):
        try:
            site.refresh()
        except OSError:  # a run folder vanished mid-walk: the next pass sees the new state
            continue


def serve(site: LiveSite, port: int, interval: float, ready: Any = print) -> None:
    """Build, then serve ``site`` and refresh it every ``interval`` s until interrupted."""
    site.refresh()
    server = make_server(site, port)
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, args=(site, interval, stop), daemon=True)
    watcher.start()
    ready(f"http://{HOST}:{server.server_address[1]}/index.html")
    try:
        server.serve_forever()
    finally:
        stop.set()
        server.server_close()
