"""The ``silo-view`` site: every run, group and sweep under a runs folder as static pages.

Contract: :func:`build_site` walks ``runs_dir`` — a run folder directly under it is a loose run,
a group or sweep folder (:func:`silo.view.site.folder_kind`) holds runs — and writes under
``out_dir``: ``index.html`` (:mod:`silo.view.index_page`), ``runs/<run>.html`` per loose run,
``groups/<name>/index.html`` per group (:mod:`silo.view.sweep_page`) and
``groups/<name>/<run>.html`` per grouped run (:mod:`silo.view.run_detail`). It is incremental:
``out_dir/manifest.json`` keeps each run's artifact stamp (:func:`silo.view.run_record.stamp`)
and index record (and the Silo release that wrote them), so a second build renders only the
runs that are new or changed (and the groups holding them), and writes the index and the
manifest only when a run came, went or changed. Nothing under ``runs_dir`` is written. The
result says how many pages were rendered; a manifest that cannot be read means a full rebuild.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from silo.artifacts.atomic import remove_stale_in, write_text_atomic
from silo.artifacts.run_reader import optional_json
from silo.distribution import version
from silo.json_types import JSON
from silo.view.html import mapping
from silo.view.index_page import GroupEntry, index_body
from silo.view.run_detail import run_detail
from silo.view.run_record import RunRecord, read_record, record_from_json, stamp
from silo.view.site import folder_kind
from silo.view.site_shell import site_page
from silo.view.sweep_page import sweep_body

__all__ = ["MANIFEST", "BuildResult", "build_site"]

MANIFEST = "manifest.json"
_PAGES = 3  # bump when pages change shape, so an older site is rebuilt whole


@dataclass(frozen=True)
class BuildResult:
    """What one build did: pages rendered this time, runs and groups in the site."""

    index: Path
    rendered_runs: int
    rendered_groups: int
    runs: int
    groups: int


@dataclass(frozen=True)
class _Run:
    folder: Path
    group: str  # "" for a loose run
    page: str  # relative to the site root


def _discover(runs_dir: Path) -> tuple[list[_Run], dict[str, Path]]:
    runs: list[_Run] = []
    groups: dict[str, Path] = {}
    entries = sorted(p for p in runs_dir.iterdir() if p.is_dir()) if runs_dir.is_dir() else []
    for entry in entries:
        kind = folder_kind(entry)
        if kind == "run":
            # A loose run's folder is never written again: the one place its killed writer's
            # temporaries are seen (a group's are removed when the group is read).
            remove_stale_in(str(entry))
            runs.append(_Run(entry, "", f"runs/{entry.name}.html"))
        elif kind == "group":
            groups[entry.name] = entry
            for sub in sorted(p for p in entry.iterdir() if p.is_dir()):
                if folder_kind(sub) == "run":
                    runs.append(_Run(sub, entry.name, f"groups/{entry.name}/{sub.name}.html"))
    return runs, groups


def _format() -> str:
    """Which pages a manifest's site holds: another Silo release renders them anew."""
    return f"{_PAGES}:{version()}"


def _read_manifest(path: Path) -> dict[str, JSON]:
    manifest = mapping(optional_json(path))
    return manifest if manifest.get("format") == _format() else {}


def _group_stamp(folder: Path, members: list[RunRecord]) -> list[JSON]:
    try:
        info = (folder / "summary.json").stat()
        summary: list[JSON] = [info.st_size, info.st_mtime_ns]
    except OSError:
        summary = []
    return [summary, [m.to_json() for m in members]]


def build_site(runs_dir: Path, out_dir: Path) -> BuildResult:
    """Write (or bring up to date) the site of ``runs_dir`` in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    old = _read_manifest(out_dir / MANIFEST)
    old_runs, old_groups = mapping(old.get("runs")), mapping(old.get("groups"))
    found, group_dirs = _discover(runs_dir)
    run_records: list[RunRecord] = []
    new_runs: dict[str, JSON] = {}
    rendered_runs = 0
    for run in found:
        current, kept = stamp(run.folder), mapping(old_runs.get(run.page))
        record = record_from_json(mapping(kept.get("record")))
        target = out_dir / run.page
        if record is None or kept.get("stamp") != current or not target.is_file():
            record = read_record(run.folder, run.page, run.group)
            title, body = run_detail(run.folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(target, site_page(title, body, run.page.count("/")))
            rendered_runs += 1
        run_records.append(record)
        new_runs[run.page] = {"stamp": current, "record": record.to_json()}
    new_groups: dict[str, JSON] = {}
    entries: list[GroupEntry] = []
    rendered_groups = 0
    for name, folder in group_dirs.items():
        members = [r for r in run_records if r.group == name]
        current_group = _group_stamp(folder, members)
        target = out_dir / "groups" / name / "index.html"
        if old_groups.get(name) != current_group or not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            body = sweep_body(name, mapping(optional_json(folder / "summary.json")), members)
            write_text_atomic(target, site_page(f"{name} — silo-view", body, 2))
            rendered_groups += 1
        new_groups[name] = current_group
        passed = sum(1 for m in members if m.outcome == "PASS")
        failed = sum(1 for m in members if m.outcome == "FAIL")
        entries.append((name, len(members), passed, failed))
    index = out_dir / "index.html"
    manifest = {"format": _format(), "runs": new_runs, "groups": new_groups}
    if manifest != old or not index.is_file():  # unchanged: serve's 2 s polls write nothing
        newest = sorted(run_records, key=lambda r: (r.started_at, r.page), reverse=True)
        entries.sort(key=lambda e: e[0], reverse=True)
        body = index_body(entries, newest)
        write_text_atomic(index, site_page("Silo runs — silo-view", body, 0))
        write_text_atomic(out_dir / MANIFEST, json.dumps(manifest, separators=(",", ":")) + "\n")
    return BuildResult(index, rendered_runs, rendered_groups, len(run_records), len(group_dirs))
