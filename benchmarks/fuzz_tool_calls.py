"""Fuzz — random malformed tool calls to random CRM tools: nothing escapes, everything is counted.

An agent makes ``--calls`` calls (10,000 by default) to random CRM tools with inputs built from
each tool's schema and then broken: wrong types, missing and unknown keys, nesting 1,000 deep,
lone surrogates in the tool name, a key or a value, NaN and the infinities, huge strings and
integers, values that are not JSON at all (sets, bytes, objects), input that is not an object,
names that are not strings; about a third of the calls are valid and really run (and may
refuse, or write). The same agent (same seed) runs twice through ``run_task``: once with its
trace in memory, once with the artifacts on file.

Reported, with one target line each: exceptions raised out of ``call_tool`` (0), results coded
``tool_crashed`` (0: no malformed input may crash a tool), ``result.json`` ``toolCalls`` equal
to the ``tool_call`` events of the trace (and ``seq`` without gaps), answers identical in memory
and on file, and the largest error result in characters (bounded, whatever the input size).
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from typing import Any

from _common import ROOT, Report, header, parser, perf_counter, scratch

HUGE = "x" * 2_000_000  # one shared 2 MB string: an error must not repeat it
SURROGATES = ("\ud800", "\udfff", "a\udc80b")
MAX_ERROR_CHARS = 4096  # the bound an error result must stay under


def deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = [value]
    return value


def plausible(schema: dict[str, Any], rng: random.Random) -> Any:
    """A value of the property ``schema`` describes (often valid: the tool really runs)."""
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema.get("type")
    if kind == "integer":
        return rng.randint(schema.get("minimum", 0), min(schema.get("maximum", 50), 50))
    if kind == "number":
        return rng.uniform(0, 1000)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        return [plausible(schema.get("items", {}), rng)]
    if kind == "object":
        return {}
    prefix = str(schema.get("pattern", "")).lstrip("^").split("-")[0]
    if prefix.isalpha():
        return f"{prefix}-{rng.randint(1, 30):03d}"
    return rng.choice(["north", "Acme", "2026-03-20", "open", ""])


def broken_value(rng: random.Random) -> Any:
    """One value that is wrong for any schema, or not JSON at all."""
    return rng.choice(
        [
            lambda: math.nan,
            lambda: -math.inf,
            lambda: 2**80,
            lambda: HUGE,
            lambda: rng.choice(SURROGATES),
            lambda: deep(1000),
            lambda: deep(300),
            lambda: {1, 2},
            lambda: b"bytes",
            lambda: object(),
            lambda: (1, 2),
            lambda: {"nested": {"x": [None, {"y": rng.choice(SURROGATES)}]}},
            lambda: None,
            lambda: -1,
            lambda: 12.5,
            lambda: [],
            lambda: "",
            lambda: True,
        ]
    )()


def fuzz_call(tools: list[dict[str, Any]], rng: random.Random) -> tuple[Any, Any]:
    """A (name, input) pair: valid about a third of the time, broken in one way otherwise."""
    spec = rng.choice(tools)
    name: Any = spec["name"]
    props = spec["inputSchema"].get("properties", {})
    args: dict[Any, Any] = {
        key: plausible(sub, rng) for key, sub in props.items() if rng.random() < 0.7
    }
    for key in spec["inputSchema"].get("required", []):
        args.setdefault(key, plausible(props.get(key, {}), rng))
    roll = rng.random()
    if roll < 0.33:
        return name, args
    mistake = rng.randint(0, 9)
    if mistake == 0 and props:
        args[rng.choice(list(props))] = broken_value(rng)
    elif mistake == 1:
        args[rng.choice(["extra", "\ud800key", "a" * 300, 7, None])] = broken_value(rng)
    elif mistake == 2 and args:
        args.pop(rng.choice(list(args)))
    elif mistake == 3:
        name = rng.choice([name + "\udc00", "no_such_tool", HUGE, "", name.upper()])
    elif mistake == 4:
        name = rng.choice([None, 42, ["list"], {"d": 1}, b"bytes", 1.5])
    elif mistake == 5:
        return name, broken_value(rng)
    elif mistake == 6:
        return name, rng.choice([[args], json.dumps(args), 5, True])
    elif mistake == 7:
        args = {"deep": deep(rng.choice([200, 1000, 5000]))}
    elif mistake == 8 and props:
        args[rng.choice(list(props))] = HUGE
    else:
        args[rng.choice(list(props) or ["k"])] = rng.choice(
            [math.nan, "\ud800", 2**70, {"set": {1}}]
        )
    return name, args


def fuzz_agent(calls: int, seed: int, answers: list[Any], escaped: Counter[str]) -> Any:
    """The agent: ``calls`` fuzzed calls, recording each answer (or the exception raised)."""

    def agent(inp: Any) -> str:
        rng = random.Random(seed)
        for _ in range(calls):
            name, args = fuzz_call(inp.tools, rng)
            try:
                result = inp.call_tool(name, args)
            except Exception as exc:  # noqa: BLE001 - counting exactly what escapes
                escaped[type(exc).__name__] += 1
                answers.append(f"raised {type(exc).__name__}")
                continue
            answers.append(json.dumps(result, sort_keys=True))
        return "fuzzed"

    return agent


def run_once(calls: int, seed: int, write_artifacts: bool, runs_dir: Any) -> dict[str, Any]:
    from silo.rollout.run import run_task

    answers: list[Any] = []
    escaped: Counter[str] = Counter()
    t0 = perf_counter()
    result = run_task(
        "crm",
        "TASK-002",
        fuzz_agent(calls, seed, answers, escaped),
        {"max_tool_calls": calls + 1, "timeout_ms": 3_600_000},
        project_dir=ROOT,
        runs_dir=runs_dir,
        write_artifacts=write_artifacts,
    )
    seconds = perf_counter() - t0
    if result.run_dir is not None:
        text = (result.run_dir / "trace.jsonl").read_text(encoding="utf-8")
        lines = [json.loads(line) for line in text.split("\n") if line]
    else:
        lines = [json.loads(line) for line in result.trace_lines]
    events = Counter(line["type"] for line in lines)
    outputs = [line for line in lines if line["type"] == "tool_result"]
    crashed = sum(1 for o in outputs if o["isError"] and o["output"].get("code") == "tool_crashed")
    biggest = max((len(json.dumps(o["output"])) for o in outputs if o["isError"]), default=0)
    return {
        "answers": answers,
        "escaped": escaped,
        "toolCalls": result.tool_calls,
        "toolCallEvents": events["tool_call"],
        "toolResultEvents": events["tool_result"],
        "seqGapless": [line["seq"] for line in lines] == list(range(1, len(lines) + 1)),
        "crashed": crashed,
        "errors": sum(1 for o in outputs if o["isError"]),
        "biggestErrorChars": biggest,
        "termination": result.termination_reason,
        "seconds": seconds,
    }


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=None, help="calls per run (default 10,000)")
    p.add_argument("--seed", type=int, default=17)
    args = p.parse_args()
    from silo.jsondepth import make_recursion_room

    make_recursion_room()  # this program reads deep trace lines with the standard library
    calls = args.calls or (300 if args.quick else 10_000)
    header(f"fuzz_tool_calls: {calls:,} malformed calls to random CRM tools", args.quick)
    report = Report("fuzz_tool_calls", args)
    runs_dir = scratch("fuzz-")
    memory = run_once(calls, args.seed, False, None)
    on_file = run_once(calls, args.seed, True, runs_dir)
    rows = []
    for label, run in (("memory", memory), ("file", on_file)):
        report.figure(label, {k: v for k, v in run.items() if k not in ("answers", "escaped")})
        rows.append(
            [
                label,
                f"{sum(run['escaped'].values())}",
                f"{run['crashed']}",
                f"{run['errors']}",
                f"{run['toolCalls']}/{run['toolCallEvents']}/{run['toolResultEvents']}",
                "yes" if run["seqGapless"] else "NO",
                f"{run['biggestErrorChars']:,}",
                f"{run['seconds']:.1f}",
            ]
        )
    report.print_table(
        ["trace", "raised", "tool_crashed", "errors", "calls/call ev/result ev", "seq ok",
         "max error chars", "s"],
        rows,
    )  # fmt: skip
    for label, run in (("memory", memory), ("file", on_file)):
        if run["escaped"]:
            print(f"{label}: raised out of call_tool: {dict(run['escaped'])}")
    same = memory["answers"] == on_file["answers"]
    print(f"answers identical in memory and on file: {'yes' if same else 'NO'}")
    escaped = sum(memory["escaped"].values()) + sum(on_file["escaped"].values())
    report.ratio("exceptions out of call_tool", escaped, 0)
    report.ratio("tool_crashed results", memory["crashed"] + on_file["crashed"], 0)
    mismatched = sum(
        run["toolCalls"] != run["toolCallEvents"]
        or run["toolCallEvents"] != run["toolResultEvents"]
        or run["toolCalls"] != calls
        or not run["seqGapless"]
        for run in (memory, on_file)
    )
    report.ratio("runs whose counts differ from their events", mismatched, 0)
    report.ratio("answers that differ between memory and file", 0 if same else 1, 0)
    biggest = max(memory["biggestErrorChars"], on_file["biggestErrorChars"])
    report.ratio("largest error result (characters)", biggest, MAX_ERROR_CHARS)
    report.done()


if __name__ == "__main__":
    main()
