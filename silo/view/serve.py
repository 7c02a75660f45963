"""``silo-view serve``: the site on 127.0.0.1, rebuilt as runs land, for watching a sweep live.

Contract: :class:`LiveSite` owns one site (a runs folder and an output folder) and a build
counter; :meth:`LiveSite.refresh` runs :func:`silo.view.build.build_site` and bumps the counter
when anything was rendered. :func:`make_server` returns a stdlib ``ThreadingHTTPServer`` bound to
``127.0.0.1`` only (never another interface) that serves the output folder read-only and
answers :data:`silo.view.site_shell.VERSION_PATH` with the counter, which the pages poll to
reload themselves. :func:`serve` builds, starts a thread that refreshes every ``interval``
seconds (a build that fails is skipped: the watcher keeps running), and serves until
interrupted.

A request whose ``Host`` is not a loopback name (``127.0.0.1``, ``localhost``, ``[::1]``) or one
of ``allowed_hosts`` is refused with 403, so a DNS-rebinding page cannot read the runs. A path
that is not a file of the site (a symbolic link out of it, a NUL byte, a folder) is 404, and
a client that goes away mid-answer is no traceback.
"""

from __future__ import annotations

import os
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from silo.view.build import BuildResult, build_site
from silo.view.site_shell import VERSION_PATH

__all__ = ["LiveSite", "make_server", "serve"]

HOST = "127.0.0.1"
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
"""The ``Host`` names always served: only this machine's own."""


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

    def __init__(
        self, *args: Any, site: LiveSite, allowed_hosts: frozenset[str], **kwargs: Any
    ) -> None:
        self.site = site
        self.allowed_hosts = allowed_hosts
        super().__init__(*args, directory=str(site.out_dir), **kwargs)

    def _host_allowed(self) -> bool:
        host = (self.headers.get("Host") or "").strip().lower()
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 or "]:" in host else host
        return name in LOOPBACK_NAMES or name in self.allowed_hosts

    def _inside_site(self) -> bool:
        """Whether the request names a path whose real location is inside the site."""
        try:
            target = os.path.realpath(self.translate_path(self.path))
        except ValueError:  # a NUL byte, an undecodable path
            return False
        root = os.path.realpath(self.directory)
        return target == root or target.startswith(root + os.sep)

    def do_GET(self) -> None:
        """A file of the site, or the build counter at the version path."""
        if not self._host_allowed():
            self.send_error(403, "Host not allowed: open the site at 127.0.0.1 or localhost")
            return
        if self.path.split("?")[0] != VERSION_PATH:
            if not self._inside_site() or "\0" in self.path:
                self.send_error(404, "Not found")
                return
            try:
                super().do_GET()
            except ValueError:  # a path the file system cannot take
                self.send_error(404, "Not found")
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


class _QuietServer(ThreadingHTTPServer):
    """A server that says nothing when a client goes away mid-answer."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet: a dropped connection is the client's business, not a traceback."""


def make_server(
    site: LiveSite, port: int, allowed_hosts: frozenset[str] = frozenset()
) -> ThreadingHTTPServer:
    """An HTTP server for ``site`` on ``127.0.0.1:port`` (0: any free port).

    ``allowed_hosts`` are ``Host`` names served besides the loopback ones (lower case).
    """
    handler = partial(_Handler, site=site, allowed_hosts=allowed_hosts)
    return _QuietServer((HOST, port), handler)


def _watch(site: LiveSite, interval: float, stop: threading.Event) -> None:
    while not stop.wait(interval):
        try:
            site.refresh()
        except Exception:  # noqa: BLE001 - a run mid-write, a damaged file: the next pass
            continue


def serve(
    site: LiveSite,
    port: int,
    interval: float,
    ready: Any = print,
    allowed_hosts: frozenset[str] = frozenset(),
) -> None:
    """Build, then serve ``site`` and refresh it every ``interval`` s until interrupted."""
    site.refresh()
    server = make_server(site, port, allowed_hosts)
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, args=(site, interval, stop), daemon=True)
    watcher.start()
    ready(f"http://{HOST}:{server.server_address[1]}/index.html")
    try:
        server.serve_forever()
    finally:
        stop.set()
        server.server_close()
