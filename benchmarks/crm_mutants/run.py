"""Judge the hand-written CRM mutants: which oracle catches each realistic logic bug.

Contract: reads ``mutants.yaml`` beside this file (each entry replaces one exact, unique
snippet of one file under ``environments/crm``), applies every mutant in turn to a throw-away
copy of the project (never the working tree), and runs the oracles there, each a subprocess
with a timeout:

* **baselines** — ``silo-baseline check`` (every entry of ``baselines/silo-baselines.yaml``)
  exits non-zero;
* **tests** — pytest on the CRM test files (``tests/**/test_crm*.py``) fails; with
  ``--full-suite`` the whole suite is run instead for the mutants these miss;
* **verifiers** — ``silo-run env=crm task=all agent=solver`` reports a failed task.

A mutant whose ``find`` text is not exactly once in its file is an error (the set no longer
matches the code: fix the entry, never skip it). Prints one line per mutant and the share each
oracle caught. Usage (low priority: the machine is shared)::

    nice -n 10 .venv/bin/python benchmarks/crm_mutants/run.py --json /tmp/crm-mutants.json
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from mutation import BIN, copy_project, fails, report_scores  # noqa: E402  (benchmarks/ is not a package)

ORACLES = ("baselines", "tests", "verifiers")


def load_mutants(path: Path) -> list[dict[str, Any]]:
    """The mutant entries of ``path`` (a YAML file with a ``mutants`` list)."""
    return list(yaml.safe_load(path.read_text(encoding="utf-8"))["mutants"])


def mutated_text(original: str, mutant: dict[str, Any]) -> str:
    """``original`` with the mutant's ``find`` replaced; refuses a find that is not unique."""
    count = original.count(mutant["find"])
    if count != 1:
        raise SystemExit(f"mutant {mutant['id']}: its find text occurs {count} times, not once")
    return original.replace(mutant["find"], mutant["replace"])


def oracle_commands(project: Path, full_suite: bool) -> dict[str, list[str]]:
    """The command of each oracle, run with ``project`` as the working directory."""
    pytest = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"]
    if full_suite:
        tests = [*pytest, "-n", "2", "tests"]
    else:
        tests = [*pytest, *sorted(str(p.relative_to(project)) for p in project.glob(
            "tests/**/test_crm*.py"))]  # fmt: skip
    return {
        "baselines": [str(BIN / "silo-baseline"), "check"],
        "tests": tests,
        "verifiers": [str(BIN / "silo-run"), "env=crm", "task=all", "agent=solver"],
    }


def judge_all(
    mutants: list[dict[str, Any]], oracles: list[str], full_suite: bool, timeout: float
) -> list[dict[str, Any]]:
    """Apply each mutant to a fresh project copy, run the chosen oracles, restore the file."""
    verdicts = []
    with tempfile.TemporaryDirectory(prefix="silo-crm-mutants-") as tmp:
        project = copy_project(Path(tmp))
        every = oracle_commands(project, full_suite)
        commands = {name: every[name] for name in oracles}
        for index, mutant in enumerate(mutants, 1):
            path = project / mutant["file"]
            original = path.read_text(encoding="utf-8")
            path.write_text(mutated_text(original, mutant), encoding="utf-8")
            try:
                killed = {name: fails(cmd, project, timeout) for name, cmd in commands.items()}
            finally:
                path.write_text(original, encoding="utf-8")
            verdicts.append({"id": mutant["id"], "kind": mutant["kind"], "killed": killed})
            by = ",".join(name for name in oracles if killed[name]) or "SURVIVED"
            print(f"[{index}/{len(mutants)}] {by:<26} {mutant['id']}", flush=True)
    return verdicts


def main(argv: list[str] | None = None) -> int:
    """Judge the mutants, print the scores, optionally write every verdict as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mutants", type=Path, default=HERE / "mutants.yaml")
    parser.add_argument("--only", nargs="*", default=None, help="judge only these mutant ids")
    parser.add_argument("--oracles", nargs="*", choices=ORACLES, default=list(ORACLES))
    parser.add_argument("--full-suite", action="store_true", help="tests oracle: whole suite")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per oracle run")
    parser.add_argument("--json", type=Path, default=None, help="write every verdict here")
    args = parser.parse_args(argv)
    mutants = load_mutants(args.mutants)
    if args.only:
        mutants = [m for m in mutants if m["id"] in args.only]
    started = time.monotonic()
    verdicts = judge_all(mutants, args.oracles, args.full_suite, args.timeout)
    report_scores(verdicts, args.oracles, time.monotonic() - started, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
