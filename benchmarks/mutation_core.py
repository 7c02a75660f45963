"""Mutation score of Silo's core modules against the tests that target them (issue 17).

Built on cosmic-ray like ``mutation.py`` (same operators): each module of a group is mutated in
a throw-away copy of the project that also holds ``silo/`` (put first on ``PYTHONPATH``, so the
copy's package is the one imported), and the group's tests are run there
(``pytest -x -q``); a failing run kills the mutant. Mutants listed in
``benchmarks/mutation_equivalent.txt`` (``module operator#occurrence  why``) are set aside as
equivalent: no test can tell them apart from the original. The score is killed / (applied -
equivalent). Usage (low priority: the machine is shared)::

    nice -n 10 .venv/bin/python benchmarks/mutation_core.py --group diff --sample 40 --seed 1

``--sample N`` draws N mutants of the group at random (seeded); 0 judges every site.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mutation import DEFAULT_OPERATORS, ROOT, Mutant, copy_project, mutants_of

GROUPS: dict[str, tuple[list[str], list[str]]] = {  # modules, the tests that target them
    "diff": (["silo/world/diff.py", "silo/world/changes.py"],
             ["tests/world", "tests/rollout/test_session.py"]),
    "artifacts": (["silo/artifacts/run_folder.py", "silo/artifacts/documents.py"],
                  ["tests/artifacts"]),
    "summaries": (["silo/batch/summary.py"],
                  ["tests/batch/test_summary_rows.py", "tests/artifacts/test_documents.py",
                   "tests/batch/test_run_points.py::test_table_prints_a_readable_set_of_k",
                   "tests/batch/test_run_points.py::test_pass_hat_k_edges"]),
    "verifiers": (["silo/verifiers.py"],
                  ["tests/test_verifiers.py", "tests/test_verifier_records.py", "tests/artifacts/test_result_values.py",
                   "tests/rollout/test_verifier.py"]),
    "bridge": (["silo/rollout/bridge.py"],
               ["tests/rollout/test_tool_calls.py", "tests/rollout/test_bridge_edges.py",
                "tests/rollout/test_bridge_copies.py"]),
    "baselines": (["silo/batch/baseline.py"],
                  ["tests/batch/test_baseline.py", "tests/batch/test_baseline_check_errors.py",
                   "tests/batch/test_baseline_changes.py", "tests/batch/test_baseline_explain_bounds.py"]),
}  # fmt: skip
EQUIVALENT = Path(__file__).resolve().parent / "mutation_equivalent.txt"


def equivalent_ids() -> set[str]:
    """``module operator#occurrence`` of every mutant set aside as equivalent."""
    if not EQUIVALENT.is_file():
        return set()
    lines = EQUIVALENT.read_text(encoding="utf-8").splitlines()
    return {" ".join(line.split()[:2]) for line in lines if line.strip() and line[0] != "#"}


def mutant_id(mutant: Mutant) -> str:
    """How a mutant is named in the equivalents file and in the output."""
    return f"{mutant.module} {mutant.operator}#{mutant.occurrence}"


def judge(mutant: Mutant, project: Path, tests: list[str], timeout: float) -> bool | None:
    """Whether the tests kill ``mutant`` in ``project``; None when it does not apply."""
    from cosmic_ray.mutating import use_mutation
    from cosmic_ray.plugins import get_operator

    operator = get_operator(mutant.operator)()
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
               "-p", "no:warnings", *tests]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(project)}
    with use_mutation(project / mutant.module, operator, mutant.occurrence) as (_orig, mutated):
        if mutated is None:
            return None
        try:
            done = subprocess.run(command, cwd=project, env=env, capture_output=True,
                                  timeout=timeout, check=False)  # fmt: skip
        except subprocess.TimeoutExpired:
            return True
    return done.returncode != 0


def main(argv: list[str] | None = None) -> int:
    """Judge one group's mutants, print each verdict and the score, optionally write JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--group", choices=sorted(GROUPS), required=True)
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    modules, tests = GROUPS[args.group]
    mutants = mutants_of([ROOT / m for m in modules], list(DEFAULT_OPERATORS))
    print(f"{len(mutants)} mutation sites in {', '.join(modules)}", flush=True)
    if args.sample and args.sample < len(mutants):
        mutants = sorted(random.Random(args.seed).sample(mutants, args.sample), key=str)
    aside = equivalent_ids()
    verdicts: list[dict[str, Any]] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="silo-mutation-core-") as tmp:
        project = copy_project(Path(tmp))
        shutil.copytree(
            ROOT / "silo", project / "silo", ignore=shutil.ignore_patterns("__pycache__")
        )
        for index, mutant in enumerate(mutants, 1):
            name = mutant_id(mutant)
            killed = None if name in aside else judge(mutant, project, tests, args.timeout)
            word = (
                "EQUIVALENT"
                if name in aside
                else {None: "n/a", True: "killed"}.get(killed, "SURVIVED")
            )
            print(f"[{index}/{len(mutants)}] {word:<10} {name} (line {mutant.line})", flush=True)
            verdicts.append({"mutant": name, "line": mutant.line, "verdict": word})
    judged = [v for v in verdicts if v["verdict"] in ("killed", "SURVIVED")]
    score = sum(v["verdict"] == "killed" for v in judged) / (len(judged) or 1)
    print(f"{args.group}: {score:.1%} of {len(judged)} mutants killed "
          f"({sum(v['verdict'] == 'EQUIVALENT' for v in verdicts)} equivalent set aside) "
          f"in {time.monotonic() - started:.0f} s")  # fmt: skip
    if args.json is not None:
        args.json.write_text(
            json.dumps({"group": args.group, "score": score, "verdicts": verdicts}, indent=2)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
