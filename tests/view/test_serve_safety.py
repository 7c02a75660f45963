"""``silo-view serve`` answers only this machine, serves only the site, and outlives bad files.

Through real HTTP requests to a ``silo-view serve`` subprocess: a foreign ``Host`` is 403 (a
DNS-rebinding page cannot read runs) unless ``allow_hosts`` names it; ``GET /%00`` and a
symbolic link out of the site are 404 with no traceback; a run whose ``run.json`` is 100,000
levels deep is shown as unreadable and the watcher keeps rebuilding; a run folder whose
``trace.jsonl`` links to a secret file never puts that file on a page or in a report; a port in
use is one line saying so.
"""

from __future__ import annotations

import http.client
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli._console import one_line_error, run
from tests.conftest import script
from tests.view.test_site import _loose

SECRET = "TOP-SECRET-SHADOW-LINE"


def _get(port: int, path: str, host: str = "127.0.0.1") -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.putrequest("GET", path, skip_host=True)
        conn.putheader("Host", host)
        conn.endheaders()
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


@pytest.fixture
def served(toy_project: Path) -> Iterator[tuple[int, Path, subprocess.Popen[str]]]:
    folder = _loose(toy_project)
    secret = toy_project.parent / "shadow"
    secret.write_text(SECRET)
    (folder / "trace.jsonl").unlink()
    (folder / "trace.jsonl").symlink_to(secret)
    proc = subprocess.Popen(
        [script("silo-view"), "serve", "port=0", "allow_hosts=tunnel.example"],
        cwd=toy_project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # the ready line: "serving http://127.0.0.1:<port>/..."
        assert line.startswith("serving http://127.0.0.1:"), line + proc.stderr.read()
        port = int(line.split(":")[2].split("/")[0])
        yield port, toy_project, proc
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_serve_answers_only_loopback_and_allowed_hosts(
    served: tuple[int, Path, subprocess.Popen[str]],
) -> None:
    port = served[0]
    assert _get(port, "/index.html")[0] == 200
    assert _get(port, "/index.html", f"localhost:{port}")[0] == 200
    assert _get(port, "/index.html", "tunnel.example")[0] == 200
    for foreign in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example", ""):
        assert _get(port, "/index.html", foreign)[0] == 403, foreign


def test_odd_paths_and_links_out_are_404_and_no_secret_is_served(
    served: tuple[int, Path, subprocess.Popen[str]],
) -> None:
    port, project, proc = served
    site = project / ".silo" / "site"
    (site / "out.html").symlink_to(project.parent / "shadow")
    for path in ("/%00", "/out.html", "/..%2f..%2fshadow", "/runs/%00.html"):
        assert _get(port, path)[0] == 404, path
    pages = [p for p in site.rglob("*.html") if not p.is_symlink()]
    assert pages and all(SECRET not in p.read_text("utf-8") for p in pages)
    (run_page,) = site.glob("runs/run_*.html")
    assert "trace.jsonl unreadable: is a symbolic link, which is not followed" in (
        run_page.read_text("utf-8")
    )
    proc.terminate()
    _, stderr = proc.communicate(timeout=60)
    assert "Traceback" not in stderr


def test_a_100000_deep_run_json_is_unreadable_and_the_watcher_keeps_running(
    served: tuple[int, Path, subprocess.Popen[str]],
) -> None:
    port, project, proc = served
    runs = project / ".silo" / "runs"
    (deep,) = list(runs.iterdir())
    (deep / "run.json").write_text("[" * 100_000 + "]" * 100_000)
    fresh = _loose(project)  # lands after the damaged one: the watcher must still build it
    page = project / ".silo" / "site" / "runs" / f"{fresh.name}.html"
    deadline = time.monotonic() + 120  # safety net: the watcher rebuilds every 2 s
    while not page.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert page.exists(), "the watcher stopped rebuilding"
    assert _get(port, "/index.html")[0] == 200


def test_a_report_never_follows_a_link_out_of_the_run_folder(toy_project: Path) -> None:
    folder = _loose(toy_project)
    secret = toy_project.parent / "shadow"
    secret.write_text(SECRET)
    (folder / "trace.jsonl").unlink()
    (folder / "trace.jsonl").symlink_to(secret)
    proc = run("silo-view", toy_project, str(folder), "open=false")
    assert proc.returncode == 0, proc.stderr
    assert SECRET not in (folder / "report.html").read_text("utf-8")


def test_a_port_in_use_is_one_line_saying_so(toy_project: Path) -> None:
    _loose(toy_project)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = run("silo-view", toy_project, "serve", f"port={port}")
    assert proc.returncode == 2
    assert one_line_error(proc, "silo-view") == (
        f"port {port} is in use by another program; stop it, or give another port= "
        "(port=0 picks a free one)"
    )


def test_a_deep_run_json_is_unreadable_in_a_report_and_one_line_in_compare(
    toy_project: Path,
) -> None:
    folder = _loose(toy_project)
    (folder / "run.json").write_text("[" * 100_000 + "]" * 100_000)
    report = run("silo-view", toy_project, str(folder), "open=false")
    assert report.returncode == 0, report.stderr
    text = (folder / "report.html").read_text("utf-8")
    assert "run.json unreadable: nests deeper than 1,024 levels" in text
    site = run("silo-view", toy_project)
    assert site.returncode == 0 and "Traceback" not in site.stderr, site.stderr
    compared = run("silo-compare", toy_project, str(folder), str(folder))
    assert compared.returncode == 2
    assert "holds no finished rollout" in one_line_error(compared, "silo-compare")
