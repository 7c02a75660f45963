"""Exporting run folders as a dataset file: which runs, which rows, which format.

Contract: :func:`export_rows` finds the rollouts under ``sources`` (run, group or sweep
folders, at any depth, as paths, glob patterns or names under ``<project>/.silo/runs/``),
keeps the finished ones that pass the :class:`Filters`, and returns their ``sft`` or ``rl``
rows (:mod:`silo.export.rows`) sorted by task, variant and run id, so the same runs give the
same rows in the same order. :func:`export_runs` writes them to ``out`` as JSON Lines (compact,
UTF-8, one row a line) or Parquet (extra ``[parquet]``), atomically, and returns how many rows
it wrote; the bytes depend only on the runs. A source that names nothing, or filters that leave
no rollout, raise :class:`~silo.errors.ArtifactError` (``export_no_runs``) in one line.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from silo.artifacts.atomic import write_text_atomic
from silo.batch.summary import Rollout, load_rollout, run_folders
from silo.errors import ArtifactError, ConfigError
from silo.export.rows import identity_of, rl_row, sft_row, task_and_variant
from silo.export.turns import model_turns
from silo.integrations.extras import require
from silo.json_types import JSON

__all__ = ["FORMATS", "KINDS", "Filters", "export_rows", "export_runs", "format_of"]

KINDS = ("sft", "rl")
FORMATS = ("jsonl", "parquet")
_GLOB = set("*?[")


@dataclass(frozen=True)
class Filters:
    """Which rollouts to export: all of them unless a field says otherwise.

    ``agent`` matches ``run.json``'s ``agent`` or its ``agentIdentity``'s ``model`` or
    ``kind``; ``tasks`` matches a task id or a variant's instance id; the reward range is
    inclusive.
    """

    passed: bool | None = None
    min_reward: float | None = None
    max_reward: float | None = None
    agent: str | None = None
    tasks: frozenset[str] = field(default_factory=frozenset)

    def keep(self, rollout: Rollout) -> bool:
        """Whether ``rollout`` is exported."""
        run: dict[str, JSON] = dict(rollout.run)
        reward = float(rollout.result["reward"])
        if self.passed is not None and rollout.result["passed"] != self.passed:
            return False
        if self.min_reward is not None and reward < self.min_reward:
            return False
        if self.max_reward is not None and reward > self.max_reward:
            return False
        if self.agent is not None:
            identity = identity_of(run) or {}
            names = {run.get("agent"), identity.get("model"), identity.get("kind")}
            if self.agent not in names:
                return False
        if self.tasks:
            task_id, variant = task_and_variant(run)
            if not {task_id, variant} & self.tasks:
                return False
        return True


def export_rows(
    sources: Sequence[str | Path],
    kind: str = "sft",
    filters: Filters | None = None,
    project_dir: Path | None = None,
) -> list[dict[str, JSON]]:
    """The ``kind`` rows of the rollouts under ``sources`` that ``filters`` keep."""
    if kind not in KINDS:
        raise ConfigError("config_invalid", f'kind must be sft or rl, not "{kind}"')
    chosen = filters or Filters()
    folders = _folders(sources, project_dir)
    loaded = (load_rollout(folder) for folder in folders)
    kept = [r for r in loaded if r is not None and chosen.keep(r)]
    if not kept:
        raise ArtifactError(
            "export_no_runs",
            f"no finished rollout under {', '.join(map(str, sources))} matches the filters; "
            "check the folders and the passed=, reward and agent= / task= filters",
        )
    build = sft_row if kind == "sft" else rl_row
    rows = [
        build(r.folder, dict(r.run), dict(r.result), model_turns(r.folder / "trace.jsonl"))
        for r in kept
    ]
    rows.sort(key=lambda row: (row["taskId"], row["variant"] or "", str(row["runId"])))
    return rows


def export_runs(
    sources: Sequence[str | Path],
    out: str | Path,
    kind: str = "sft",
    *,
    fmt: str | None = None,
    filters: Filters | None = None,
    project_dir: Path | None = None,
) -> int:
    """Write the rows of :func:`export_rows` to ``out``; the number of rows written."""
    target = Path(out)
    chosen = format_of(target, fmt)
    if chosen == "parquet":
        require("pyarrow", "parquet", "silo-export format=parquet")
    rows = export_rows(sources, kind, filters, project_dir)
    try:
        if chosen == "jsonl":
            write_text_atomic(target, "".join(_line(row) for row in rows))
        else:
            _write_parquet(target, rows)
    except OSError as exc:
        raise ArtifactError(
            "artifacts_unwritable",
            f"{target} cannot be written ({exc.strerror or exc}); choose another out=",
        ) from None
    return len(rows)


def format_of(out: Path, fmt: str | None) -> str:
    """``fmt``, else the format ``out``'s suffix names (``.parquet``; anything else JSON Lines)."""
    chosen = fmt or ("parquet" if out.suffix == ".parquet" else "jsonl")
    if chosen not in FORMATS:
        raise ConfigError("config_invalid", f'format must be jsonl or parquet, not "{chosen}"')
    return chosen


def _line(row: dict[str, JSON]) -> str:
    return json.dumps(row, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"


def _folders(sources: Iterable[str | Path], project_dir: Path | None) -> list[Path]:
    """Every run folder under ``sources``, each once, in path order."""
    found: dict[Path, None] = {}
    for source in sources:
        for root in _roots(str(source), project_dir):
            if (root / "run.json").is_file():
                found[root] = None
            else:
                found.update(dict.fromkeys(run_folders(root)))
    return sorted(found)


def _roots(source: str, project_dir: Path | None) -> list[Path]:
    if _GLOB & set(source):
        matched = sorted(Path(p) for p in glob.glob(source) if Path(p).is_dir())
        if matched:
            return matched
    else:
        given = Path(source).expanduser()
        candidates = [given]
        if project_dir is not None:
            candidates.append(project_dir / ".silo" / "runs" / given)
        for candidate in candidates:
            if candidate.is_dir():
                return [candidate]
    raise ArtifactError(
        "export_no_runs",
        f'no folder matches "{source}"; give run, group or sweep folders (paths, glob '
        "patterns or names under .silo/runs)",
    )


def _write_parquet(target: Path, rows: list[dict[str, JSON]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
