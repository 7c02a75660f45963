"""``silo-regrade``: re-grade recorded runs with today's environment, verifiers and tasks.

Contract: ``silo-regrade <folder> [out=<dir>] [format=text|json] [--json]
[fail_on_flip=true|false]`` replays every finished run in a run, group or sweep folder (a path
or a name under ``.silo/runs/``) on a fresh world, without its agent or model
(:func:`silo.batch.regrade.regrade`), into a new group folder whose runs link to the originals
(``regradeOf`` in ``run.json``), with ``regrade.json`` beside them; ``judge=`` also grades
each task's rubric items (:mod:`silo.judges`) and reports them apart from the checks. Text: the runs whose
verdict flipped and the runs whose checks changed, each with the checks that changed, then the
runs whose replay diverged, listed apart, then a count line. JSON: the ``regrade.json``
document. Exit status 0; 1 with ``fail_on_flip=true`` when a verdict flipped or a replay
diverged; 2 for a usage mistake, a folder that holds no run or a judge whose endpoint failed —
one line on stderr each. ``judge=openai|anthropic`` takes ``judge.model=``, ``judge.base_url=``
and ``judge.api_key_env=``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from silo.batch.regrade import Regrade, RegradeRow, regrade
from silo.cli.args import UsageError, out, output_format, parse, parse_bool, run_command
from silo.judges.judgement import resolve_judges
from silo.loading.environment import find_project_dir

__all__ = ["format_text", "main"]

PROG = "silo-regrade"
USAGE = f"""usage: {PROG} <folder> [out=<dir>] [judge=scripted|openai|anthropic|<pkg.module:factory>[,...]]
       [judge.model=<m>] [judge.base_url=<url>] [judge.api_key_env=<VAR>]
       [format=text|json] [--json] [fail_on_flip=true|false]

Replay every run in a run, group or sweep folder (a path or a name under .silo/runs/) on a
fresh world and grade it with today's environment and verifiers, without the agent.
out: the folder for the new runs (default .silo/runs/regrade_<time>_<id>).
judge: grade each task's rubric items too (judgement.json), shown apart from the checks;
  a model judge (openai, anthropic) needs judge.model=, and its endpoint failing exits 2.
fail_on_flip: exit 1 when a verdict flipped or a replay diverged (default: false).
Exit status: 0 re-graded, 1 a flip (with fail_on_flip=true), 2 a usage mistake or a judge
error."""


def main(argv: list[str] | None = None) -> int:
    """Run ``silo-regrade`` on ``argv`` (``sys.argv[1:]`` by default); the exit status."""
    words = sys.argv[1:] if argv is None else argv
    return run_command(PROG, lambda: _main(words))


def _main(words: list[str]) -> int:
    keys = ("format", "out", "fail_on_flip", "judge", *_JUDGE_SETTINGS)
    args = parse(words, keys, ("--json",), positionals=len(words))
    if args.help:
        out(USAGE)
        return 0
    fmt = output_format(args)
    fail_on_flip = parse_bool("fail_on_flip", args.values.get("fail_on_flip", "false"))
    if len(args.positionals) != 1:
        raise UsageError(
            f"give one folder to re-grade (got {len(args.positionals)}): {PROG} <folder>"
        )
    target = args.values.get("out")
    judges = resolve_judges(_judge_choices(args.values))
    done = regrade(
        args.positionals[0], find_project_dir(), Path(target) if target else None, judges
    )
    out(json.dumps(done.to_json(), indent=2) if fmt == "json" else format_text(done))
    errors = dict.fromkeys(e for r in done.rows if r.judged for e in r.judged["judgeErrors"])
    for error in errors:
        sys.stderr.write(f"{PROG}: judge error (not the agent's failure): {error}\n")
    if errors:
        return 2
    return 1 if fail_on_flip and (done.of("flipped") or done.of("diverged")) else 0


# A model judge's settings on the command line (judge.model=...), as silo-run takes them.
_JUDGE_SETTINGS = tuple(f"judge.{k}" for k in ("model", "base_url", "api_key_env"))


def _judge_choices(values: dict[str, str]) -> list[str | dict[str, Any]]:
    """``judge=`` choices; a model judge (``openai``, ``anthropic``) with ``judge.*`` settings."""
    settings = {k.removeprefix("judge."): v for k, v in values.items() if k in _JUDGE_SETTINGS}
    choices: list[str | dict[str, Any]] = []
    for choice in (j.strip() for j in values.get("judge", "").split(",") if j.strip()):
        choices.append(
            {"name": choice, **settings} if choice in ("openai", "anthropic") else choice
        )
    return choices


def _verdict(passed: bool | None) -> str:
    return "-" if passed is None else "PASS" if passed else "FAIL"


def _check(value: bool | None) -> str:
    return "absent" if value is None else "pass" if value else "fail"


def _row(row: RegradeRow, head: str) -> list[str]:
    lines = [
        f"{head:<8}  {row.environment}/{row.task}  {row.agent}  "
        f"{_verdict(row.passed_before)} -> {_verdict(row.passed_after)}  "
        f"reward {row.reward_before:.2f} -> "
        f"{'-' if row.reward_after is None else f'{row.reward_after:.2f}'}  ({row.original})"
    ]
    lines += [
        f"    {c['label']}: {_check(c['before'])} -> {_check(c['after'])}" for c in row.checks
    ]
    return lines


def format_text(done: Regrade) -> str:
    """The flips, the changed checks, the diverged replays apart, and a count line."""
    lines = [f"regrade: {len(done.rows)} runs of {done.source} -> {done.group_dir}"]
    for status, head in (("flipped", "FLIPPED"), ("changed", "changed")):
        for row in done.of(status):
            lines += _row(row, head)
    diverged = done.of("diverged")
    if diverged:
        lines.append("replay diverged (the recorded calls no longer do the same; not graded as if")
        lines.append("nothing happened):")
        for row in diverged:
            lines += _row(row, "DIVERGED")
            lines.append(f"    {row.divergences} replay_divergence events in {row.regraded}")
    judged = [row for row in done.rows if row.judged is not None]
    if judged:
        total = {k: sum(int(r.judged[k]) for r in judged if r.judged) for k in ("passed", "failed")}
        lines.append(
            f"judged items (apart from the checks): {total['passed']} pass, {total['failed']} "
            f"fail over {len(judged)} runs"
        )
        for row in judged:
            if row.judged and row.judged["failed"]:
                lines.append(
                    f"  JUDGED FAIL  {row.environment}/{row.task}  {row.judged['failed']} item(s)"
                )
    for row in done.of("error"):
        lines.append(f"ERROR     {row.environment}/{row.task}  {row.agent}: {row.error}")
    counts = done.to_json()["counts"]
    lines.append(", ".join(f"{n} {s}" for s, n in counts.items()))
    return "\n".join(lines)
