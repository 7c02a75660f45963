"""Mutation testing of an environment: which oracle kills each mutant of its code.

Built on cosmic-ray (``pip install -e '.[mutation]'``): cosmic-ray's operators enumerate the
mutation sites of every ``environments/<env>/**/*.py`` module, and each mutant is applied to a
throw-away copy of the project (never to the working tree). Each mutant is then judged by three
oracles, each in its own subprocess with a timeout:

* **baselines** — ``silo-baseline check env=<env>`` exits non-zero (a DRIFT in any golden);
* **verifiers** — the reference solver fails a task, or a verifier fails on a no-op run that
  the golden says passes (``silo-run env=<env> task=all agent=solver`` reports a failure);
* **tests** — ``pytest tests/environments`` fails.

A mutant none of them kills *survived*; one whose module no longer imports counts as killed by
all. The score is killed / applied mutants (equivalent mutants are not weeded out, so it is a
lower bound). Not in CI: it runs three subprocesses per mutant. Usage::

    .venv/bin/python benchmarks/mutation.py --env crm --sample 60 --seed 1 --json out.json

``--sample N`` draws N mutants at random (seeded) from all sites; ``--operators`` narrows the
cosmic-ray operators (default: comparisons, boolean and arithmetic swaps, numbers, ``not``).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
DEFAULT_OPERATORS = (
    "core/ReplaceComparisonOperator_*",
    "core/ReplaceAndWithOr",
    "core/ReplaceOrWithAnd",
    "core/ReplaceTrueWithFalse",
    "core/ReplaceFalseWithTrue",
    "core/AddNot",
    "core/NumberReplacer",
    "core/ReplaceBinaryOperator_Add_Sub",
    "core/ReplaceBinaryOperator_Sub_Add",
    "core/ReplaceBinaryOperator_Mul_Div",
    "core/ReplaceBinaryOperator_Div_Mul",
    "core/ZeroIterationForLoop",
)
ORACLES = ("baselines", "verifiers", "tests")


@dataclass(frozen=True)
class Mutant:
    """One mutation site: a module, a cosmic-ray operator and its occurrence in that module."""

    module: str  # relative to the project
    operator: str
    occurrence: int
    line: int


def _operators(patterns: list[str]) -> list[str]:
    import fnmatch

    from cosmic_ray.plugins import operator_names

    return [name for name in operator_names() if any(fnmatch.fnmatch(name, p) for p in patterns)]


def enumerate_mutants(env: str, patterns: list[str]) -> list[Mutant]:
    """Every mutation site cosmic-ray finds in the environment's modules, in a stable order."""
    # The scripted probes are test agents pinned by the goldens, not environment logic.
    paths = sorted(p for p in (ROOT / "environments" / env).rglob("*.py") if "probe" not in p.name)
    return mutants_of(paths, patterns)


def mutants_of(paths: list[Path], patterns: list[str]) -> list[Mutant]:
    """Every mutation site cosmic-ray's ``patterns`` operators find in ``paths``, in order."""
    from cosmic_ray.ast import ast_nodes, get_ast_from_path
    from cosmic_ray.plugins import get_operator

    found = []
    for path in paths:
        tree = get_ast_from_path(path)
        for name in _operators(patterns):
            operator = get_operator(name)()
            sites = [pos for node in ast_nodes(tree) for pos in operator.mutation_positions(node)]
            for occurrence, (start, _end) in enumerate(sites):
                found.append(Mutant(str(path.relative_to(ROOT)), name, occurrence, start[0]))
    return found


def copy_project(into: Path) -> Path:
    """A throw-away copy of the project (environments, baselines, tests, conf) under ``into``."""
    project = into / "project"
    for part in ("environments", "baselines", "tests", "conf"):
        if (ROOT / part).exists():
            shutil.copytree(
                ROOT / part, project / part, ignore=shutil.ignore_patterns("__pycache__")
            )
    shutil.copy(ROOT / "pyproject.toml", project / "pyproject.toml")
    return project


def fails(command: list[str], cwd: Path, timeout: float) -> bool:
    """Whether ``command`` exits non-zero (or outlives ``timeout`` seconds) in ``cwd``."""
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return True
    return done.returncode != 0


def judge(mutant: Mutant, project: Path, env: str, timeout: float) -> dict[str, Any]:
    """Apply one mutant to the copy, run the three oracles, restore the module."""
    from cosmic_ray.mutating import use_mutation
    from cosmic_ray.plugins import get_operator

    operator = get_operator(mutant.operator)()
    path = project / mutant.module
    with use_mutation(path, operator, mutant.occurrence) as (_original, mutated):
        if mutated is None:
            return {"mutant": mutant.__dict__, "applied": False}
        commands = {
            "baselines": [str(BIN / "silo-baseline"), "check", f"env={env}"],
            "verifiers": [str(BIN / "silo-run"), f"env={env}", "task=all", "agent=solver"],
            "tests": [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                      "tests/environments"],
        }  # fmt: skip
        killed = {name: fails(command, project, timeout) for name, command in commands.items()}
    return {"mutant": mutant.__dict__, "applied": True, "killed": killed}


def main(argv: list[str] | None = None) -> int:
    """Run the mutants, print one line per mutant and the scores, optionally write JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="crm")
    parser.add_argument("--sample", type=int, default=0, help="mutants drawn at random; 0: all")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--operators", nargs="*", default=list(DEFAULT_OPERATORS))
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per oracle run")
    parser.add_argument("--json", type=Path, default=None, help="write every verdict here")
    args = parser.parse_args(argv)
    mutants = enumerate_mutants(args.env, args.operators)
    print(f"{len(mutants)} mutation sites in environments/{args.env}", flush=True)
    if args.sample and args.sample < len(mutants):
        mutants = sorted(random.Random(args.seed).sample(mutants, args.sample), key=str)
    verdicts = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="silo-mutation-") as tmp:
        project = copy_project(Path(tmp))
        for index, mutant in enumerate(mutants, 1):
            verdict = judge(mutant, project, args.env, args.timeout)
            verdicts.append(verdict)
            killed = verdict.get("killed", {})
            by = ",".join(name for name in ORACLES if killed.get(name)) or "SURVIVED"
            where = f"{mutant.module}:{mutant.line} {mutant.operator}#{mutant.occurrence}"
            print(f"[{index}/{len(mutants)}] {by:<26} {where}", flush=True)
    applied = [v for v in verdicts if v["applied"]]
    report_scores(applied, ORACLES, time.monotonic() - started, args.json, verdicts)
    return 0


def report_scores(
    judged: list[dict[str, Any]],
    oracles: Sequence[str],
    seconds: float,
    json_path: Path | None,
    every: list[dict[str, Any]] | None = None,
) -> None:
    """Print the share of ``judged`` each oracle (and any) killed; write JSON when asked."""
    total = len(judged) or 1
    scores = {name: sum(v["killed"][name] for v in judged) / total for name in oracles}
    scores["any"] = sum(any(v["killed"].values()) for v in judged) / total
    print(f"mutants {len(judged)} in {seconds:.0f} s; killed by:")
    for name, value in scores.items():
        print(f"  {name:<10} {value:.1%}")
    if json_path is not None:
        verdicts = judged if every is None else every
        json_path.write_text(json.dumps({"scores": scores, "verdicts": verdicts}, indent=2))


if __name__ == "__main__":
    sys.exit(main())
