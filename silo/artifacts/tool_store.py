"""The tool specs a run offered, stored once per project by content, not in every trace.

Contract: a rollout written to disk offers its environment's tools, whose specs are tens to
hundreds of KB. When the run folder lies under a project's ``.silo`` folder (the default,
``.silo/runs/...``), they are not copied into the trace but stored once per distinct content,
``.silo/tools/<sha256>.json``, and the trace's ``run_start`` names them by ``toolsSha256``. The
file's bytes are the compact JSON array of the specs and its name is their SHA-256, so
``sha256sum`` checks it; a new environment version (other specs) gets a new file beside the
old. A run folder elsewhere (``runs_dir`` outside any ``.silo``) keeps them in ``run_start``'s
``tools``, as a trace kept in memory does: nothing is created outside the run folders asked for,
and the store never sits among run folders, where it would be taken for one.

:func:`store_for` is the store of a runs folder (None outside a ``.silo``), :func:`store_tools`
writes a file unless it is there, atomically (a reader never sees part of one), and
:func:`offered_tools` is how every reader gets a run's tools back: ``run_start``'s own
``tools`` (a run stored outside ``.silo``, traced in memory, or written before the store,
schema version 1) or the stored file, checked against its name; None when that file is gone
or damaged (a run folder copied without its project's ``.silo/tools``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from silo.artifacts.atomic import write_bytes_new
from silo.safe_files import UnreadableFile, read_bytes_file

__all__ = [
    "PROJECT_FOLDER",
    "TOOLS_FOLDER",
    "TOOLS_KEY",
    "offered_tools",
    "store_for",
    "store_tools",
    "tools_digest",
]

PROJECT_FOLDER = ".silo"
TOOLS_FOLDER = "tools"  # inside PROJECT_FOLDER, beside runs/
TOOLS_KEY = "toolsSha256"  # run_start's reference to the stored specs
_DIGEST = re.compile(r"[0-9a-f]{64}")


def tools_digest(utf8: bytes) -> str:
    """The name of the stored specs whose bytes are ``utf8``: their SHA-256, in hex."""
    return hashlib.sha256(utf8).hexdigest()


@functools.lru_cache(maxsize=256)
def store_for(runs_dir: str) -> str | None:
    """The store of run folders made in ``runs_dir``: its nearest ``.silo``'s ``tools``, or None.

    Only the path is looked at (no system call), once per runs folder.
    """
    path = os.path.abspath(runs_dir)
    while True:
        head, name = os.path.split(path)
        if name == PROJECT_FOLDER:
            return os.path.join(path, TOOLS_FOLDER)
        if not name or head == path:
            return None
        path = head


def store_tools(store: str, digest: str, utf8: bytes) -> None:
    """Put ``utf8`` in ``store`` as ``<digest>.json`` unless it is there already.

    One look per rollout once written. Writers racing on the same specs each replace the file
    with identical bytes, so any of them winning is right. Raises OSError (full or read-only
    disk) for the caller to report.
    """
    target = f"{store}{os.sep}{digest}.json"
    if os.path.exists(target):
        return
    os.makedirs(store, exist_ok=True)
    # The temporary is atomic's .<name>.<pid>.tmp, so a killed writer's is cleaned alike.
    write_bytes_new(store, f"{digest}.json", utf8)


def offered_tools(run_dir: Path, run_start: Mapping[str, Any]) -> list[Any] | None:
    """The tool specs ``run_start`` offered: its own ``tools``, or the stored ones it names.

    None when neither is there: no reference, a reference that is not a digest, or a stored
    file that is missing, unreadable or not the content its name says.
    """
    inline = run_start.get("tools")
    if isinstance(inline, list):
        return inline
    digest = run_start.get(TOOLS_KEY)
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        return None
    store = store_for(os.fspath(run_dir.parent))
    if store is None:
        return None
    try:
        data = read_bytes_file(Path(store, f"{digest}.json"), follow=False)
    except UnreadableFile:
        return None
    if tools_digest(data) != digest:
        return None
    try:
        specs = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return specs if isinstance(specs, list) else None
