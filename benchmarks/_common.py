"""Shared helpers of the benchmarks: timing, statistics, tables, ratio lines, machine facts.

Every benchmark script imports this module, prints a small table of figures and one line per
target (``ratio <name> = <value> (target <op> <bound>) OK|MISS``). ``--quick`` makes each script
run at a tiny size so the smoke tests stay fast; the figures it prints are then meaningless.
``--json PATH`` additionally writes the figures and ratios as JSON (used by ``run_all.py``).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

perf_counter = time.perf_counter


# --- statistics ---------------------------------------------------------------------------


def median(values: Sequence[float]) -> float:
    data = sorted(values)
    n = len(data)
    if n == 0:
        return math.nan
    mid = n // 2
    return data[mid] if n % 2 else (data[mid - 1] + data[mid]) / 2


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, ``q`` in [0, 100]."""
    data = sorted(values)
    if not data:
        return math.nan
    pos = (len(data) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def p90(values: Sequence[float]) -> float:
    return percentile(values, 90)


def samples(fn: Callable[[], Any], n: int, warmup: int = 0) -> list[float]:
    """Seconds per call of ``fn``, one sample per call (GC paused while timing)."""
    for _ in range(warmup):
        fn()
    out: list[float] = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(n):
            start = perf_counter()
            fn()
            out.append(perf_counter() - start)
    finally:
        if enabled:
            gc.enable()
    return out


def batch_samples(fn: Callable[[], Any], batches: int, per_batch: int) -> list[float]:
    """Seconds per call, one sample per batch of ``per_batch`` calls (for sub-µs work)."""
    out: list[float] = []
    for _ in range(batches):
        start = perf_counter()
        for _ in range(per_batch):
            fn()
        out.append((perf_counter() - start) / per_batch)
    return out


# --- formatting ---------------------------------------------------------------------------


def us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f}"


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.2f}"


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], title: str = "") -> str:
    rows = [[str(c) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        out = [cells[0].ljust(widths[0])]
        out += [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join(out).rstrip()

    text = [title] if title else []
    text += [line(headers), line(["-" * w for w in widths])]
    text += [line(row) for row in rows]
    return "\n".join(text)


class Report:
    """Collects what a benchmark prints, so ``--json`` can hand it to ``run_all.py``."""

    def __init__(self, name: str, args: argparse.Namespace) -> None:
        self.name = name
        self.args = args
        self.figures: dict[str, Any] = {}
        self.ratios: list[dict[str, Any]] = []
        self.notes: list[str] = []

    def print_table(
        self, headers: Sequence[str], rows: Iterable[Sequence[Any]], title: str = ""
    ) -> None:
        print(table(headers, rows, title))
        print()

    def figure(self, key: str, value: Any) -> None:
        self.figures[key] = value

    def note(self, text: str) -> None:
        self.notes.append(text)
        print(f"note: {text}")

    def ratio(self, name: str, value: float, bound: float, op: str = "<=") -> bool:
        ok = value <= bound if op == "<=" else value >= bound
        print(f"ratio {name} = {value:.3g} (target {op} {bound:g}) {'OK' if ok else 'MISS'}")
        self.ratios.append({"name": name, "value": value, "op": op, "bound": bound, "ok": ok})
        return ok

    def done(self) -> None:
        if self.args.json:
            payload = {
                "benchmark": self.name,
                "quick": self.args.quick,
                "figures": self.figures,
                "ratios": self.ratios,
                "notes": self.notes,
            }
            Path(self.args.json).write_text(json.dumps(payload, indent=2) + "\n")


def parser(description: str, pin: bool = False) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--quick", action="store_true", help="tiny sizes, for smoke tests only")
    p.add_argument("--json", metavar="PATH", help="also write figures and ratios as JSON")
    if pin:
        p.add_argument(
            "--no-pin",
            action="store_true",
            help="do not pin this process to one CPU (see pin_one_cpu)",
        )
    return p


def header(name: str, quick: bool, pinned: int | None = None) -> None:
    print(f"== {name}{' (quick: figures not meaningful)' if quick else ''}")
    print(f"   {machine_line()}")
    if pinned is not None:
        print(f"   pinned to CPU {pinned} (one core; --no-pin to let the scheduler place threads)")
    print()


def pin_one_cpu() -> int | None:
    """Pin this process (and the threads it starts later) to one CPU; returns it.

    A rollout hands control from the caller's thread to the agent's and back: two thread
    wake-ups, about 5 µs on one CPU but 60-100 µs when the scheduler wakes the other thread on
    another CPU of a virtual machine (an inter-processor interrupt). Pinned figures are the
    engine's cost "on one core"; unpinned figures add whatever the scheduler does.
    """
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpu = max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def pinned_preexec(cpu: int | None) -> Callable[[], None] | None:
    if cpu is None or not hasattr(os, "sched_setaffinity"):
        return None
    return lambda: os.sched_setaffinity(0, {cpu})


# --- machine facts ------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def package_versions(names: Sequence[str] = ()) -> dict[str, str]:
    from importlib import metadata

    wanted = names or (
        "silo",
        "hydra-core",
        "omegaconf",
        "jsonschema",
        "fastjsonschema",
        "pydantic",
        "deepdiff",
        "orjson",
        "joblib",
        "hydra-joblib-launcher",
    )
    out = {}
    for name in wanted:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "-"
    return out


def machine_line() -> str:
    return (
        f"nproc={os.cpu_count()} cpu={cpu_model()!r} "
        f"python={platform.python_version()} ({platform.python_implementation()})"
    )


# --- scratch folders ----------------------------------------------------------------------

SCRATCH = ROOT / ".silo" / "bench"


def scratch(prefix: str) -> Path:
    """A new empty folder for a benchmark's files, under the project's ``.silo/bench/``.

    Not the system temp folder: artifacts go where ``silo-run`` writes them by default (the
    project's ``.silo/``), and on the machine these figures come from, creating files under
    ``/tmp`` had become ten times slower than anywhere else on the same disk (a directory
    that had held millions of entries), which measured the file system, not Silo.
    """
    import tempfile

    SCRATCH.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=prefix, dir=SCRATCH))


# --- subprocesses -------------------------------------------------------------------------


def bench_env(**extra: str) -> dict[str, str]:
    """Environment for child processes: no CI progress bars, the repo importable."""
    env = dict(os.environ)
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH", "")])]
    )
    env["CI"] = "1"
    env.update(extra)
    return env


def wall(
    cmd: Sequence[str],
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    cpu: int | None = None,
) -> float:
    """Wall seconds of one subprocess (pinned to ``cpu`` if given); raises if it fails."""
    start = perf_counter()
    proc = subprocess.run(
        list(cmd),
        cwd=cwd or ROOT,
        env=env or bench_env(),
        capture_output=True,
        text=True,
        preexec_fn=pinned_preexec(cpu),
    )
    elapsed = perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(
            f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        )
    return elapsed


def bin_path(name: str) -> str:
    """A console script of the running interpreter's environment (``silo-run``...)."""
    candidate = Path(PYTHON).parent / name
    return str(candidate) if candidate.exists() else name


def act(env: Any, task: Any, agent_fn: Callable[[Any], Any]) -> tuple[Any, Any]:
    """Take a fresh world and run ``agent_fn`` on it through the engine's bridge, on this thread.

    Returns ``(world, output)`` with the world frozen; the caller grades it, diffs it and gives
    it back with ``SHARED_WORLDS.pool(env).release(world)``.
    """
    from silo.agents.contract import AgentInput
    from silo.rollout.bridge import Bridge
    from silo.rollout.core import SHARED_WORLDS
    from silo.rollout.run import Budget
    from silo.rollout.trace import TraceWriter

    world = SHARED_WORLDS.pool(env).acquire()
    bridge = Bridge(world, TraceWriter(None), Budget().max_tool_calls)
    inp = AgentInput(
        task=task.instruction,
        tools=[dict(t.spec()) for t in world.tool_list],
        call_tool=bridge.call_tool,
        signal=bridge.signal,
        task_id=task.id,
        environment=env.name,
    )
    output = agent_fn(inp)["output"]
    world.freeze()
    return world, output
