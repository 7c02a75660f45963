"""Re-grading recorded runs with today's environment and verifiers, without their agent.

Contract: :func:`regrade` takes a run, group or sweep folder (a path or a name under the
project's ``.silo/runs/``) and replays every finished run in it (any agent: Silo's, a file,
``claude_code``/``codex``, a silo-mcp session) on a fresh world of today's environment, as
``agent=replay`` does: the recorded tool calls in order, and a conversation's messages to the
scripted user at their place. Each replay is a new run folder in ``out_dir`` (a new group
``regrade_<time>_<rand>`` under ``.silo/runs/`` by default) whose ``run.json`` links to the
original: ``regradeOf`` (the original run folder) and ``regradeOfRunId``. It returns a
:class:`Regrade`, printing nothing: one :class:`RegradeRow` per run with the verdict before
and after, the checks whose outcome changed (by label; ``None`` where a check is absent on one
side) and ``divergences``, the replay's ``replay_divergence`` events: a run whose replay
diverged did not do what it did when it was graded, so it is listed apart (``diverged``), not
counted as a flip or a steady verdict. The same budget, seed and task instance as recorded are
used. With ``judges``, each replay's task rubric is judged too (``judgement.json`` in the new
run folder, cached under ``.silo/judge-cache``) and its counts are the row's ``judged``, apart
from the checks. A folder with no run is an :class:`~silo.errors.ArtifactError`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from silo.agents.replay import ReplayAgent
from silo.artifacts.run_folder import new_run_id
from silo.batch.compare import resolve_folder
from silo.errors import ArtifactError, SiloError
from silo.json_types import JSON
from silo.judges.judgement import judge_run
from silo.judges.reward import judged_task
from silo.judges.rubric import Judge
from silo.loading.environment import load_environment
from silo.rollout.run import run_task

__all__ = ["Regrade", "RegradeRow", "find_runs", "regrade"]


@dataclass(frozen=True)
class RegradeRow:
    """One run re-graded: where it was, where its replay is, and what changed."""

    original: str  # the original run folder, relative to the regraded folder
    regraded: str  # the new run folder (absolute), "" when the replay could not start
    environment: str
    task: str
    agent: str
    passed_before: bool
    passed_after: bool | None  # None: the replay could not start (``error``)
    reward_before: float
    reward_after: float | None
    checks: list[dict[str, JSON]] = field(default_factory=list)  # {label, before, after}
    divergences: int = 0
    error: str = ""
    # judgement.json's counts when judges ran: passed, failed, abstained, agreement, judgeErrors
    judged: Mapping[str, JSON] | None = None

    @property
    def status(self) -> str:
        """``error``, ``diverged``, ``flipped`` (the verdict changed), ``changed`` or ``same``."""
        if self.error:
            return "error"
        if self.divergences:
            return "diverged"
        if self.passed_after != self.passed_before:
            return "flipped"
        return "changed" if self.checks or self.reward_after != self.reward_before else "same"

    def to_json(self) -> dict[str, JSON]:
        """The row as ``regrade.json`` lists it."""
        return {
            "status": self.status,
            "environment": self.environment,
            "task": self.task,
            "agent": self.agent,
            "original": self.original,
            "regraded": self.regraded,
            "passedBefore": self.passed_before,
            "passedAfter": self.passed_after,
            "rewardBefore": self.reward_before,
            "rewardAfter": self.reward_after,
            "checks": self.checks,
            "replayDivergences": self.divergences,
            "error": self.error,
            **({"judged": dict(self.judged)} if self.judged is not None else {}),
        }


@dataclass(frozen=True)
class Regrade:
    """Every run of a folder re-graded; ``group_dir`` holds the replays and ``regrade.json``."""

    source: Path
    group_dir: Path
    rows: list[RegradeRow]

    def of(self, status: str) -> list[RegradeRow]:
        """The rows with ``status`` (see :attr:`RegradeRow.status`)."""
        return [row for row in self.rows if row.status == status]

    def to_json(self) -> dict[str, JSON]:
        """``regrade.json``: the source, the counts by status and every row."""
        statuses = ("flipped", "changed", "diverged", "error", "same")
        return {
            "source": str(self.source),
            "groupDir": str(self.group_dir),
            "counts": {s: len(self.of(s)) for s in statuses},
            "runs": [row.to_json() for row in self.rows],
        }


def find_runs(folder: Path) -> list[Path]:
    """The finished run folders in ``folder`` (itself, or any depth below), sorted."""
    if (folder / "run.json").is_file():
        return [folder]
    return sorted(
        p.parent for p in folder.rglob("run.json") if (p.parent / "result.json").is_file()
    )


def _read(path: Path) -> dict[str, JSON]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ArtifactError("regrade_run_unreadable", f"{path}: cannot be read ({exc})") from None
    if not isinstance(value, dict):
        raise ArtifactError("regrade_run_unreadable", f"{path} does not hold a JSON object")
    return value


def _changed_checks(before: Mapping[str, JSON], after: Mapping[str, JSON]) -> list[dict[str, JSON]]:
    def by_label(result: Mapping[str, JSON]) -> dict[str, bool]:
        return {str(c.get("label")): bool(c.get("passed")) for c in result.get("checks") or []}

    old, new = by_label(before), by_label(after)
    return [
        {"label": label, "before": old.get(label), "after": new.get(label)}
        for label in [*old, *(k for k in new if k not in old)]
        if old.get(label) != new.get(label)
    ]


def _budget(config: Mapping[str, JSON]) -> dict[str, JSON]:
    keys = {"maxToolCalls": "max_tool_calls", "timeoutMs": "timeout_ms"}
    keys["maxUserTurns"] = "max_user_turns"
    return {ours: config[theirs] for theirs, ours in keys.items() if theirs in config}


def _replay(
    run_dir: Path,
    source: Path,
    group_dir: Path,
    group_id: str,
    project: Path,
    judges: Sequence[Judge] = (),
) -> RegradeRow:
    run, before = _read(run_dir / "run.json"), _read(run_dir / "result.json")
    config = run.get("config") or {}
    relative = str(run_dir.relative_to(source)) if run_dir != source else "."
    base = RegradeRow(
        original=relative,
        regraded="",
        environment=str(run.get("environment", "")),
        task=str(run.get("taskId", "")),
        agent=str(run.get("agent", "")),
        passed_before=bool(before.get("passed")),
        passed_after=None,
        reward_before=float(before.get("reward") or 0),
        reward_after=None,
    )
    try:
        rollout = run_task(
            env=base.environment, task=base.task,
            agent=ReplayAgent(run_dir / "trace.jsonl"), budget=_budget(config),
            project_dir=project, runs_dir=group_dir, group_id=group_id,
            seed=int(config.get("seed", 0) or 0), agent_label=base.agent,
            user="scripted" if run.get("user") else None,
            run_fields={"regradeOf": str(run_dir.resolve()), "regradeOfRunId": run.get("runId")},
        )  # fmt: skip
    except SiloError as exc:
        return replace(base, error=exc.message)
    divergences = _divergences(rollout.run_dir)
    judged = None
    if judges and rollout.run_dir is not None:
        environment = load_environment(base.environment, project)
        task = judged_task(rollout.task, environment)  # the environment's combinedReward
        document = judge_run(rollout.run_dir, task, judges, project / ".silo" / "judge-cache")
        keys = ("passed", "failed", "abstained", "agreement", "judgeErrors")
        judged = {k: document[k] for k in keys}
    return replace(
        base,
        regraded=str(rollout.run_dir or ""),
        passed_after=rollout.passed,
        reward_after=rollout.reward,
        checks=_changed_checks(before, rollout.result),
        divergences=divergences,
        judged=judged,
    )


def _divergences(run_dir: Path | None) -> int:
    """How many ``replay_divergence`` events the replay's trace holds."""
    if run_dir is None:
        return 0
    lines = (run_dir / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    return sum(json.loads(line).get("type") == "replay_divergence" for line in lines if line)


def regrade(
    spec: str | Path,
    project: Path,
    out_dir: Path | None = None,
    judges: Sequence[Judge] = (),
) -> Regrade:
    """Replay and re-grade every run in ``spec`` (see the module docstring)."""
    source = resolve_folder(spec, project)
    runs = find_runs(source)
    if not runs:
        raise ArtifactError(
            "regrade_no_runs",
            f"{source} holds no finished run (a folder with run.json and result.json); give a "
            "run, group or sweep folder",
        )
    group_id = new_run_id("regrade")
    group_dir = out_dir or project / ".silo" / "runs" / group_id
    rows = [_replay(run_dir, source, group_dir, group_id, project, judges) for run_dir in runs]
    result = Regrade(source, group_dir, rows)
    group_dir.mkdir(parents=True, exist_ok=True)
    (group_dir / "regrade.json").write_text(json.dumps(result.to_json(), indent=2) + "\n")
    return result
