"""Benchmark — the viewer site at scale: 10,000 runs in the index, a run of 5,000 events.

What is built: ``runs`` synthetic run folders (default 10,000) under a scratch runs folder, each
with the ``run.json``, ``result.json``, ``state-diff.json`` and a short ``trace.jsonl`` a real
rollout writes (8 tasks × 4 agents, outcomes, rewards, token usage and durations varying), and
one run whose trace holds 5,000 events (2,498 tool calls with their results, a model step every
50 calls). ``silo.view.build.build_site`` renders them (timed: the first build, a rebuild with
nothing new, a rebuild after one new run). Then headless Chromium (the distribution's
``chromium``, ``--dump-dom``) opens the pages, ``repeats`` times each, and the pages report,
on ``<html>``: ``data-loaded-ms`` — from navigation start to the load event, the index's 10,000
records parsed, filtered and the first 100 rows laid out — and ``data-filter-ms`` — one filter
(outcome, task, and a search) over the 10,000 records, the table drawn and laid out. Targets:
the index opens (load) and filters in < 1 s, the 5,000-event run opens in < 1 s (medians).
Chromium's own start-up (a second or two, outside the page) is reported apart, not counted.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from _common import Report, header, median, parser, perf_counter, scratch

_TASKS = [f"TASK-{n:03d}" for n in range(1, 9)]
_AGENTS = ["solver", "noop", "openai-gpt", "local-llm"]
_REASONS = ["completed", "completed", "completed", "max_tool_calls", "timeout", "agent_error"]


def _write(folder: Path, name: str, value: Any) -> None:
    (folder / name).write_text(json.dumps(value), encoding="utf-8")


def _run_folder(folder: Path, n: int, events: int) -> None:
    """One finished run: artifacts shaped as silo writes them, values varying with ``n``."""
    folder.mkdir(parents=True)
    task, agent = _TASKS[n % len(_TASKS)], _AGENTS[(n // len(_TASKS)) % len(_AGENTS)]
    passed = (n * 7919) % 3 != 0
    at = f"2026-11-{1 + n % 28:02d}T{n % 24:02d}:{n % 60:02d}:{(n * 13) % 60:02d}.000Z"
    checks = [
        {"label": "counter went up", "passed": passed, "detail": "1 -> 3", "required": True},
        {"label": "answer mentions it", "passed": n % 2 == 0, "detail": "", "required": False},
    ]
    _write(
        folder,
        "run.json",
        {
            "runId": folder.name,
            "environment": "crm" if n % 5 else "toy",
            "taskId": task,
            "agent": agent,
            "task": {"id": task, "title": f"Task {task}", "instruction": "Do the thing."},
            "config": {"maxToolCalls": 50, "timeoutMs": 60000, "agentPath": agent, "seed": n},
            "startedAt": at,
            "durationMs": 200 + (n * 37) % 5000,
            "usage": {"totalTokens": 1000 + (n * 91) % 9000} if "o" in agent else {},
        },
    )
    _write(
        folder,
        "result.json",
        {
            "passed": passed,
            "reward": 1.0 if passed else 0.5 if n % 2 == 0 else 0.0,
            "toolCalls": events // 2,
            "toolErrors": 0,
            "terminationReason": "completed" if passed else _REASONS[n % len(_REASONS)],
            "checks": checks,
        },
    )
    _write(folder, "state-diff.json", {"scalars": [], "collections": {"c": {"changed": ["C-1"]}}})
    lines = [{"seq": 1, "type": "run_start", "at": at, "runId": folder.name, "agent": agent}]
    call = 0
    while len(lines) < events - 2:
        seq = len(lines) + 1
        if call % 50 == 0:
            lines.append(
                {
                    "seq": seq,
                    "type": "model_step",
                    "at": at,
                    "turn": call // 50 + 1,
                    "response": {"text": f"step {call}: looking at the counters " * 3},
                    "usage": {"totalTokens": 120},
                    "latencyMs": 350.0,
                }
            )
            seq += 1
        call += 1
        lines.append(
            {"seq": seq, "type": "tool_call", "at": at, "callId": call, "tool": "read",
             "input": {"id": f"C-{call}"}}
        )  # fmt: skip
        lines.append(
            {"seq": seq + 1, "type": "tool_result", "at": at, "callId": call, "tool": "read",
             "output": {"id": f"C-{call}", "value": call, "note": "x" * (call % 300)},
             "isError": call % 97 == 0, "durationMs": 0.4}
        )  # fmt: skip
    lines.append({"seq": len(lines) + 1, "type": "run_end", "at": at, "toolCalls": call})
    lines.append({"seq": len(lines) + 1, "type": "verifier_result", "at": at, "passed": passed})
    text = "".join(json.dumps(line) + "\n" for line in lines[:events])
    (folder / "trace.jsonl").write_text(text, encoding="utf-8")


def _stamps(html: str) -> dict[str, float]:
    found = re.search(r"<html[^>]*>", html)
    assert found is not None, html[:300]
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', found.group(0)))
    return {k: float(v) for k, v in attrs.items() if re.fullmatch(r"[0-9.]+", v)}


def _open(url: str, repeats: int) -> tuple[list[dict[str, float]], list[float]]:
    from tests.view.chromium import dump_dom

    stamps, walls = [], []
    for _ in range(repeats):
        start = perf_counter()
        stamps.append(_stamps(dump_dom(url)))
        walls.append(perf_counter() - start)
    return stamps, walls


def main() -> None:
    args = parser(__doc__.splitlines()[0]).parse_args()
    header("bench_viewer: the silo-view site in headless Chromium", args.quick)
    report = Report("viewer", args)
    from silo.view.build import build_site
    from tests.view.chromium import BINARY

    n_runs, n_events, repeats = (200, 500, 1) if args.quick else (10_000, 5_000, 5)
    work = scratch("viewer-")
    try:
        runs_dir, site = work / "runs", work / "site"
        for n in range(n_runs):
            _run_folder(runs_dir / f"run_20261101000000_{n:06d}", n, 12)
        big = runs_dir / "run_20261130235959_bigrun"
        _run_folder(big, 1, n_events)
        start = perf_counter()
        first = build_site(runs_dir, site)
        build_s = perf_counter() - start
        start = perf_counter()
        again = build_site(runs_dir, site)
        rebuild_s = perf_counter() - start
        _run_folder(runs_dir / "run_20261201000000_newone", 3, 12)
        start = perf_counter()
        one_more = build_site(runs_dir, site)
        plus_one_s = perf_counter() - start
        assert (first.rendered_runs, again.rendered_runs, one_more.rendered_runs) == (
            n_runs + 1,
            0,
            1,
        )
        builds = {"buildS": build_s, "rebuildNothingNewS": rebuild_s, "rebuildOneNewS": plus_one_s}
        for key, value in builds.items():
            report.figure(key, value)
        print(
            f"site build: {n_runs + 1:,} runs in {build_s:.1f} s; rebuilt with nothing new in "
            f"{rebuild_s:.1f} s, with one new run in {plus_one_s:.1f} s"
        )
        if BINARY is None:
            report.note(
                "no chromium on PATH (Debian: apt-get install -y chromium); pages not timed"
            )
            return
        index = site / "index.html"
        opened, open_walls = _open(index.as_uri(), repeats)
        assert all(s["matches"] == n_runs + 2 for s in opened), opened
        filtered, _ = _open(index.as_uri() + "#outcome=FAIL&task=TASK-003&q=0", repeats)
        big_page = site / "runs" / f"{big.name}.html"
        run_opened, run_walls = _open(big_page.as_uri(), repeats)
        figures = {
            "indexRuns": n_runs + 2,
            "indexBytes": index.stat().st_size,
            "indexLoadMs": median([s["loaded-ms"] for s in opened]),
            "indexFirstDrawMs": median([s["filter-ms"] for s in opened]),
            "indexFilterMs": median([s["filter-ms"] for s in filtered]),
            "filterMatches": filtered[0]["matches"],
            "runEvents": n_events,
            "runPageBytes": big_page.stat().st_size,
            "runLoadMs": median([s["loaded-ms"] for s in run_opened]),
            "chromiumWallS": median(open_walls + run_walls),
        }
        for key, value in figures.items():
            report.figure(key, value)
        report.print_table(
            ["figure", "value"],
            [[k, f"{v:,.1f}" if isinstance(v, float) else f"{v:,}"] for k, v in figures.items()],
            f"median of {repeats} Chromium loads each",
        )
        report.ratio("index of 10,000 runs: load (ms)", figures["indexLoadMs"], 1000)
        report.ratio(
            "index: load + one filter (ms)",
            figures["indexLoadMs"] + figures["indexFilterMs"],
            1000,
        )
        report.ratio("run of 5,000 events: load (ms)", figures["runLoadMs"], 1000)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        report.done()


if __name__ == "__main__":
    main()
