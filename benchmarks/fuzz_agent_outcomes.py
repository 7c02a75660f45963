"""Fuzz — hostile values an agent returns or raises: every rollout is recorded, nothing escapes.

A seeded generator draws ``--values`` outcomes (3,000 by default): lists and dicts nested up to
5,000 deep, cycles, huge strings and containers, objects whose ``__repr__``, ``__str__``,
``__eq__`` or ``__hash__`` raise, sets, bytes, NaN, lone surrogates, enums, exceptions whose
``__str__`` raises or whose message is huge, multi-line or full of escape sequences, and plain
JSON. Each is returned (or raised) by a one-line agent through ``run_task`` on the CRM world, in
memory; every tenth also on file, whose artifacts are read back.

Reported, with one target line each: exceptions out of ``run_task`` (0), rollouts without a
termination reason (0), artifacts that do not read back as JSON (0), the largest recorded
error in characters (bounded), and the largest ``result.json`` in bytes (bounded).
"""

from __future__ import annotations

import enum
import json
import math
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import ROOT, Report, header, parser, perf_counter, scratch

MAX_ERROR_CHARS = 5_000  # the bound a recorded error must stay under
MAX_RESULT_BYTES = 8_000_000  # result.json holds at most a million characters of answer


class _Raises:
    """An object whose named dunder methods raise."""

    def __init__(self, *names: str) -> None:
        self.names = names

    def __repr__(self) -> str:
        if "repr" in self.names:
            raise ValueError("repr refused")
        return "<Raises>"

    def __str__(self) -> str:
        if "str" in self.names:
            raise ValueError("str refused")
        return "Raises"

    def __eq__(self, other: object) -> bool:
        if "eq" in self.names:
            raise ValueError("eq refused")
        return self is other

    def __hash__(self) -> int:
        return 1


class _BadDict(dict[str, Any]):
    """A dict whose comparison and text raise (it still holds JSON)."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq refused")

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        raise RuntimeError("repr refused")


class _Color(enum.Enum):
    RED = "red"


class _BadStrError(Exception):
    def __str__(self) -> str:
        raise ValueError("str refused")


class _BadReprError(Exception):
    def __str__(self) -> str:
        raise ValueError("str refused")

    def __repr__(self) -> str:
        raise ValueError("repr refused")


def deep(levels: int, dicts: bool = False) -> Any:
    """A list (or dict) nested ``levels`` deep."""
    value: Any = "bottom"
    for _ in range(levels):
        value = {"k": value} if dicts else [value]
    return value


def cyclic(kind: str) -> Any:
    """A value that contains itself."""
    if kind == "list":
        items: list[Any] = [1]
        items.append(items)
        return items
    table: dict[str, Any] = {}
    table["self"] = {"back": table}
    return table


def hostile_value(rng: random.Random) -> Any:
    """One value an agent might return: hostile most of the time, plain JSON sometimes."""
    makers: list[Callable[[], Any]] = [
        lambda: deep(rng.choice([254, 256, 980, 1022, 1023, 1024, 1025, 2000, 5000])),
        lambda: deep(rng.choice([300, 1023, 1024, 3000]), dicts=True),
        lambda: cyclic(rng.choice(["list", "dict"])),
        lambda: "x" * rng.choice([10, 1_000_001, 3_000_000]),
        lambda: ["y" * 1000] * rng.choice([10, 2_000]),
        lambda: _Raises(*rng.sample(["repr", "str", "eq"], rng.randint(1, 3))),
        lambda: [_Raises("repr", "str")],
        lambda: _BadDict(a=1),
        lambda: {1, 2, 3},
        lambda: b"\x00\xff bytes",
        lambda: math.nan,
        lambda: {"inf": -math.inf},
        lambda: "lone \ud800 surrogate",
        lambda: {"\udfff": ["\udc80"]},
        lambda: _Color.RED,
        lambda: 2**90,
        lambda: {7: "int key"},
        lambda: "\x1b]0;title\x07\x1b[2J\r\nPASS",
        lambda: {"answer": rng.randint(0, 9)},
        lambda: None,
    ]
    return rng.choice(makers)()


def hostile_exception(rng: random.Random) -> BaseException:
    """One exception an agent might raise."""
    makers: list[Callable[[], BaseException]] = [
        _BadStrError,
        _BadReprError,
        lambda: RuntimeError("m" * rng.choice([10, 100_000])),
        lambda: ValueError("line one\nline two\x1b[31m red\x07"),
        lambda: RecursionError("maximum recursion depth exceeded"),
        lambda: KeyError(deep(2000)),
        lambda: Exception(_Raises("repr", "str")),
    ]
    return rng.choice(makers)()


def hostile_outcome(rng: random.Random) -> tuple[str, Any]:
    """``("return", value)`` or ``("raise", exception)``."""
    if rng.random() < 0.7:
        return "return", hostile_value(rng)
    return "raise", hostile_exception(rng)


def agent_for(outcome: tuple[str, Any]) -> Callable[[Any], Any]:
    """An agent that returns or raises ``outcome`` at once."""
    how, what = outcome

    def agent(inp: Any) -> Any:
        if how == "raise":
            raise what
        return what

    return agent


def check_folder(folder: Path) -> tuple[bool, int]:
    """Whether every artifact of ``folder`` reads back as JSON, and result.json's size."""
    try:
        for name in ("result.json", "run.json", "state-diff.json"):
            json.loads((folder / name).read_text(encoding="utf-8"))
        for line in (folder / "trace.jsonl").read_text(encoding="utf-8").splitlines():
            json.loads(line)
    except (OSError, ValueError):
        return False, 0
    return True, (folder / "result.json").stat().st_size


def fuzz(values: int, seed: int, runs_dir: Path, every: int = 10) -> dict[str, Any]:
    """Run ``values`` hostile outcomes; count what escaped and what was recorded."""
    from silo.rollout.run import run_task

    rng = random.Random(seed)
    escaped: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    unreadable = biggest_error = biggest_result = 0
    for index in range(values):
        outcome = hostile_outcome(rng)
        on_file = index % every == 0
        try:
            result = run_task(
                "crm",
                "TASK-002",
                agent_for(outcome),
                project_dir=ROOT,
                runs_dir=runs_dir,
                write_artifacts=on_file,
            )
        except Exception as exc:  # noqa: BLE001 - counting exactly what escapes
            escaped[type(exc).__name__] += 1
            continue
        reasons[result.termination_reason or "none"] += 1
        biggest_error = max(biggest_error, len(result.error or ""))
        if on_file and result.run_dir is not None:
            ok, size = check_folder(result.run_dir)
            unreadable += not ok
            biggest_result = max(biggest_result, size)
    return {
        "escaped": dict(escaped),
        "reasons": dict(reasons),
        "unreadable": unreadable,
        "biggestErrorChars": biggest_error,
        "biggestResultBytes": biggest_result,
    }


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--values", type=int, default=None, help="outcomes (default 3,000)")
    p.add_argument("--seed", type=int, default=11)
    args = p.parse_args()
    from silo.jsondepth import make_recursion_room

    make_recursion_room()  # this program reads deep trace lines with the standard library
    values = args.values or (100 if args.quick else 3_000)
    header(f"fuzz_agent_outcomes: {values:,} hostile answers and exceptions", args.quick)
    report = Report("fuzz_agent_outcomes", args)
    started = perf_counter()
    figures = fuzz(values, args.seed, scratch("fuzz-outcomes-"))
    seconds = perf_counter() - started
    report.figure("outcomes", figures | {"seconds": seconds})
    print(f"termination reasons: {figures['reasons']}")
    if figures["escaped"]:
        print(f"raised out of run_task: {figures['escaped']}")
    report.ratio("exceptions out of run_task", sum(figures["escaped"].values()), 0)
    report.ratio("rollouts without a reason", figures["reasons"].get("none", 0), 0)
    report.ratio("artifacts that do not read back", figures["unreadable"], 0)
    report.ratio(
        "largest recorded error (characters)", figures["biggestErrorChars"], MAX_ERROR_CHARS
    )
    report.ratio("largest result.json (bytes)", figures["biggestResultBytes"], MAX_RESULT_BYTES)
    report.done()


if __name__ == "__main__":
    main()
