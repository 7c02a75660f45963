"""Run every benchmark in turn, print their output and a summary of every target.

    python benchmarks/run_all.py                 # full sizes (about 6 minutes here)
    python benchmarks/run_all.py --quick         # tiny sizes: checks the scripts, not the engine
    python benchmarks/run_all.py --only sweeps,memory
    python benchmarks/run_all.py --write-docs docs/performance.md

Each script runs in its own process (``--json`` collects its figures). ``--write-docs``
replaces the block between ``<!-- figures:begin -->`` and ``<!-- figures:end -->`` in the given
Markdown file with the machine, the command, the summary and every script's output
(``--block NAME`` picks another block, e.g. one holding the figures before a change).
"""

from __future__ import annotations

import argparse
import json
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import PYTHON, ROOT, bench_env, cpu_model, package_versions

HERE = Path(__file__).resolve().parent
ORDER = [
    ("rollout_core", "1. rollout core"),
    ("tool_overhead", "2. per-call overhead"),
    ("world_size", "3. world size"),
    ("end_to_end", "4. end to end"),
    ("sweeps", "5. sweeps"),
    ("memory", "6. memory"),
    ("baselines", "7. baselines"),
    ("concurrency", "8. rollouts in flight"),
]


def run(name: str, quick: bool, tmp: Path) -> tuple[str, dict | None, float]:
    script = HERE / f"bench_{name}.py"
    out_json = tmp / f"{name}.json"
    cmd = [PYTHON, str(script), "--json", str(out_json)] + (["--quick"] if quick else [])
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=HERE, env=bench_env(), capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    text = proc.stdout + (f"\n[stderr]\n{proc.stderr}" if proc.returncode else "")
    print(text, flush=True)
    if proc.returncode != 0:
        print(f"!! bench_{name}.py exited {proc.returncode}", flush=True)
        return text, None, elapsed
    return text, json.loads(out_json.read_text()), elapsed


def machine() -> list[str]:
    import os

    versions = package_versions()
    return [
        f"- CPU: {cpu_model()}, nproc = {os.cpu_count()}",
        f"- OS: {platform.platform()}",
        f"- Python: {platform.python_version()} ({platform.python_implementation()})",
        "- packages: " + ", ".join(f"{k} {v}" for k, v in versions.items()),
    ]


def summary(results: dict[str, dict | None]) -> list[str]:
    lines = ["| benchmark | target | value | bound | met |", "| --- | --- | --- | --- | --- |"]
    for name, label in ORDER:
        data = results.get(name)
        if data is None:
            if name in results:
                lines.append(f"| {label} | (script failed) | | | |")
            continue
        for r in data["ratios"]:
            lines.append(
                f"| {label} | {r['name']} | {r['value']:.3g} | {r['op']} {r['bound']:g} "
                f"| {'yes' if r['ok'] else '**no**'} |"
            )
    return lines


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", help="comma-separated names, e.g. rollout_core,sweeps")
    p.add_argument("--write-docs", metavar="MARKDOWN")
    p.add_argument(
        "--block",
        default="figures",
        help="name of the marked block --write-docs replaces (<!-- NAME:begin --> ... end)",
    )
    args = p.parse_args()
    BEGIN, END = f"<!-- {args.block}:begin -->", f"<!-- {args.block}:end -->"
    wanted = [n for n, _ in ORDER]
    if args.only:
        wanted = [
            n.strip().removeprefix("bench_").removesuffix(".py") for n in args.only.split(",")
        ]
    results: dict[str, dict | None] = {}
    outputs: dict[str, tuple[str, float]] = {}
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with tempfile.TemporaryDirectory() as tmp:
        for name in wanted:
            text, data, elapsed = run(name, args.quick, Path(tmp))
            results[name] = data
            outputs[name] = (text, elapsed)
    table = summary(results)
    print("\n".join(["== summary", *machine(), "", *table]))
    if args.write_docs:
        command = " ".join(
            ["python", "benchmarks/run_all.py", *[shlex.quote(a) for a in sys.argv[1:]]]
        )
        block = [
            BEGIN,
            f"Run {started} with `{command}` (from the repository root, venv active).",
            "",
            *machine(),
            "",
            *table,
            "",
        ]
        for name, label in ORDER:
            if name in outputs:
                text, elapsed = outputs[name]
                block += [
                    f"#### {label} — `python benchmarks/bench_{name}.py` ({elapsed:.0f} s)",
                    "",
                    "```text",
                    text.rstrip(),
                    "```",
                    "",
                ]
        block.append(END)
        path = (
            (ROOT / args.write_docs)
            if not Path(args.write_docs).is_absolute()
            else Path(args.write_docs)
        )
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if BEGIN in current and END in current:
            head, rest = current.split(BEGIN, 1)
            tail = rest.split(END, 1)[1]
            current = head + "\n".join(block) + tail
        else:
            current = current + ("\n" if current else "") + "\n".join(block) + "\n"
        path.write_text(current, encoding="utf-8")
        print(f"\nwrote the figures into {path}")
    return 0 if all(results.get(n) is not None for n in wanted) else 1


if __name__ == "__main__":
    sys.exit(main())
