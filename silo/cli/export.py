"""``silo-export``: run folders as a dataset file (SFT chat samples or RL token trajectories).

Contract: ``silo-export <folder|glob>... out=<file> [kind=sft|rl] [format=jsonl|parquet]
[passed=true|false] [min_reward=R] [max_reward=R] [agent=<name|model>] [task=<id>,...]``
writes one row per finished rollout under the folders (:func:`silo.export.export_runs`) and
prints ``exported <n> <kind> rows to <file>``. Exit status 0; 2 for a usage mistake, a folder
that holds no matching rollout, a rollout without model turns (or, for ``rl``, without token
ids) or an unwritable file — one line on stderr, never a traceback.
"""

from __future__ import annotations

import sys

from silo.cli.args import UsageError, out, parse, parse_bool, run_command
from silo.export import Filters, export_runs
from silo.loading.environment import find_project_dir

__all__ = ["main"]

PROG = "silo-export"
USAGE = f"""usage: {PROG} <folder|glob>... out=<file> [kind=sft|rl] [format=jsonl|parquet]
       [passed=true|false] [min_reward=R] [max_reward=R] [agent=<name|model>] [task=<id>,...]

Export the rollouts under run, group or sweep folders (paths, glob patterns or names under
.silo/runs/) as a dataset: kind=sft gives chat samples (messages, tools), kind=rl token
trajectories (token ids, logprobs, loss mask, group). format defaults to the out= suffix
(.parquet, else JSON Lines); Parquet needs the [parquet] extra.
Exit status: 0 exported, 2 a usage mistake or nothing to export."""

_KEYS = ("out", "kind", "format", "passed", "min_reward", "max_reward", "agent", "task")


def main(argv: list[str] | None = None) -> int:
    """Run ``silo-export`` on ``argv`` (``sys.argv[1:]`` by default); the exit status."""
    words = sys.argv[1:] if argv is None else argv
    return run_command(PROG, lambda: _main(words))


def _main(words: list[str]) -> int:
    args = parse(words, _KEYS, positionals=len(words))
    if args.help:
        out(USAGE)
        return 0
    values = args.values
    if not args.positionals:
        raise UsageError(f"give the run, group or sweep folders to export: {PROG} <folder> out=…")
    if not values.get("out"):
        raise UsageError("give the file to write: out=<file>.jsonl or out=<file>.parquet")
    passed = values.get("passed")
    tasks = [t.strip() for t in values.get("task", "").split(",") if t.strip()]
    filters = Filters(
        passed=None if passed is None else parse_bool("passed", passed),
        min_reward=_number(values, "min_reward"),
        max_reward=_number(values, "max_reward"),
        agent=values.get("agent") or None,
        tasks=frozenset(tasks),
    )
    kind = values.get("kind", "sft")
    count = export_runs(
        args.positionals,
        values["out"],
        kind,
        fmt=values.get("format"),
        filters=filters,
        project_dir=find_project_dir(),
    )
    out(f"exported {count} {kind} rows to {values['out']}")
    return 0


def _number(values: dict[str, str], key: str) -> float | None:
    text = values.get(key)
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        raise UsageError(f'{key}= must be a number, not "{text}"') from None
