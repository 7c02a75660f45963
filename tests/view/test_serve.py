"""silo.view.serve: the site over HTTP on 127.0.0.1, and the version the pages poll."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from silo.view.serve import LiveSite, make_server
from silo.view.site_shell import VERSION_PATH
from tests.view.test_site import _loose, _runs
from tests.waiting import QUICK_STOP, SAFETY_S


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=SAFETY_S) as answer:  # noqa: S310 (a local test server)
        text: str = answer.read().decode("utf-8")
        return text


@pytest.fixture
def served(toy_project: Path, tmp_path: Path) -> Iterator[tuple[LiveSite, str]]:
    _loose(toy_project)
    site = LiveSite(_runs(toy_project), tmp_path / "site")
    site.refresh()
    server = make_server(site, 0)
    thread = threading.Thread(target=server.serve_forever, kwargs=QUICK_STOP, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    try:
        yield site, f"http://{host!s}:{port}"
    finally:
        server.shutdown()
        server.server_close()


def test_serves_the_site_on_loopback_and_bumps_the_version_when_a_run_lands(
    toy_project: Path, served: tuple[LiveSite, str]
) -> None:
    site, base = served
    assert base.startswith("http://127.0.0.1:")
    assert "Silo runs" in _get(f"{base}/index.html")
    first = _get(base + VERSION_PATH)
    site.refresh()  # nothing new: the pages must not reload
    assert _get(base + VERSION_PATH) == first
    folder = _loose(toy_project, "noop")
    site.refresh()
    assert int(_get(base + VERSION_PATH)) == int(first) + 1
    assert folder.name in _get(f"{base}/index.html")
    assert "FAIL" in _get(f"{base}/runs/{folder.name}.html")
    with pytest.raises(urllib.error.HTTPError) as missing:
        _get(f"{base}/../../etc/passwd")
    assert missing.value.code == 404
