"""The harness agent: one coding-agent CLI per rollout, headless, in a home of its own.

Contract: :class:`HarnessAgent` is built from a config (``conf/agent/claude_code.yaml``,
``codex.yaml``, ``harness.yaml``): a ``command`` (the CLI and its flags), ``files`` (path under
the home -> text) and ``env`` (name -> value), all templates in which ``{{home}}``,
``{{mcp_url}}``, ``{{proxy_url}}``, ``{{model}}``, ``{{prompt}}``, ``{{task}}`` and
``{{task_id}}`` are replaced for each rollout. Building it checks that the CLI is installed (a
missing one is a one-line :class:`~silo.errors.AgentLoadError` saying how to install it: the
run cannot start, exit 2), that the key named by ``api_key_env`` is set (unless the upstream is
on loopback) and reads the CLI's version (``version_command``). ``identity`` (what
``run.json`` records as ``agentIdentity``) names the harness, its version, the model and the
upstream.

Each rollout: the rollout is seated at the MCP door and given a proxy route; a temporary home
(``HOME`` and the ``XDG_*`` folders; the templates put ``CODEX_HOME`` and
``CLAUDE_CONFIG_DIR`` under it) gets the rendered files; the
CLI runs there in a new process group, stdin closed, its stdout and stderr written to
``harness-stdout.txt`` and ``harness-stderr.txt`` in the run folder. Environment variables
whose names say they hold a secret are not passed on: the CLI holds the proxy's placeholder key
and the proxy adds the real one (``api_key_env``). The rollout's deadline, an interrupt or a
CLI still running ``finish_grace_s`` after ``silo_finish`` (or after the call over
``max_tool_calls``, whose refusal reaches the model as a tool error) ends the process group
(SIGTERM, then SIGKILL). ``run.json`` gets ``harness``: ``exitStatus`` and ``stderrTail``.

The answer is ``silo_finish``'s, else the model's last text. A CLI that exits non-zero without
finishing ends the run as ``model_error`` when its model upstream failed it (unreachable, 429,
5xx), else as ``agent_error`` with its status and last stderr line. With ``replay`` (a run's
``trace.jsonl``) the upstream is a :class:`~silo.integrations.harness.replay.ReplayScript`
playing that run's calls, and the agent is deterministic.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from silo.agents.contract import AgentError, AgentInput, ModelError
from silo.errors import AgentLoadError
from silo.integrations.harness.door import DOOR, Seat
from silo.integrations.harness.proxy import PROXY, Route
from silo.integrations.harness.replay import ReplayScript
from silo.integrations.mcp_http import is_loopback
from silo.redact import redact
from silo.rollout.core import ACTIVE_ROLLOUT

__all__ = ["PLACEHOLDERS", "HarnessAgent", "render"]

DEFAULT_PROMPT = (
    "{{task}}\n\nUse the silo tools to do this. When you are done, call silo_finish with your "
    "final answer."
)
PLACEHOLDERS = ("home", "mcp_url", "proxy_url", "model", "prompt", "task", "task_id")
"""The names a template may use as ``{{name}}``."""
_SECRET_NAME = re.compile(r"API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|_KEY$", re.I)
_PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
_POLL_S = 0.05  # how often the wait looks at the rollout's signal and deadline
_TERM_S = 0.2  # SIGTERM to SIGKILL: a rollout ended by its budget must return within 0.3 s
_TAIL_LINES = 20
_TAIL_CHARS = 2000


def render(template: str, values: Mapping[str, str]) -> str:
    """``template`` with every ``{{name}}`` replaced; an unknown name is an AgentError."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            known = ", ".join(f"{{{{{k}}}}}" for k in values)
            raise AgentError(
                f"unknown placeholder {{{{{name}}}}} in a harness template; known: {known}"
            )
        return values[name]

    return _PLACEHOLDER.sub(value, template)


def _version(argv: Sequence[str]) -> str:
    """The first dotted version number the CLI prints, or ``unknown``."""
    try:
        done = subprocess.run(
            list(argv), capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    found = re.search(r"\d+\.\d+(?:\.\d+)?[\w.+-]*", done.stdout + done.stderr)
    return found.group(0) if found else "unknown"


class HarnessAgent:
    """A CLI agent played through Silo's MCP door and model proxy (see the module docstring)."""

    def __init__(
        self,
        command: Sequence[str] | None = None,
        harness: str = "harness",
        files: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        prompt: str = DEFAULT_PROMPT,
        model: str | None = None,
        upstream: str | None = None,
        api_key_env: str | None = None,
        replay: str | None = None,
        version_command: Sequence[str] | None = None,
        install: str | None = None,
        finish_grace_s: float = 30.0,
    ) -> None:
        """Check the settings and that the CLI is installed; read its version."""
        name = harness
        if not command:
            raise AgentError(f"agent={name} needs agent.command=[<cli>, <flag>, ...]")
        if (upstream is None) == (replay is None):
            raise AgentError(
                f"agent={name} needs one model upstream: agent.upstream=<base URL> or "
                "agent.replay=<a run's trace.jsonl> (a scripted replay)"
            )
        if model is None and replay is None:
            raise AgentError(f"agent={name} needs agent.model=<model name>")
        # A misspelt placeholder is a mistake in the config: say so before any rollout starts.
        for template in [*command, *(files or {}).values(), *(env or {}).values(), prompt]:
            render(str(template), {name: "" for name in PLACEHOLDERS})
        self.command = [str(part) for part in command]
        self.name = name
        self.files = {str(k): str(v) for k, v in (files or {}).items()}
        self.env = {str(k): str(v) for k, v in (env or {}).items()}
        self.prompt = prompt
        self.model = model or "silo-replay"
        self.script = None if replay is None else ReplayScript.from_trace(Path(replay))
        self.upstream = upstream
        self.key = os.environ.get(api_key_env) if api_key_env else None
        self.finish_grace_s = finish_grace_s
        if shutil.which(self.command[0]) is None:
            how = f"; install it: {install}" if install else ""
            raise AgentLoadError(
                "agent_not_found",
                f"agent={name}: {self.command[0]} is not installed (not on PATH){how}",
            )
        local = is_loopback(urlsplit(upstream or "").hostname or "")
        if upstream is not None and api_key_env and self.key is None and not local:
            raise AgentError(
                f"agent={name}: set {api_key_env} (the key the proxy adds to its requests to "
                f"{upstream}), or agent.api_key_env=null for an endpoint that takes none"
            )
        version = _version(version_command) if version_command else "unknown"
        self.deterministic = self.script is not None
        self.identity = {
            "kind": "harness",
            "harness": name,
            "version": version,
            "model": self.model,
            "upstream": f"replay:{Path(str(replay)).as_posix()}" if replay else upstream,
        }

    def __call__(self, inp: AgentInput) -> dict[str, Any]:
        """Play one rollout with the CLI (see the module docstring)."""
        rollout = ACTIVE_ROLLOUT.get()
        run_dir = None if rollout is None else rollout.run_dir
        seat = DOOR.open(inp)
        upstream: str | ReplayScript = self.script or str(self.upstream)
        route = PROXY.open(Route(upstream, inp.emit, self.key))
        home = Path(tempfile.mkdtemp(prefix=f"silo-{self.name}-"))
        logs = run_dir if run_dir is not None else home
        try:
            argv, env = self._prepare(inp, home, seat, route)
            with (
                open(logs / "harness-stdout.txt", "wb") as out,
                open(logs / "harness-stderr.txt", "wb") as err,
            ):
                status = self._play(argv, env, home, out, err, inp, seat)
            tail = _tail(logs / "harness-stderr.txt")
        finally:
            DOOR.close(seat)
            PROXY.close(route)
            shutil.rmtree(home, ignore_errors=True)
        if rollout is not None:
            rollout.extra["harness"] = {"exitStatus": status, "stderrTail": tail}
        if seat.finished.is_set():
            return {"output": seat.answer}
        if status != 0 and inp.signal.reason in (None, "max_tool_calls"):
            if route.failure is not None:
                raise ModelError(route.failure, connect_failed=route.connect_failed)
            last = tail.strip().splitlines()[-1:] or ["(nothing on stderr)"]
            raise AgentError(f"{self.name} exited with status {status}: {last[0]}")
        return {"output": route.last_text or ""}

    def _prepare(
        self, inp: AgentInput, home: Path, seat: Seat, route: Route
    ) -> tuple[list[str], dict[str, str]]:
        values = {
            "home": str(home),
            "mcp_url": seat.url,
            "proxy_url": route.url,
            "model": self.model,
            "task": inp.task,
            "task_id": inp.task_id,
        }
        values["prompt"] = render(self.prompt, values)
        for relative, template in self.files.items():
            path = home / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render(template, values), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not _SECRET_NAME.search(k)}
        env["HOME"] = str(home)
        # The user's own config folders stay out of the CLI's reach, as their HOME does.
        for name, sub in (
            ("XDG_CONFIG_HOME", ".config"),
            ("XDG_DATA_HOME", ".local/share"),
            ("XDG_STATE_HOME", ".local/state"),
            ("XDG_CACHE_HOME", ".cache"),
        ):
            env[name] = str(home / sub)
        env.update({k: render(v, values) for k, v in self.env.items()})
        return [render(part, values) for part in self.command], env

    def _play(
        self,
        argv: list[str],
        env: dict[str, str],
        home: Path,
        out: IO[bytes],
        err: IO[bytes],
        inp: AgentInput,
        seat: Seat,
    ) -> int:
        """Run the CLI to its end, or end its process group; its exit status."""
        try:
            process = subprocess.Popen(
                argv, cwd=home, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            raise AgentError(f"{self.name} could not start: {exc}") from None
        _LIVE.add(process)
        try:
            ended_at: float | None = None
            while True:
                try:
                    return process.wait(_POLL_S)
                except subprocess.TimeoutExpired:
                    pass
                now = time.monotonic()
                # After silo_finish, or the call over max_tool_calls (whose refusal the model
                # should read), the CLI has finish_grace_s to end on its own.
                spent = inp.signal.reason == "max_tool_calls"
                if ended_at is None and (seat.finished.is_set() or spent):
                    ended_at = now
                late = ended_at is not None and now - ended_at > self.finish_grace_s
                stopped = inp.signal.aborted and not spent
                if stopped or now >= inp.deadline or late:
                    return _end_group(process)
        finally:
            if process.poll() is None:
                _end_group(process)
            _LIVE.discard(process)


_LIVE: set[subprocess.Popen[bytes]] = set()


@atexit.register
def _kill_live() -> None:
    """At exit (Ctrl-C ends the process before an abandoned agent thread returns): no CLI left."""
    for process in list(_LIVE):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)


def _end_group(process: subprocess.Popen[bytes]) -> int:
    """SIGTERM the CLI's process group, SIGKILL what is left after a moment; its status."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            return process.wait(_TERM_S)
        except subprocess.TimeoutExpired:
            continue
    return process.wait()


def _tail(path: Path) -> str:
    """The last lines of a log, redacted, at most a couple of thousand characters."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    tail = "\n".join(text.splitlines()[-_TAIL_LINES:])[-_TAIL_CHARS:]
    return redact(tail)
