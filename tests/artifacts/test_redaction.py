"""No secret reaches disk or screen: an echoing endpoint, a key in base_url, every file grepped.

A model agent talks to a stdlib HTTP server on loopback that answers 200 with text echoing the
request (its ``Authorization: Bearer <key>`` header first). The key is in a variable whose name
says nothing (``agent.api_key_env``), and ``base_url`` carries a password, an ``api_key=``
query and a fragment. After ``silo-run`` (a single run and a group) and ``silo-view`` (the
site and a report), neither the output nor any file under the project holds any of them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from silo.redact import MASK, redact, redact_value
from tests.cli._console import run
from tests.waiting import QUICK_STOP

KEY = "sk-SECRET-123"
SECRETS = (KEY, "pw-SECRET-456", "q-SECRET-789", "frag-SECRET")


class _Echo(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        text = (
            f"Authorization: {self.headers.get('Authorization')}\nECHO {self.path}\n".encode()
            + body[:300]
        )
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet."""


@pytest.fixture
def echo_port() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, kwargs=QUICK_STOP, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def _leaks(root: Path, *texts: str) -> list[str]:
    found = [f"output: {s}" for s in SECRETS for t in texts if s in t]
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            found += [f"{path.relative_to(root)}: {s}" for s in SECRETS if s.encode() in data]
    return found


def test_no_key_reaches_any_artifact_page_or_line(toy_project: Path, echo_port: int) -> None:
    url = f"http://user:pw-SECRET-456@127.0.0.1:{echo_port}/v1?api_key=q-SECRET-789#frag-SECRET"
    agent = ("agent=openai", "agent.model=m", "agent.api_key_env=SILO_TEST_CRED",
             f"agent.base_url='{url}'")  # fmt: skip
    env = {"SILO_TEST_CRED": KEY}
    single = run("silo-run", toy_project, "env=toy", "task=TASK-001", *agent, extra_env=env)
    assert "Traceback" not in single.stderr, single.stderr
    assert "error: the model endpoint at http://user:***@127.0.0.1:" in single.stdout
    group = run(
        "silo-run", toy_project, "env=toy", "task=TASK-001", "runs=2", *agent, extra_env=env
    )
    assert "Traceback" not in group.stderr, group.stderr
    site = run("silo-view", toy_project, "open=false")
    assert site.returncode == 0, site.stderr
    (folder,) = [p for p in (toy_project / ".silo" / "runs").iterdir() if p.name.startswith("run_")]
    report = run("silo-view", toy_project, str(folder), "open=false")
    assert report.returncode == 0, report.stderr
    outputs = [p.stdout + p.stderr for p in (single, group, site, report)]
    assert (toy_project / ".silo" / "site" / "index.html").is_file()
    assert (folder / "trace.jsonl").read_text().count(MASK) >= 1
    assert _leaks(toy_project, *outputs) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://me:hunter22@example.com/x", "https://me:***@example.com/x"),
        ("http://h/v1?api_key=abc123&model=m", "http://h/v1?api_key=***&model=m"),
        ("http://h/v1?x=1&access_token=abc", "http://h/v1?x=1&access_token=***"),
        ("http://h/v1#token-in-fragment", "http://h/v1#***"),
        ("Authorization: Bearer sk-abcdefgh", "Authorization: Bearer ***"),
        ("Authorization: Basic dXNlcjpwYXNz==", "Authorization: Basic ***"),
        ('{"auth": "Token   abcdefgh12"}', '{"auth": "Token   ***"}'),
        ("a Bearer of news, Token ring", "a Bearer of news, Token ring"),
        ("choices: basic hydra/launcher=joblib", "choices: basic hydra/launcher=joblib"),
        ('{"u": "http://a:b@c", "v": "x@y"}', '{"u": "http://a:***@c", "v": "x@y"}'),
        ("no secret here: a=b, x@y.z", "no secret here: a=b, x@y.z"),
    ],
)
def test_credentials_in_urls_and_headers_are_masked(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_a_key_in_the_environment_is_masked_wherever_it_appears(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOME_SERVICE_API_KEY", "k-SECRET-424242")
    value = {"k-SECRET-424242": ["echo: k-SECRET-424242!"], "n": 1}
    assert redact_value(value) == {MASK: [f"echo: {MASK}!"], "n": 1}
    clean = {"a": ["b"]}
    assert redact_value(clean) is clean
