"""``silo-compare``: what changed between two groups of rollouts.

Contract: ``silo-compare <A> <B> [format=text|json] [--json] [fail_on_regression=true|false]``
compares A (the reference) with B (the candidate), each a run, group or sweep folder given as a
path or as a folder name under the project's ``.silo/runs/`` (:func:`silo.batch.compare.compare`).
Text: each side's rollouts by outcome, a table per task × agent (graded runs and not-graded
rollouts, pass rate, mean reward and mean tool calls in A, B and B − A, the same for the
estimated cost when a side was priced, and a status), the not-graded rollouts with their
reason, what changed in single-run cells (checks that flipped, state-diff rows that differ:
``+`` only in B's diff, ``-`` only in A's, and the field-level changes of
``state-changes.json``, so a cell whose verdicts agree but whose world differs is
``CHANGED``), each template's instances pooled per side (rate A -> B; the instances are the
table's rows), judged items per cell apart from the checks (``judge=``'s pass counts and rate,
A -> B; they never set a status), pass^k per agent, and a count line. Rates count graded rollouts only (see
:mod:`silo.batch.outcomes`).
JSON: :meth:`silo.batch.compare.Comparison.to_json`. Exit status 0; 1 with ``fail_on_regression=true``
when a cell's pass rate dropped; 2 when a side holds a rollout that was not graded (an
environment or model error: its rates are not the whole story), for a usage mistake, a missing
folder or one that holds no rollout — one line on stderr, never a traceback.
"""

from __future__ import annotations

import json
import sys

from silo.batch.compare import Comparison, Side, compare, conversation_line
from silo.batch.outcomes import LABELS, NOT_GRADED, count_line
from silo.cli.args import UsageError, out, output_format, parse, parse_bool, run_command
from silo.json_types import JSON
from silo.loading.environment import find_project_dir

__all__ = ["format_text", "main"]

PROG = "silo-compare"
USAGE = f"""usage: {PROG} <A> <B> [format=text|json] [--json] [fail_on_regression=true|false]

Compare the rollouts of B (candidate) with those of A (reference): each a run, group or sweep
folder, as a path or a folder name under .silo/runs/.
fail_on_regression: exit 1 when a task x agent's pass rate dropped (default: false).
Exit status: 0 compared, 1 a regression (with fail_on_regression=true), 2 a side holds
rollouts that were not graded (environment or model errors), or a usage mistake."""

_STATUS_TEXT = {
    "regression": "REGRESSION",
    "fix": "fix",
    "worse": "worse",
    "better": "better",
    "changed": "CHANGED",
    "same": "same",
    "notGraded": "not graded",
    "onlyA": "only in A",
    "onlyB": "only in B",
}
# summary row key → (column name, decimals); each gets an A, a B and a Δ (B − A) column
_COLUMNS = {"passRate": ("rate", 2), "meanReward": ("reward", 2), "meanToolCalls": ("calls", 1)}


def main(argv: list[str] | None = None) -> int:
    """Run ``silo-compare`` on ``argv`` (``sys.argv[1:]`` by default); the exit status."""
    words = sys.argv[1:] if argv is None else argv
    return run_command(PROG, lambda: _main(words))


def _main(words: list[str]) -> int:
    keys = ("format", "fail_on_regression")
    args = parse(words, keys, ("--json",), positionals=len(words))
    if args.help:
        out(USAGE)
        return 0
    fmt = output_format(args)
    value = args.values.get("fail_on_regression", "false")
    fail_on_regression = parse_bool("fail_on_regression", value)
    if len(args.positionals) != 2:
        raise UsageError(
            f"give two folders to compare (got {len(args.positionals)}): {PROG} <A> <B> "
            "(run, group or sweep folders, as paths or names under .silo/runs/)"
        )
    first, second = args.positionals
    comparison = compare(first, second, find_project_dir())
    out(json.dumps(comparison.to_json(), indent=2) if fmt == "json" else format_text(comparison))
    if any(_not_graded(side) for side in (comparison.a, comparison.b)):
        return 2
    return 1 if fail_on_regression and comparison.regressed else 0


def _not_graded(side: Side) -> int:
    counts = side.counts()
    return sum(counts[o] for o in NOT_GRADED)


def _num(row: dict[str, JSON] | None, key: str, places: int, sign: str = "") -> str:
    value = None if row is None else row.get(key)
    return "-" if not isinstance(value, (int, float)) else f"{value:{sign}.{places}f}"


def _cell_label(cell: dict[str, JSON], with_env: bool) -> str:
    return f"{cell['environment']}/{cell['task']}" if with_env else cell["task"]


def _table(comparison: Comparison) -> list[str]:
    """Task, agent, runs, then A / B / Δ of each of _COLUMNS (and cost if priced), the status."""
    with_env = len({c["environment"] for c in comparison.cells}) > 1
    columns = dict(_COLUMNS)
    if any("estimatedCost" in (c[side] or {}) for c in comparison.cells for side in "ab"):
        columns["estimatedCost"] = ("cost", 4)  # a side was run with pricing=
    header = ["task", "agent", "runsA", "runsB", "errA", "errB"]
    for name, _ in columns.values():
        header += [f"{name}A", f"{name}B", f"Δ{name}"]
    rows = [[*header, "status"]]
    for c in comparison.cells:
        row = [_cell_label(c, with_env), c["agent"]]
        row += [str(c[side]["runs"]) if c[side] else "-" for side in ("a", "b")]
        row += [_errors(c[side]) for side in ("a", "b")]
        for key, (_, places) in columns.items():
            row += [_num(c["a"], key, places), _num(c["b"], key, places)]
            row.append(_num(c["delta"], key, places, "+"))
        rows.append([*row, _STATUS_TEXT[c["status"]]])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = []
    for row in rows:
        left = [f"{row[0]:<{widths[0]}}", f"{row[1]:<{widths[1]}}"]
        right = [f"{cell:>{width}}" for cell, width in zip(row[2:-1], widths[2:], strict=True)]
        lines.append("  ".join([*left, *right, row[-1]]))
    lines.insert(1, "-" * len(lines[0]))
    return lines


def _errors(row: dict[str, JSON] | None) -> str:
    """A row's rollouts that were not graded (``-`` when the side has no such row)."""
    return "-" if row is None else str(row["rollouts"] - row["runs"])


def _reasons(comparison: Comparison) -> list[str]:
    """The not-graded rollouts of each side, one line per task, agent, outcome and reason."""
    lines = []
    for letter, side in (("A", comparison.a), ("B", comparison.b)):
        seen: dict[tuple[str, str, str, str], int] = {}
        for rollout in side.rollouts:
            outcome, reason = rollout.outcome
            if reason is not None:
                key = (rollout.cell[1], rollout.cell[2], LABELS[outcome], reason)
                seen[key] = seen.get(key, 0) + 1
        for (task, agent, label, reason), n in sorted(seen.items()):
            times = f" x{n}" if n > 1 else ""
            lines.append(f"  {letter} {task} {agent}: {label}{times}: {reason}")
    if lines:
        lines.insert(
            0, "Not graded (the environment's or the endpoint's failure, not in the rates):"
        )
    return lines


def _passed(value: bool | None) -> str:
    return "absent" if value is None else "pass" if value else "fail"


def _state_text(changes: list[dict[str, JSON]] | None) -> str:
    if changes is None:
        return "unknown (a side has no state-diff.json)"
    return "; ".join(
        f"{ch['path']}: "
        + " ".join([*(f"+{r}" for r in ch["onlyB"]), *(f"-{r}" for r in ch["onlyA"])])
        for ch in changes
    )


def _details(comparison: Comparison) -> list[str]:
    """Per single-run cell whose result differs: the result fields, flipped checks, state."""
    with_env = len({c["environment"] for c in comparison.cells}) > 1
    lines = []
    for cell in comparison.cells:
        detail = cell["detail"]
        if detail is None:
            continue
        fields = ", ".join(detail["resultFields"]) or "checks"
        what = (
            f"result differs in {fields}"
            if detail["checks"] or detail["resultFields"]
            else ("same result, the world differs")
        )
        lines.append(f"  {_cell_label(cell, with_env)} {cell['agent']}: {what}")
        checks = [
            f"{c['label']} ({_passed(c['a'])} -> {_passed(c['b'])})" for c in detail["checks"]
        ]
        if checks:
            lines.append(f"    checks: {'; '.join(checks)}")
        state = _state_text(detail["stateDiff"])
        if state:
            lines.append(f"    state diff: {state}")
        lines.extend(f"    field {line}" for line in detail.get("stateChanges") or ())
        if detail.get("conversation"):
            lines.append(f"    {conversation_line(detail['conversation'])}")
    if lines:
        lines.insert(
            0, "Single-run cells that differ (state diff: +row only in B, -row only in A):"
        )
    return lines


def _agents(comparison: Comparison) -> list[str]:
    lines = []
    for agent in comparison.agents:
        if agent["a"] is None or agent["b"] is None:
            lines.append(f"pass^k {agent['agent']}: only in {'B' if agent['a'] is None else 'A'}")
            continue
        ks = "  ".join(
            f"k={k} {v['a']:.2f} -> {v['b']:.2f} ({v['delta']:+.2f})"
            for k, v in agent["passHatK"].items()
        )
        tasks = f"{agent['a']['tasks']}/{agent['b']['tasks']}"
        lines.append(f"pass^k {agent['agent']} (tasks A/B {tasks}): {ks or 'no common k'}")
    return lines


def _rate(value: JSON) -> str:
    return "-" if not isinstance(value, int | float) else f"{value:.2f}"


def _templates(comparison: Comparison) -> list[str]:
    """A template's instances pooled per side; the instances are the table's own rows."""
    lines = []
    for t in comparison.templates:
        a, b, delta = t["a"] or {}, t["b"] or {}, t["delta"] or {}
        count = f"{a.get('instances', 0)}/{b.get('instances', 0)}"
        line = (
            f"template {t['template']} {t['agent']} (instances A/B {count}): rate "
            f"{_rate(a.get('passRate'))} -> {_rate(b.get('passRate'))}"
        )
        if isinstance(delta.get("passRate"), int | float):
            line += f" ({delta['passRate']:+.2f})"
        judged = [(x.get("judged") or {}).get("passRate") for x in (a, b)]
        if any(j is not None for j in judged):
            line += f"; judged rate {_rate(judged[0])} -> {_rate(judged[1])}"
        lines.append(line)
    return lines


def _judged(comparison: Comparison) -> list[str]:
    """Each cell's judged items on each side, apart from the checks' columns and statuses."""
    lines = []
    for c in comparison.cells:
        sides = [(c[side] or {}).get("judged") for side in ("a", "b")]
        if not any(sides):
            continue
        shown = [
            "-" if j is None else f"{j['passed']} pass, {j['failed']} fail ({_rate(j['passRate'])})"
            for j in sides
        ]
        delta = (c["delta"] or {}).get("judgedPassRate")
        change = f" ({delta:+.2f})" if isinstance(delta, int | float) else ""
        lines.append(f"  {c['task']} {c['agent']}: {shown[0]} -> {shown[1]}{change}")
    return ["judged items A -> B (apart from the checks):", *lines] if lines else []


def format_text(comparison: Comparison) -> str:
    """The report a person reads: sides, table, single-run details, pass^k, counts."""
    sides = []
    for letter, side in (("A", comparison.a), ("B", comparison.b)):
        sides.append(f"{letter}: {side.name} ({side.kind}, {count_line(side.counts())})")
    counts = [f"{n} {_STATUS_TEXT[s]}" for s, n in comparison.counts().items() if n]
    regressed = len(comparison.regressed)
    verdict = f"pass rate dropped in {regressed} cell(s)" if regressed else "no pass rate dropped"
    parts = [sides, _table(comparison), _reasons(comparison), _details(comparison)]
    parts += [_templates(comparison), _judged(comparison), _agents(comparison)]
    parts.append([f"{len(comparison.cells)} cells: {', '.join(counts)}; {verdict}"])
    return "\n\n".join("\n".join(part) for part in parts if part)
