"""silo-mcp as a user runs it, for the MCP tests: the console script in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SILO_MCP = str(Path(sys.executable).parent / "silo-mcp")
START_S = 60.0  # safety net for start-up (1.5-3 s on a loaded 2-core VM)


@dataclass
class HttpServer:
    """A running ``silo-mcp transport=http``: its base URL, runs folder and process."""

    base: str
    runs: Path
    proc: subprocess.Popen[str]

    @property
    def url(self) -> str:
        """The MCP endpoint of handshake-era sessions."""
        return f"{self.base}/mcp"

    def stop(self) -> str:
        """SIGTERM, wait for the exit, and return what it wrote on stderr."""
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=START_S)
        assert self.proc.stderr is not None
        return self.proc.stderr.read()


@contextmanager
def http_server(
    runs: Path, *args: str, env: dict[str, str] | None = None, silo_mcp: str = SILO_MCP
) -> Iterator[HttpServer]:
    """Start silo-mcp on a free port and wait for its ready line (it names the port).

    ``silo_mcp`` is the console script to run: this venv's by default; a client's own venv
    (verifiers pins an older mcp) runs the one of a venv with Silo's [mcp] extra.
    """
    command = [silo_mcp, f"runs_dir={runs}", "transport=http", "port=0", *args]
    proc = subprocess.Popen(command, cwd=REPO, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    line = proc.stderr.readline()  # blocks until the ready line or the exit
    assert " on http://" in line, line + proc.stderr.read()
    server = HttpServer(line.split(" on ", 1)[1].strip().removesuffix("/mcp"), runs, proc)
    try:
        yield server
    finally:
        server.stop()


def wait_for(path_glob: str, folder: Path, count: int = 1, limit_s: float = 60.0) -> list[Path]:
    """Wait until ``count`` files match in ``folder`` (the limit is a safety net)."""
    deadline = time.monotonic() + limit_s
    while len(found := sorted(folder.glob(path_glob))) < count:
        assert time.monotonic() < deadline, f"waited {limit_s} s for {count} {path_glob}"
        time.sleep(0.05)
    return found


def results(runs: Path) -> list[dict[str, Any]]:
    """Every ``result.json`` under ``runs``, parsed."""
    return [json.loads(p.read_text()) for p in sorted(runs.glob("*/result.json"))]
