"""Data files: list, show, add, update and remove ``data/<name>.json``.

A data file is replaced whole; with a record ``id`` an update sets that one record of a
collection instead (a JSON list of objects with ``id``, or an object keyed by id), leaving the
others as they were. An add, update or removal that would stop the environment from starting
(``create_state`` still reads a removed file, say) is refused with nothing changed
(:func:`silo.authoring.guard.keep_if_it_starts`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from silo.authoring.files import Edit, check_file_id, load_json, relative
from silo.authoring.guard import keep_if_it_starts
from silo.errors import AuthoringError
from silo.json_types import JSON

__all__ = ["add_data", "data_path", "list_data", "remove_data", "show_data", "update_data"]


def data_path(root: Path, name: str, *, exists: bool) -> Path:
    """``data/<name>.json`` (``name`` may carry the ``.json``), present or absent as asked."""
    stem = check_file_id("file", name.removesuffix(".json"))
    path = root / "data" / f"{stem}.json"
    if exists and not path.is_file():
        known = ", ".join(row["file"] for row in list_data(root)) or "none"
        raise AuthoringError(
            "data_not_found",
            f'environment "{root.name}" has no data file "{stem}" (known: {known})',
        )
    if not exists and path.exists():
        raise AuthoringError(
            "data_exists",
            f"{relative(root, path)} already exists; replace it with: silo-env data update "
            f"env={root.name} file={stem} value=...",
        )
    return path


def _size(value: JSON) -> int | None:
    return len(value) if isinstance(value, (list, dict)) else None


def list_data(root: Path) -> list[dict[str, JSON]]:
    """Every data file: its name and how many records it holds (``null`` for a scalar)."""
    folder = root / "data"
    paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
    return [{"file": p.stem, "records": _size(load_json(root, p))} for p in paths]


def show_data(root: Path, name: str) -> JSON:
    """The file's JSON value."""
    return load_json(root, data_path(root, name, exists=True))


def add_data(root: Path, name: str, value: JSON) -> dict[str, JSON]:
    """Create ``data/<name>.json`` holding ``value``; refuses to replace an existing file."""
    path = data_path(root, name, exists=False)
    edit = keep_if_it_starts(root, f"adding {relative(root, path)}", _writing(path, value))
    return {"action": "added", "file": name.removesuffix(".json"), "files": edit.written()}


def _writing(path: Path, value: JSON) -> Callable[[Edit], Edit]:
    def write(edit: Edit) -> Edit:
        edit.write_json(path, value)
        return edit

    return write


def _set_record(root: Path, path: Path, current: JSON, record_id: str, value: JSON) -> JSON:
    if not isinstance(value, dict):
        raise AuthoringError("authoring_invalid", "value= must be a JSON object when id= is given")
    if isinstance(current, dict):
        return {**current, record_id: value}
    if isinstance(current, list) and all(isinstance(row, dict) for row in current):
        row = {"id": record_id, **value}
        index = next((i for i, r in enumerate(current) if r.get("id") == record_id), None)
        return [*current, row] if index is None else [*current[:index], row, *current[index + 1 :]]
    raise AuthoringError(
        "authoring_invalid",
        f"{relative(root, path)} is not a collection of records (a list of objects or an "
        "object keyed by id); replace it whole by leaving out id=",
    )


def update_data(
    root: Path, name: str, value: JSON, record_id: str | None = None
) -> dict[str, JSON]:
    """Replace the file's value, or with ``record_id`` set (add or replace) that one record."""
    path = data_path(root, name, exists=True)
    if record_id is not None:
        value = _set_record(root, path, load_json(root, path), record_id, value)
    edit = keep_if_it_starts(root, f"updating {relative(root, path)}", _writing(path, value))
    return {"action": "updated", "file": path.stem, "record": record_id, "files": edit.written()}


def remove_data(root: Path, name: str) -> dict[str, JSON]:
    """Delete ``data/<name>.json``; refused when the environment would stop starting."""
    path = data_path(root, name, exists=True)
    keep_if_it_starts(root, f"removing {relative(root, path)}", lambda edit: edit.remove(path))
    return {"action": "removed", "file": path.stem, "files": [relative(root, path)]}
