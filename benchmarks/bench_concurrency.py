"""Benchmark 8 — many rollouts in flight: model-latency-bound rollouts at max_concurrency=N.

A local OpenAI-compatible server (threaded, 127.0.0.1, in its own process so its CPU is not
counted) answers every chat-completions request after a fixed latency, replaying the CRM
solver's TASK-002 tool calls: one tool call per request, then the final answer (4 requests per
rollout). Measured with ``run_points(..., max_concurrency=N)``:

* ``openai``       — ``agent=openai`` against that server;
* ``anthropic``    — ``agent=anthropic`` against the same server's ``/v1/messages``;
* ``async script`` — an async scripted agent that awaits the same latency before each step and
  makes the same calls (what the wall-time target measures if the model agent's own client is
  the bottleneck);
* ``openai, cpu_affinity=none`` and ``async script, cpu_affinity=one`` — the same, placed the
  other way (reported, no targets): by default (``auto``) the model agents' rollouts in flight
  share one CPU and a plain callable's do not (see ``silo.rollout.placement``);

each: wall time against the ideal ``ceil(R/N) × 4 × latency``, rollouts passed, the peak number
of requests in flight at the server, and framework CPU per rollout (process CPU / rollouts).
A model request's own CPU is what a model agent's rollout costs beyond the async script's placed
alike (on one CPU: the same calls and rollout machinery, no HTTP), divided by its 4 requests (target ≤ 0.25 ms for
``agent=openai``).
Each agent first runs a warm-up of 8 rollouts, not measured: what it imports (the SDK: ~0.5 s
of CPU, ~1 ms per rollout of R = 512) and its shared endpoint are start-up costs of the
process, not of a rollout.
Last, the peak RSS of N rollouts in flight on the 1.4 MB τ²-retail-size world of
``bench_world_size.py`` against one rollout on it (each in a fresh process): rollouts that make
no call (the target), and rollouts that each make TASK-002's calls (reported: a copy-on-write
world costs what its rollout reads and writes).
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from _common import PYTHON, ROOT, Report, bench_env, header, parser, scratch

HERE = Path(__file__).resolve().parent
TAU2_RETAIL_BYTES = 1_400_000


# -- the fake model server (runs in a child process: ``--serve``) ----------------------------


def serve(latency: float, calls: list[list[Any]], port_file: Path) -> None:
    """Answer chat completions after ``latency`` s: call k of ``calls`` at step k, then text."""
    lock = threading.Lock()
    stats = {"in_flight": 0, "peak": 0, "requests": 0}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            with lock:
                self._send(dict(stats))
                if self.path.endswith("reset=1"):
                    stats["peak"] = 0

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            request = json.loads(self.rfile.read(length))
            with lock:
                stats["in_flight"] += 1
                stats["requests"] += 1
                stats["peak"] = max(stats["peak"], stats["in_flight"])
            try:
                time.sleep(latency)
                if self.path.endswith("/messages"):
                    self._send(_messages_reply(request, calls))
                else:
                    self._send(_chat_reply(request, calls))
            finally:
                with lock:
                    stats["in_flight"] -= 1

    class Server(ThreadingHTTPServer):
        request_queue_size = 2048
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Handler)
    port_file.write_text(str(server.server_address[1]))
    server.serve_forever()


def _chat_reply(request: dict[str, Any], calls: list[list[Any]]) -> dict[str, Any]:
    """A chat completion: the next of ``calls`` (one per tool result so far), then text."""
    step = sum(1 for m in request["messages"] if m.get("role") == "tool")
    if step < len(calls):
        name, args = calls[step]
        function = {"name": name, "arguments": json.dumps(args)}
        call = {"id": f"call_{step}", "type": "function", "function": function}
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish = "tool_calls"
    else:
        message, finish = {"role": "assistant", "content": "done"}, "stop"
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": "bench",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _messages_reply(request: dict[str, Any], calls: list[list[Any]]) -> dict[str, Any]:
    """The same for the Anthropic Messages API (``POST /v1/messages``)."""
    step = sum(1 for m in request["messages"] if m["role"] == "assistant")
    if step < len(calls):
        name, args = calls[step]
        content = [{"type": "tool_use", "id": f"toolu_{step}", "name": name, "input": args}]
        stop = "tool_use"
    else:
        content, stop = [{"type": "text", "text": "done"}], "end_turn"
    return {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": "bench",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


class FakeModel:
    """The server child process: ``base_url`` while it runs, ``stats()`` from it."""

    def __init__(self, latency: float, calls: list[list[Any]], work: Path) -> None:
        port_file = work / "port"
        calls_file = work / "calls.json"
        calls_file.write_text(json.dumps(calls))
        self.proc = subprocess.Popen(
            [PYTHON, __file__, "--serve", str(latency), str(calls_file), str(port_file)],
            cwd=HERE,
        )
        for _ in range(200):
            if port_file.exists() and port_file.read_text():
                break
            time.sleep(0.05)
        self.base_url = f"http://127.0.0.1:{port_file.read_text()}/v1"

    def stats(self, reset: bool = False) -> dict[str, int]:
        """The server's counters; ``reset`` starts the peak afresh for the next agent."""
        import urllib.request

        path = "/stats?reset=1" if reset else "/stats"
        with urllib.request.urlopen(self.base_url[: -len("/v1")] + path) as reply:
            return dict(json.loads(reply.read()))

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


# -- the measurements ---------------------------------------------------------------------


def solver_calls() -> list[list[Any]]:
    """The CRM solver's TASK-002 tool calls, as ``[name, input]`` pairs."""
    from silo.rollout.run import run_task

    result = run_task("crm", "TASK-002", "solver", project_dir=ROOT, write_artifacts=False)
    events = [json.loads(line) for line in result.trace_lines]
    return [[e["tool"], e["input"]] for e in events if e["type"] == "tool_call"]


def _async_agent(latency: float, calls: list[list[Any]]) -> Any:
    import asyncio

    async def agent(inp: Any) -> dict[str, str]:
        for name, args in calls:
            await asyncio.sleep(latency)
            await inp.call_tool(name, args)
        await asyncio.sleep(latency)
        return {"output": "done"}

    return agent


def measure(
    agent: Any, label: str, rollouts: int, n: int, work: Path, cpu_affinity: str = "auto"
) -> dict[str, float]:
    """Wall time, passes and CPU of ``rollouts`` rollouts of TASK-002 at ``n`` in flight."""
    from silo.batch.sweep import Point, run_points
    from silo.rollout.run import Budget

    point = Point("crm", "TASK-002", agent, label, Budget(timeout_ms=120_000))
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    outcomes = run_points(
        [point],
        rollouts,
        project_dir=ROOT,
        group_dir=work / label.replace(" ", "-"),
        group_id=label,
        progress=False,
        max_concurrency=n,
        cpu_affinity=cpu_affinity,
    )
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    return {
        "wall": wall,
        "passed": sum(o.passed for o in outcomes),
        "cpu_ms": cpu / rollouts * 1000,
    }


_RSS_CHILD = """
import asyncio, json, sys
from pathlib import Path
from silo.batch.sweep import Point, run_points
from silo.loading.environment import load_environment
from silo.rollout.run import Budget

root, n, work = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
env = load_environment(root, Path(sys.argv[4]))
calls = json.loads(Path(sys.argv[5]).read_text()) if len(sys.argv) > 5 else []

async def agent(inp):
    await asyncio.sleep(1.0)  # every rollout in flight at once
    for name, args in calls:  # then, when asked, TASK-002's calls (reads and writes)
        await inp.call_tool(name, args)
    return {"output": "ok"}

def hwm():
    # VmHWM: ru_maxrss would include the parent's peak (Linux copies it across fork and exec).
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

before = hwm()
run_points([Point(str(root), "TASK-002", agent, "rss", Budget())], n, project_dir=Path(sys.argv[4]),
           group_dir=work / f"rss{n}", group_id="rss", progress=False, max_concurrency=n)
print(json.dumps({"before": before, "peak": hwm()}))
"""


def peak_rss(root: Path, n: int, work: Path, calls: list[list[Any]] | None = None) -> int:
    """Peak RSS (KiB) of a fresh process running ``n`` rollouts in flight on ``root``'s world.

    With ``calls``, every rollout makes them (after the others have started) instead of none.
    """
    script = work / "rss_child.py"
    script.write_text(_RSS_CHILD)
    extra = []
    if calls:
        extra = [str(work / "rss_calls.json")]
        Path(extra[0]).write_text(json.dumps(calls))
    out = subprocess.run(
        [PYTHON, str(script), str(root), str(n), str(work), str(ROOT), *extra],
        capture_output=True,
        text=True,
        env=bench_env(),
        check=True,
    )
    return int(json.loads(out.stdout.strip().splitlines()[-1])["peak"])


@contextlib.contextmanager
def _collector_off() -> Iterator[None]:
    """The garbage collector paused: reference work measures the host, not what the process holds.

    Inside the benchmark the heap holds every outcome so far: a collection set off by the
    reference work's allocations could double a reading (61 ms against 30 ms paused, with a
    million small objects alive).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class HostReference:
    """The host's speed: ``copy.deepcopy`` of the 1.4 MB world's data, best of 7, in ms.

    CPU figures on this VM moved 2x between hours with nothing else running; the same
    reference work measured just before and after each agent's rollouts says how fast the
    host was meanwhile (19.7 ms on 2026-12-02 at 00:58 UTC, the run whose figures the
    targets were checked against: :data:`QUIET_MS`).
    """

    QUIET_MS = 19.7

    def __init__(self, work: Path) -> None:
        sys.path.insert(0, str(HERE))
        from bench_world_size import build_world

        root, _, _ = build_world(TAU2_RETAIL_BYTES, work, "reference-world")
        files = sorted((root / "data").glob("*.json"))
        self.data = {f.name: json.loads(f.read_text()) for f in files}
        # A burst about the size of a rollout's own work (~0.5 ms): the largest file's first rows.
        largest = max(self.data.values(), key=len)
        rows = largest if isinstance(largest, list) else list(largest.values())
        self.burst = rows[: max(1, len(rows) // 30)]

    def wake_penalty(self) -> float:
        """CPU of the burst after a 20 ms idle gap over its CPU back to back (medians of 31).

        A model-driven rollout works in such bursts, each after waiting on the model. On this
        VM the same work cost 1.2-2.2x more CPU after the CPU idled (by all signs cold caches
        and a vCPU the host had descheduled), so a latency-bound figure carries that factor;
        the framework's own work is the back-to-back cost.
        """
        import copy
        import statistics

        def burst_ms(gap: float) -> float:
            costs = []
            for _ in range(31):
                if gap:
                    time.sleep(gap)
                started = time.thread_time()
                copy.deepcopy(self.burst)
                costs.append(time.thread_time() - started)
            return statistics.median(costs)

        with _collector_off():
            burst_ms(0)  # warm
            return burst_ms(0.02) / burst_ms(0)

    def ms(self) -> float:
        import copy

        best = math.inf
        with _collector_off():
            for _ in range(7):
                started = time.perf_counter()
                copy.deepcopy(self.data)
                best = min(best, time.perf_counter() - started)
        return best * 1000


def main() -> None:
    args = parser(__doc__.splitlines()[0]).parse_args()
    header("bench_concurrency: rollouts in flight against a fixed-latency model", args.quick)
    report = Report("concurrency", args)
    rollouts, n, latency = (16, 8, 0.05) if args.quick else (512, 256, 0.5)
    work = scratch("concurrency-")
    host = HostReference(work)
    calls = solver_calls()
    ideal = math.ceil(rollouts / n) * (len(calls) + 1) * latency
    model = FakeModel(latency, calls, work)
    rows = []
    cpu_ms: dict[str, float] = {}
    try:
        openai = {
            "_target_": "silo.agents.openai.OpenAIAgent",
            "model": "bench",
            "base_url": model.base_url,
            "temperature": None,
            "max_retries": 0,
        }
        anthropic = {
            **openai,
            "_target_": "silo.agents.anthropic.AnthropicAgent",
            "base_url": model.base_url[: -len("/v1")],  # the SDK appends /v1/messages
        }
        for label, agent, placed in (
            ("openai", openai, "auto"),
            ("openai, cpu_affinity=none", openai, "none"),
            ("anthropic", anthropic, "auto"),
            ("async script", _async_agent(latency, calls), "auto"),
            ("async script, cpu_affinity=one", _async_agent(latency, calls), "one"),
        ):
            measure(agent, f"{label} warm-up", min(8, rollouts), min(8, n), work, placed)
            before = host.ms()
            got = measure(agent, label, rollouts, n, work, placed)
            reference = (before + host.ms()) / 2
            penalty = host.wake_penalty()
            model_driven = not label.startswith("async script")
            diagnostic = "cpu_affinity" in label  # placed otherwise than by default: no targets
            peak = model.stats(reset=True)["peak"] if model_driven else float("nan")
            rows.append(
                [label, rollouts, n, f"{got['wall']:.2f}", f"{ideal:.2f}",
                 f"{got['wall'] / ideal:.2f}", got["passed"], peak, f"{got['cpu_ms']:.2f}"]
            )  # fmt: skip
            cpu_ms[label] = got["cpu_ms"]
            key = label.replace(", cpu_affinity=", "_cpu_affinity_").replace(" ", "_")
            report.figure(f"{key}WallS", got["wall"])
            report.figure(f"{key}CpuMsPerRollout", got["cpu_ms"])
            report.ratio(f"{label}: rollouts passed", got["passed"], rollouts, ">=")
            if not diagnostic:
                report.ratio(f"{label}: wall / ideal", got["wall"] / ideal, 1.25)
                report.ratio(f"{label}: framework CPU ms per rollout", got["cpu_ms"], 2.0)
            scaled = got["cpu_ms"] * host.QUIET_MS / reference
            report.figure(f"{key}HostReferenceMs", reference)
            report.figure(f"{key}CpuMsPerRolloutAtQuietSpeed", scaled)
            report.figure(f"{key}HostWakePenalty", penalty)
            print(
                f"{label}: host reference {reference:.1f} ms ({host.QUIET_MS} quiet); CPU ms per "
                f"rollout at the quiet host's speed = {scaled:.2f} (reported, not a target); "
                f"the same work after a 20 ms idle gap costs {penalty:.2f}x here"
            )
            if model_driven and not diagnostic:
                report.ratio(f"{label}: peak requests in flight / N", peak / n, 0.9, ">=")
        # The same rollouts with no waits, one at a time: the framework's own work without the
        # wake-up penalty every burst after a wait pays on some hosts (see HostReference).
        back_to_back = measure(_async_agent(0, calls), "back to back", rollouts, 1, work)
        report.figure("backToBackCpuMsPerRollout", back_to_back["cpu_ms"])
        print(
            "async script back to back (N = 1, no waits): CPU ms per rollout = "
            f"{back_to_back['cpu_ms']:.2f} (reported, not a target)"
        )
    finally:
        model.close()
    report.print_table(
        ["agent", "R", "N", "wall s", "ideal s", "ratio", "passed", "peak in flight", "CPU ms/R"],
        rows,
    )
    requests = len(calls) + 1
    # Beyond the async script placed alike: the model agents share one CPU by default.
    for label in ("openai", "anthropic"):
        per_request = (cpu_ms[label] - cpu_ms["async script, cpu_affinity=one"]) / requests
        report.figure(f"{label}CpuMsPerRequest", per_request)
        if label == "openai":
            report.ratio(
                "openai: CPU ms per model request (beyond the async script)", per_request, 0.25
            )
        else:  # on its SDK's request path by design (issue 13): reported, no target
            print(
                f"anthropic: CPU ms per model request (beyond the async script) = {per_request:.3g}"
            )

    # Memory: N rollouts in flight on the τ²-retail-size world against one.
    sys.path.insert(0, str(HERE))
    from bench_world_size import build_world

    size = 43_000 if args.quick else TAU2_RETAIL_BYTES
    root, _, _ = build_world(size, work, "rss-world")
    # Copy-on-write worlds (silo.world.cow): a world costs what its rollout reads, so the same
    # measurement is repeated with every rollout making TASK-002's calls (reported, no target).
    one = peak_rss(root, 1, work)
    many = peak_rss(root, n, work)
    one_calls = peak_rss(root, 1, work, calls)
    many_calls = peak_rss(root, n, work, calls)
    report.print_table(
        ["in flight", "peak RSS MiB (no calls)", "peak RSS MiB (TASK-002's calls)"],
        [
            [1, f"{one / 1024:.1f}", f"{one_calls / 1024:.1f}"],
            [n, f"{many / 1024:.1f}", f"{many_calls / 1024:.1f}"],
        ],
    )
    report.figure("rssOneKiB", one)
    report.figure("rssManyKiB", many)
    report.figure("rssOneCallsKiB", one_calls)
    report.figure("rssManyCallsKiB", many_calls)
    report.ratio(f"peak_rss({n} in flight)/peak_rss(1)", many / one, 2.0)
    print(f"with TASK-002's calls: peak_rss({n})/peak_rss(1) = {many_calls / one_calls:.2f}")
    report.done()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(float(sys.argv[2]), json.loads(Path(sys.argv[3]).read_text()), Path(sys.argv[4]))
    else:
        main()
