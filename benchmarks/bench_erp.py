"""Scale figures of the ERP environment, the largest world: what it costs to load, to offer and
to call, measured through Silo's public API only.

* **Load**: ``silo.load_environment("erp")`` in a fresh interpreter (import of ``silo`` and the
  environment's 185 tools included, median of several processes), then ``create_state()`` of a
  fresh world in process (median) and the world's size as compact JSON.
* **Tool spec**: the tools exactly as an agent is offered them (``inp.tools``: name,
  description, input schema), as compact JSON: bytes, and tokens estimated at 4 bytes a token;
  also the largest schemas.
* **Per-call overhead**: inside a rollout, the agent alternates ``call_tool(name, input)`` with a
  direct ``tool.run(state, input)`` of the same tool and input on its own world; the overhead of
  each pair is their difference (median and p90), for a few ERP reads of different sizes.
* **TASK-017**: the rollout cost of the end-to-end procure-to-pay task with the reference
  solver (about 20 tool calls over most domains): wall time per rollout in memory
  (``write_artifacts=False``) and with all four artifacts written.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import (
    PYTHON,
    ROOT,
    Report,
    header,
    median,
    ms,
    p90,
    parser,
    perf_counter,
    pin_one_cpu,
    scratch,
    us,
)

import silo

ENV = "erp"
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_current_date", {}),
    ("get_vendor_invoice", {"vendorInvoiceId": "VINV-103"}),
    ("list_purchase_orders", {}),
    ("get_operations_dashboard", {}),
]
_LOAD_CHILD = (
    "import sys, time; from pathlib import Path; t0 = time.perf_counter(); import silo; "
    "t1 = time.perf_counter(); env = silo.load_environment(sys.argv[2], Path(sys.argv[1])); "
    "env.bind_tools(env.create_state()); print(t1 - t0, time.perf_counter() - t1)"
)


def load_seconds(name: str, runs: int, cache: Path | None) -> tuple[list[float], list[float]]:
    """Fresh-process seconds to import silo, and then to load ``name`` and bind its tools.

    With ``cache`` the children share a warmed bytecode cache (``PYTHONPYCACHEPREFIX``);
    without, nothing is cached (``PYTHONDONTWRITEBYTECODE=1``) and every module of the
    environment is compiled from source at each start.
    """
    env = dict(os.environ)
    if cache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    command = [PYTHON, "-c", _LOAD_CHILD, str(ROOT), name]

    def child() -> str:
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"loading {name} failed in a fresh process:\n{done.stderr[-2000:]}")
        return done.stdout

    if cache is not None:
        child()  # warm the cache
    imports, loads = [], []
    for _ in range(runs):
        first, second = child().split()
        imports.append(float(first))
        loads.append(float(second))
    return imports, loads


def timed(fn: Callable[[], Any], n: int) -> list[float]:
    """Seconds of each of ``n`` calls of ``fn``."""
    out = []
    for _ in range(n):
        start = perf_counter()
        fn()
        out.append(perf_counter() - start)
    return out


def offered_tools(env: silo.Environment) -> list[dict[str, Any]]:
    """The tool list an agent receives, captured from a rollout."""
    seen: list[dict[str, Any]] = []

    def agent(inp: Any) -> dict[str, str]:
        seen.extend(inp.tools)
        return {"output": ""}

    silo.run_task(env, "TASK-001", agent, project_dir=ROOT, write_artifacts=False)
    return seen


def call_overheads(env: silo.Environment, n: int) -> dict[str, tuple[list[float], list[float]]]:
    """Per tool: (engine call seconds, direct run seconds), paired, from one rollout."""
    state = env.create_state()
    tools = {tool.name: tool for tool in env.bind_tools(state)}
    found: dict[str, tuple[list[float], list[float]]] = {}

    def agent(inp: Any) -> dict[str, str]:
        for name, args in CALLS:
            via, direct = found.setdefault(name, ([], []))
            run = tools[name].run
            for _ in range(n):
                t0 = perf_counter()
                result = inp.call_tool(name, args)
                t1 = perf_counter()
                run(state, args)
                t2 = perf_counter()
                assert not result["isError"], result["output"]
                via.append(t1 - t0)
                direct.append(t2 - t1)
        return {"output": ""}

    budget = {"max_tool_calls": n * len(CALLS) + 1, "timeout_ms": 3_600_000}
    silo.run_task(env, "TASK-001", agent, budget, project_dir=ROOT, write_artifacts=False)
    return found


def rollout_seconds(env: silo.Environment, n: int, write: bool) -> tuple[list[float], int]:
    """Wall seconds of ``n`` TASK-017 solver rollouts, and the tool calls of one."""
    runs = scratch("erp-") if write else None
    calls = 0

    def once() -> None:
        nonlocal calls
        result = silo.run_task(
            env, "TASK-017", "solver", project_dir=ROOT, runs_dir=runs, write_artifacts=write
        )
        assert result.passed, result.result["failedRequired"]
        calls = result.result["toolCalls"]

    try:
        once()
        return timed(once, n), calls
    finally:
        if runs is not None:
            shutil.rmtree(runs, ignore_errors=True)


def main() -> None:
    args = parser(__doc__.splitlines()[0], pin=True).parse_args()
    cpu = None if args.no_pin else pin_one_cpu()
    header("bench_erp: scale figures of the ERP environment", args.quick, cpu)
    report = Report("erp", args)
    env = silo.load_environment(ENV, ROOT)

    runs = 2 if args.quick else 7
    rows = []
    cache_dir = scratch("erp-pycache-")
    try:
        for cache, how in ((None, "no bytecode cache"), (cache_dir, "bytecode cache")):
            for name in (ENV, "crm"):
                imports, loads = load_seconds(name, runs, cache)
                report.figure(
                    f"load:{name}:{how}",
                    {"importMs": median(imports) * 1e3, "loadMs": median(loads) * 1e3},
                )
                rows.append([f"{name} ({how})", ms(median(loads)), ms(p90(loads))])
            rows.append([f"  import silo itself ({how})", ms(median(imports)), ms(p90(imports))])
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
    worlds = timed(env.create_state, 5 if args.quick else 50)
    world_bytes = len(json.dumps(env.create_state(), separators=(",", ":")))
    report.figure("createStateMedianMs", median(worlds) * 1e3)
    report.figure("worldBytes", world_bytes)
    rows.append(
        ["erp: create_state() in process (fresh world)", ms(median(worlds)), ms(p90(worlds))]
    )
    report.print_table(
        ["fresh process: load_environment + create_state + bind_tools", "median ms", "p90 ms"],
        rows,
        f"load (an ERP world is {world_bytes:,} bytes of compact JSON)",
    )

    tools = offered_tools(env)
    spec = json.dumps(tools, separators=(",", ":"))
    sizes = sorted((len(json.dumps(t, separators=(",", ":"))), t["name"]) for t in tools)
    report.figure("tools", len(tools))
    report.figure("toolSpecBytes", len(spec.encode()))
    report.figure("toolSpecTokens", len(spec.encode()) // 4)
    report.print_table(
        ["tools", "bytes", "~tokens (4 B/token)", "mean bytes/tool", "largest"],
        [
            [
                len(tools),
                f"{len(spec.encode()):,}",
                f"{len(spec.encode()) // 4:,}",
                f"{len(spec.encode()) / max(1, len(tools)):,.0f}",
                f"{sizes[-1][1]} ({sizes[-1][0]:,} B)" if sizes else "-",
            ]
        ],
        "tool spec offered to a model (name, description, inputSchema of every tool)",
    )

    pairs = call_overheads(env, 50 if args.quick else 2000)
    rows = []
    state, by_name = env.create_state(), {t.name: t for t in env.bind_tools(env.create_state())}
    for name, (via, direct) in pairs.items():
        size = len(json.dumps(by_name[name].run(state, dict(CALLS)[name]), separators=(",", ":")))
        diff = [a - b for a, b in zip(via, direct, strict=True)]
        report.figure(
            f"overhead:{name}", {"medianUs": median(diff) * 1e6, "p90Us": p90(diff) * 1e6}
        )
        rows.append(
            [
                name,
                f"{size:,}",
                us(median(via)),
                us(median(direct)),
                us(median(diff)),
                us(p90(diff)),
            ]
        )
    report.print_table(
        ["tool", "output B", "call_tool µs", "tool.run µs", "overhead µs", "overhead p90 µs"],
        rows,
        "per-call overhead on ERP calls (engine call minus direct run, paired)",
    )

    rows = []
    for write in (False, True):
        seconds, calls = rollout_seconds(env, 3 if args.quick else 50, write)
        label = "artifacts written" if write else "in memory"
        report.figure(f"task017:{label}", {"medianMs": median(seconds) * 1e3, "toolCalls": calls})
        rows.append([label, str(calls), ms(median(seconds)), ms(p90(seconds))])
    report.print_table(
        ["TASK-017 solver rollout", "tool calls", "median ms", "p90 ms"],
        rows,
        "rollout cost of the end-to-end procure-to-pay task",
    )
    report.done()


if __name__ == "__main__":
    main()
