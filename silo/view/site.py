"""Static HTML reports of a run, group or sweep folder: the engine of ``silo-view``.

Contract: :func:`resolve` finds the folder (a path, or a folder name under the project's
``.silo/runs/``, with :func:`silo.batch.compare.resolve_folder`) and says whether it is a ``run``
folder (it holds ``trace.jsonl``, ``result.json``, ``state-diff.json`` or ``run.json``) or a
``group`` (a group or sweep folder: a ``summary.json`` or run subfolders); anything else raises
:class:`~silo.errors.SiloError` with the fix. :func:`render` returns the report as one
self-contained HTML document (inline CSS and JS, no network, no external asset): a run as
described in :mod:`silo.view.run_detail`, a group as in :mod:`silo.view.group_page`. Rendering is pure —
it prints nothing, writes nothing, never raises for a damaged or unfinished run, reads no
clock — so the same folder gives the same bytes and two reports can be diffed. Every piece of
run data is HTML-escaped. :func:`write_report` writes a report atomically and refuses to replace
any file that is not itself a ``silo-view`` report (recognised by its generator tag).
"""

from __future__ import annotations

from pathlib import Path

from silo.artifacts.atomic import write_text_atomic
from silo.batch.compare import resolve_folder
from silo.errors import ArtifactError
from silo.view.group_page import group_body, is_group
from silo.view.html import GENERATOR, page
from silo.view.run_detail import run_detail
from silo.view.run_page import RUN_FILES

__all__ = ["REPORT_NAME", "folder_kind", "render", "resolve", "write_report"]

REPORT_NAME = "report.html"


def folder_kind(folder: Path) -> str | None:
    """``run``, ``group`` or ``None`` (neither)."""
    if any((folder / name).is_file() for name in RUN_FILES):
        return "run"
    try:
        return "group" if is_group(folder) else None
    except OSError:
        return None


def resolve(spec: str | Path, project_dir: Path) -> tuple[Path, str]:
    """The folder ``spec`` names and its kind (``run`` or ``group``)."""
    folder = resolve_folder(spec, project_dir)
    kind = folder_kind(folder)
    if kind is None:
        raise ArtifactError(
            "view_not_a_run",
            f"{folder} is not a run, group or sweep folder (no {', '.join(RUN_FILES)} in it, no "
            "summary.json, no run subfolders); give a .silo/runs/<runId>, group_* or sweep_* "
            "folder",
        )
    return folder, kind


def render(folder: Path, kind: str | None = None) -> str:
    """The HTML report of a run or group folder (``kind`` as :func:`folder_kind` says)."""
    kind = kind or folder_kind(folder)
    if kind == "group":
        title, body = group_body(folder)
        return page(title, body)
    return page(*run_detail(folder))  # the run, its field-level changes and model steps


def write_report(html: str, path: Path) -> Path:
    """Write ``html`` to ``path`` (replacing only an earlier ``silo-view`` report)."""
    if not path.parent.is_dir():
        raise ArtifactError(
            "view_out_folder_missing",
            f"folder {path.parent} does not exist; create it or give another out=<file.html>",
        )
    if path.is_dir() or (path.exists() and not _is_report(path)):
        raise ArtifactError(
            "view_would_overwrite",
            f"{path} exists and is not a silo-view report; give another out=<file.html>",
        )
    write_text_atomic(path, html)
    return path


def _is_report(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            head = handle.read(512)
    except OSError:
        return False
    return GENERATOR.encode() in head
