"""``silo-baseline``: record and check the goldens of deterministic agents.

Contract: ``silo-baseline record|check [key=value ...]``. The words are the Hydra overrides of
``silo-run`` (``env=crm agent=solver task=TASK-002``), composed with Hydra's Compose API once per
selected entry. With no ``env=``/``agent=`` the selection is every entry of
``baselines/silo-baselines.yaml``; ``env=``/``agent=`` (comma lists allowed) narrow it, and a
pair no entry lists is run as given. With no ``task=`` every task of the entry runs (its
``tasks:`` or ``all``). Goldens live under ``<project>/baselines/<env>/<agent>/``.

``record`` prints ``created``/``changed``/``same`` per task and exits 0 (2 on a usage, config or
rollout error); a clean record then lists what it ran in ``silo-baselines.yaml`` (created or
extended, overrides included: see :mod:`silo.batch.baseline_record`) and says so in one line.
Without ``env=``, the project's one environment (as ``silo-run``). ``check`` prints ``ok``/``DRIFT`` (with the changed fields)/``MISSING``/``STALE``
and exits 0 when clean, 1 on any DRIFT, MISSING or STALE, 2 on a usage, config or rollout error.
A rollout that was not graded (it could not start, its environment's code raised, its model
endpoint failed) is an ``ERROR`` with its reason, never a ``DRIFT``. Both end with one line of
counts per task: a task whose files report several statuses counts once, by its worst.
Mistakes get one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from silo.errors import BaselineError, ConfigError, SiloError
from silo.json_types import JSON
from silo.loading.project import default_environment

if TYPE_CHECKING:
    from silo.batch.baseline import Entry, GoldenOutcome, Target
    from silo.batch.point import Point
    from silo.judges.rubric import Judge

__all__ = ["main", "run"]

PROG = "silo-baseline"
_SELECTORS = ("env", "agent", "task")
_CHECK_ORDER = ("ok", "DRIFT", "MISSING", "STALE", "ERROR")
_RECORD_ORDER = ("created", "changed", "same", "STALE", "ERROR")
# How bad each status is: a task whose files report several counts once, by its worst.
_SEVERITY = ("ok", "same", "created", "changed", "STALE", "MISSING", "DRIFT", "ERROR")
_EPILOG = """\
examples:
  silo-baseline record                      every entry of baselines/silo-baselines.yaml
  silo-baseline check env=crm agent=solver  one entry, every task
  silo-baseline record env=crm agent=solver task=TASK-002
  silo-baseline check agent=replay agent.trace=.silo/runs/<run>/trace.jsonl task=TASK-002

exit status: 0 clean; 1 (check) a DRIFT, MISSING or STALE golden; 2 a usage or config error.
See docs/baselines.md.
"""


@dataclass(frozen=True)
class Job:
    """One composed entry: the engine's target and the overrides that select it again."""

    target: Target
    words: tuple[str, ...]  # overrides that select this entry again (for the MISSING hint)
    entry: Entry  # what a record of it writes into silo-baselines.yaml
    listed_as: Entry | None  # the config's entry it came from (None: a pair it does not list)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Record and check golden result.json / state-diff.json files of "
        "deterministic agents (an exact regression oracle).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "command",
        choices=("record", "check"),
        help="record: run and write the goldens; check: rerun and compare byte for byte",
    )
    parser.add_argument(
        "overrides", nargs="*", metavar="key=value", help="Hydra overrides, as for silo-run"
    )
    return parser


def _split(words: Sequence[str]) -> tuple[dict[str, list[str]], list[str]]:
    """The env/agent/task choices (comma lists split) and the other overrides, unchanged."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parsed = OverridesParser.create().parse_overrides(list(words)) if words else []
    chosen: dict[str, list[str]] = {}
    rest = []
    for word, override in zip(words, parsed, strict=True):
        key = override.key_or_group
        if key not in _SELECTORS or override.package or override.is_delete():
            rest.append(word)
        elif override.is_sweep_override():
            chosen[key] = list(override.sweep_string_iterator())
        else:
            value = override.value()
            items = value if isinstance(value, list) else str(value).split(",")
            chosen[key] = [str(v).strip() for v in items]
    return chosen, rest


def _compose(overrides: list[str]) -> tuple[dict[str, JSON], str | None]:
    """The composed config as plain data, and the agent group choice."""
    from hydra import compose
    from omegaconf import OmegaConf, open_dict

    try:
        cfg = compose("silo", overrides=overrides, return_hydra_config=True)
        choice = cfg.hydra.runtime.choices.get("agent")
        with open_dict(cfg):
            del cfg["hydra"]
        plain = OmegaConf.to_container(cfg, resolve=True)
    except SiloError:
        raise
    except Exception as exc:  # Hydra and OmegaConf explain the problem themselves
        raise ConfigError("override_invalid", " ".join(str(exc).split())) from None
    assert isinstance(plain, dict)
    return {str(k): v for k, v in plain.items()}, choice


def _job(
    entry: Entry,
    listed: bool,
    tasks: list[str] | None,
    rest: list[str],
    paths: tuple[Path, Path],
) -> Job:
    from silo.batch.baseline import Target, runnable_tasks
    from silo.batch.baseline_record import recorded_entry
    from silo.cli.hydra.plan import agent_label, plan_from_config
    from silo.cli.hydra.setup import check_group_overrides
    from silo.judges.judgement import resolve_judges
    from silo.judges.rubric import rubric_items
    from silo.loading.environment import load_environment

    project, base = paths

    head = [f"{k}={v}" for k, v in (("env", entry.env), ("agent", entry.agent)) if v]
    check_group_overrides([*head, *entry.overrides], project)  # env: nope -> one line
    plain, choice = _compose([*head, *entry.overrides, *rest])
    _refuse_model_judge(plain.get("judge"))
    env_cfg = plain.get("env")
    env_name = env_cfg.get("name") if isinstance(env_cfg, dict) else env_cfg
    if env_name is None:  # no env=: the project's one environment, or the choices
        env_name = default_environment(project)
        plain["env"] = {"name": env_name}
    env_name = str(env_name)
    environment = load_environment(env_name, project)
    agent_cfg = plain.get("agent")
    label = agent_label(choice, agent_cfg if isinstance(agent_cfg, dict) else {})
    scope = tuple(tasks or entry.tasks or ["all"])
    run = runnable_tasks(scope, environment.tasks, base / env_name / label)
    points: list[Point] = []
    judges: tuple[Judge, ...] = ()
    if run:
        plain["task"] = ",".join(run)
        plan = plan_from_config(plain, project, choice)
        points, judges = plan.points, tuple(resolve_judges(plan.judges))
    # What judge_run_dirs judges: a task whose rubric has items (an instance: its template's).
    judged = {t for t, task in environment.tasks.items() if rubric_items(task)}
    judged |= {t for t, template in environment.templates.items() if template.raw.get("rubric")}
    target = Target(
        env_name, label, points, entry.tool_events, scope, entry.state_changes,
        judges, frozenset(judged),
    )  # fmt: skip
    words = (f"env={env_name}", f"agent={choice or label}", *entry.overrides, *rest)
    named = (env_name, entry.agent or choice or label)
    written = recorded_entry(entry, listed, named, tasks or (), rest)
    return Job(target, words, written, entry if listed else None)


def _refuse_model_judge(judge: JSON) -> None:
    """A model judge's verdicts vary from run to run: one line, before anything runs."""
    from silo.judges.judgement import model_judges

    found = model_judges([judge]) if isinstance(judge, dict) else []
    if found:
        raise BaselineError(
            "judge_not_deterministic",
            f"judge={found[0]} is a model judge, which is not deterministic, so its verdicts "
            "cannot be a baseline; use judge=scripted or leave judge= out",
        )


def plan_jobs(words: Sequence[str], project: Path, base: Path) -> list[Job]:
    """Every target the command line selects, composed once per entry."""
    from hydra import initialize_config_module

    from silo.batch.baseline import config_path, load_entries, select_entries

    chosen, rest = _split(words)
    entries = load_entries(config_path(base))
    envs, agents = chosen.get("env", []), chosen.get("agent", [])
    if entries is None and not envs and not agents:
        raise BaselineError(
            "baselines_config_missing",
            f"no {_rel(config_path(base), project)}; list entries like "
            "'baselines: [{env: crm, agent: solver}]' in it, or choose env=<name> agent=<name>",
        )
    selected = select_entries(entries or [], envs, agents)
    if not selected:
        raise BaselineError(
            "baselines_config_invalid",
            f"{_rel(config_path(base), project)} lists no baselines; add entries like "
            "{env: crm, agent: solver}",
        )
    with initialize_config_module(config_module="silo._main", version_base="1.3"):
        listed = entries or []
        paths = (project, base)
        return [_job(e, e in listed, chosen.get("task"), rest, paths) for e in selected]


def _rel(path: Path, project: Path) -> str:
    try:
        return str(path.relative_to(project))
    except ValueError:
        return str(path)


def _lines(outcome: GoldenOutcome, job: Job, project: Path, base: Path) -> Iterator[str]:
    head = f"{outcome.status:<7} {outcome.key}"
    if outcome.files:
        head += " " + ", ".join(outcome.files)
    if outcome.status == "MISSING":
        command = shlex.join([PROG, "record", *job.words, f"task={outcome.task}"])
        head += f" (run: {command})"
    elif outcome.status == "STALE":
        folder = _rel(base / outcome.env / outcome.agent, project)
        paths = ", ".join(f"{folder}/{outcome.task}.{name}" for name in outcome.files or ("*",))
        head += f" ({outcome.note}; delete {paths})"
    yield head
    yield from (f"  {line}" for line in outcome.lines)


def _report(command: str, jobs: list[Job], project: Path, base: Path, in_flight: int = 1) -> int:
    from silo.batch import baseline

    order = _CHECK_ORDER if command == "check" else _RECORD_ORDER
    worst: dict[tuple[str, str, str], str] = {}  # per task: its worst status (the last in order)
    for job in jobs:
        if command == "check":
            outcomes = baseline.check_goldens(job.target, project, base, in_flight)
        else:
            outcomes = baseline.record_goldens(job.target, project, base)
        for outcome in outcomes:
            task = (outcome.env, outcome.agent, outcome.task)
            known = worst.get(task)
            if known is None or _SEVERITY.index(outcome.status) > _SEVERITY.index(known):
                worst[task] = outcome.status
            sys.stdout.write("\n".join(_lines(outcome, job, project, base)) + "\n")
            sys.stdout.flush()
    counts = Counter(worst.values())
    optional = ("ERROR",) if command == "check" else ("STALE", "ERROR")
    shown = [f"{counts[s]} {s}" for s in order if counts[s] or s not in optional]
    print(f"{command}: {', '.join(shown)}")
    if counts["ERROR"]:
        return 2
    if command == "record":
        _remember(jobs, project, base)
    if command == "check" and (counts["DRIFT"] or counts["MISSING"] or counts["STALE"]):
        return 1
    return 0


def _remember(jobs: list[Job], project: Path, base: Path) -> None:
    """List every recorded entry in silo-baselines.yaml, so ``check`` alone reruns it."""
    from silo.batch.baseline import config_path
    from silo.batch.baseline_record import remember_entry

    path = config_path(base)
    for job in jobs:
        done = remember_entry(path, job.entry, job.listed_as)
        if done is not None:
            print(f"{_rel(path, project)}: {done[0]} {done[1]}")


def run(argv: Sequence[str] | None = None) -> int:
    """Parse, plan, refuse non-deterministic agents, then record or check; the exit status."""
    args = _parser().parse_args(argv)
    try:
        from silo.batch.baseline import require_deterministic
        from silo.batch.sweep import concurrency
        from silo.cli.hydra.setup import check_group_overrides, prepare

        project = prepare()
        base = project / "baselines"
        words = [w for w in args.overrides if not w.startswith("max_concurrency=")]
        in_flight = concurrency(
            next((w.split("=", 1)[1] for w in args.overrides if w not in words), 1)
        )
        check_group_overrides(words, project)
        jobs = plan_jobs(words, project, base)
        for job in jobs:
            require_deterministic(job.target, project)
        return _report(args.command, jobs, project, base, in_flight)
    except SiloError as exc:  # also a golden that cannot be read or written
        sys.stderr.write(f"{PROG}: {exc.message}\n")
        return 2


def main() -> None:
    """Console script ``silo-baseline``: exit with the status of the command line's check."""
    sys.exit(run())
