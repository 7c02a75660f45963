"""The harness agents' recording model proxy carrying N harnesses in flight.

N simulated harnesses (aiohttp clients on an event loop of their own, in this process) each make
R streamed Chat Completions requests in a row through a proxy route of their own (Silo's
recording proxy, on the model loop), to a scripted upstream in another process that answers
each after ``latency`` seconds with an SSE stream (a tool call). Every request is recorded as a
``model_step`` (into a list: the trace's write is the engine's cost, measured elsewhere). The
same clients then call the upstream directly. Figures: wall against the ideal ``R × latency``,
the most requests the upstream held at once, and this process's CPU per request through the
proxy and direct (the difference is what the proxy costs: forwarding, assembling the stream,
summarising and redacting the bodies).

Targets: wall ≤ 1.25 × ideal; peak in flight ≥ 0.9 × N; every request recorded.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import PYTHON, Report, header, parser

HERE = Path(__file__).resolve().parent

_CALL = {"id": "c1", "type": "function", "function": {"name": "get_user", "arguments": "{}"}}
_CHUNKS = [
    {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, **_CALL}]}}]},
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    {"choices": [], "usage": {"prompt_tokens": 900, "completion_tokens": 20}},
]  # fmt: skip
_SSE = "".join(f"data: {json.dumps(c)}\n\n" for c in _CHUNKS).encode() + b"data: [DONE]\n\n"


def serve(latency: float, port_file: Path) -> None:
    """The scripted upstream (run in its own process): SSE after ``latency`` s; /stats."""
    from aiohttp import web

    state = {"now": 0, "peak": 0, "served": 0}

    async def chat(request: web.Request) -> web.Response:
        await request.read()
        state["now"] += 1
        state["peak"] = max(state["peak"], state["now"])
        await asyncio.sleep(latency)
        state["now"] -= 1
        state["served"] += 1
        return web.Response(body=_SSE, content_type="text/event-stream")

    async def stats(request: web.Request) -> web.Response:
        answer = dict(state)
        state["peak"] = state["now"]
        return web.json_response(answer)

    async def main() -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", chat)
        app.router.add_get("/stats", stats)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, backlog=4096)
        await site.start()
        port_file.write_text(str(runner.addresses[0][1]))
        await asyncio.Event().wait()

    asyncio.run(main())


def _body(turn: int) -> bytes:
    """A harness-sized request: a system text, 44 tools, a conversation growing each turn."""
    tools = [
        {"type": "function", "function": {"name": f"tool_{i}", "description": "d" * 200,
                                          "parameters": {"type": "object", "properties": {}}}}
        for i in range(44)
    ]  # fmt: skip
    messages = [{"role": "system", "content": "s" * 4000}, {"role": "user", "content": "go"}]
    messages += [{"role": "tool", "tool_call_id": "c1", "content": "x" * 600}] * turn
    return json.dumps({"model": "m", "stream": True, "tools": tools, "messages": messages}).encode()


async def _clients(urls: list[str], rounds: int) -> float:
    import aiohttp

    bodies = [_body(turn) for turn in range(rounds)]
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def harness(url: str) -> None:
            for body in bodies:
                headers = {"content-type": "application/json", "authorization": "Bearer x"}
                async with session.post(url, data=body, headers=headers) as answer:
                    await answer.read()

        started = time.perf_counter()
        await asyncio.gather(*(harness(url) for url in urls))
        return time.perf_counter() - started


def _stats(base: str) -> dict[str, Any]:
    import urllib.request

    with urllib.request.urlopen(f"{base}/stats", timeout=60) as answer:
        stats: dict[str, Any] = json.loads(answer.read())
    return stats


def main() -> None:
    args = parser(__doc__.splitlines()[0]).parse_args()
    header("bench_harness_proxy: the recording model proxy with N harnesses in flight", args.quick)
    report = Report("harness_proxy", args)
    n, rounds, latency = (8, 2, 0.05) if args.quick else (512, 5, 1.0)
    port_file = Path(os.environ.get("TMPDIR", "/tmp")) / f"silo-bench-proxy-{os.getpid()}"
    upstream = subprocess.Popen(
        [PYTHON, str(Path(__file__).resolve()), "--serve", str(latency), str(port_file)]
    )
    try:
        deadline = time.monotonic() + 120  # safety net: the upstream starts in about a second
        while not (port_file.is_file() and port_file.read_text()):
            if upstream.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the scripted upstream did not start")
            time.sleep(0.02)
        base = f"http://127.0.0.1:{port_file.read_text()}"
        from silo.integrations.harness.proxy import PROXY, Route

        steps: list[dict[str, Any]] = []
        routes = [
            PROXY.open(Route(base, lambda kind, data: steps.append(dict(data)), "sk-bench-key"))
            for _ in range(n)
        ]
        rows = []
        for label, urls in (
            ("through the proxy", [f"{r.url}/v1/chat/completions" for r in routes]),
            ("direct", [f"{base}/v1/chat/completions"] * n),
        ):
            asyncio.run(_clients(urls[: min(8, n)], 1))  # warm-up: connections, imports
            _stats(base)
            steps.clear()
            cpu = time.process_time()
            wall = asyncio.run(_clients(urls, rounds))
            cpu_ms = (time.process_time() - cpu) * 1000 / (n * rounds)
            peak = _stats(base)["peak"]
            ideal = rounds * latency
            rows.append([label, n, rounds, f"{wall:.2f}", f"{ideal:.2f}", f"{wall / ideal:.2f}",
                         peak, f"{cpu_ms:.3f}"])  # fmt: skip
            key = "proxy" if label != "direct" else "direct"
            report.figure(f"{key}WallS", wall)
            report.figure(f"{key}CpuMsPerRequest", cpu_ms)
            report.figure(f"{key}Peak", peak)
            if key == "proxy":
                recorded = len(steps)
                report.ratio(f"{label}: wall / ideal", wall / ideal, 1.25)
                report.ratio(f"{label}: peak in flight / N", peak / n, 0.9, ">=")
                report.ratio("requests recorded / sent", recorded / (n * rounds), 1.0, ">=")
        report.print_table(
            ["path", "N", "R", "wall s", "ideal s", "ratio", "peak in flight", "CPU ms/request"],
            rows,
        )
        extra = report.figures["proxyCpuMsPerRequest"] - report.figures["directCpuMsPerRequest"]
        report.figure("proxyCpuMsPerRequestBeyondDirect", extra)
        print(f"the proxy's CPU per request (through minus direct) = {extra:.3f} ms")
    finally:
        upstream.kill()
        upstream.wait()
        port_file.unlink(missing_ok=True)
    report.done()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(float(sys.argv[2]), Path(sys.argv[3]))
    else:
        main()
